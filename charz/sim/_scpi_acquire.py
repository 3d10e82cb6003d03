"""The mock scope's acquisition system: arm, trigger on the rendered current, digitise.

Dialects snapshot their settings into a :class:`Frame` when a sequence starts (a real
scope digitises with the settings of the moment too); the engine then waits for a
host I/O from the control channel, searches the source's current for the trigger
edge after it, renders the record around the trigger and digitises every channel.

Timing: with ``time_scale = 0`` an acquisition completes the moment it triggers; with
``time_scale = 1`` the pre-trigger fill (ARMED) and the post-trigger part (TRIGGER)
take as long as on a real scope, and so do the firmware's own costs when a
:class:`~charz.scope.Timing` is given: ``arm_s`` more before READY, ``processing_s``
more before the record can be read.  States follow Tek's TRIGger:STATE? names:
ARMED → READY → TRIGGER → SAVE.

Example
-------
>>> import numpy as np
>>> class Step:
...     def on_host_io(self, op, size_bytes, offset_bytes): pass
...     def current_a(self, t0, dt, n): return np.where(t0 + dt * np.arange(n) >= 0.99e-4, 1.0, 0.1)
>>> eng = Engine(Step(), probe_channel=1)
>>> fe = FrontEnd(scale=0.25, position_div=-3.0, offset=0.0, codes_per_div=25.0, adc_bits=8)
>>> frame = Frame(n_points=1000, dt_s=2e-6, trigger_index=100, delay_s=0.0, trigger_channel=1,
...               trigger_level=0.5, trigger_slope="RISE", auto=False, channels={1: fe})
>>> eng.arm(frame, single=True); eng.trigger_state()
'READY'
>>> round(eng.host_io("write", 4096, 0)["trigger_s"], 9)       # the first sample >= 0.5 A
0.0001
>>> eng.trigger_state(), eng.latest().adc[1][99:101].tolist()
('SAVE', [-65, 25])
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from charz.sim._scpi_render import digitise, find_crossing
from charz.sim._source import CurrentSource

__all__ = ["FrontEnd", "Frame", "Acquired", "Engine"]


@dataclass(frozen=True)
class FrontEnd:
    """One channel's vertical settings when the sequence started."""

    scale: float
    position_div: float
    offset: float
    codes_per_div: float
    adc_bits: int
    units: str = "A"
    coupling: str = "DC"


@dataclass(frozen=True)
class Frame:
    """Everything the acquisition needs, fixed at arm time."""

    n_points: int
    dt_s: float
    trigger_index: int  # points before the trigger
    delay_s: float  # trigger → expansion point (Tek HORizontal:DELay:TIMe)
    trigger_channel: int
    trigger_level: float
    trigger_slope: str  # RISE / FALL / EITHER
    auto: bool  # TRIGger:A:MODe AUTO: free-run when no edge comes
    channels: Mapping[int, FrontEnd] = field(default_factory=dict)

    @property
    def x_zero_s(self) -> float:
        """Time of the first point relative to the trigger."""
        return self.delay_s - self.trigger_index * self.dt_s


@dataclass(frozen=True)
class Acquired:
    """One completed acquisition."""

    frame: Frame
    adc: Mapping[int, np.ndarray]  # channel → int16 ADC codes
    trigger_s: float  # trigger time on the source's clock (seconds after the host I/O)
    number: int
    forced: bool


class Engine:
    """Arms, triggers and digitises; thread-safe; one per mock scope.

    Parameters
    ----------
    source : CurrentSource
        What the current probe sees.
    probe_channel : int
        The channel the current probe is on; other channels see 0.
    time_scale : float
        0 = instant acquisitions; 1 = real-time pre-/post-trigger durations.
    trigger_search_s : float
        How long after a host I/O the edge is searched for (at most 4 M samples).
    auto_trigger_s : float
        AUTO mode: how long the scope waits for an edge before it free-runs.
    gain : callable
        ``gain(forced)`` is the factor applied to the current of the next acquisition
        (the over-range fault); ``forced`` tells free-run/forced records apart.
    clock : callable
        ``time.monotonic`` unless a test injects one.
    arm_s, processing_s : float
        The scope's own time to get ready to trigger, and to make a record readable
        after its window (both scaled by ``time_scale``).
    """

    MAX_SEARCH_SAMPLES = 4_000_000

    def __init__(self, source: CurrentSource, *, probe_channel: int = 1, time_scale: float = 0.0,
                 trigger_search_s: float = 1.0, auto_trigger_s: float = 0.05,
                 gain: Callable[[bool], float] = lambda forced: 1.0,
                 clock: Callable[[], float] = time.monotonic,
                 arm_s: float = 0.0, processing_s: float = 0.0):
        self.source = source
        self.arm_s = arm_s
        self.processing_s = processing_s
        self.probe_channel = probe_channel
        self.time_scale = time_scale
        self.trigger_search_s = trigger_search_s
        self.auto_trigger_s = auto_trigger_s
        self._gain = gain
        self._clock = clock
        self._cond = threading.Condition(threading.RLock())
        self._frame: Frame | None = None
        self._single = False
        self._running = False
        self._armed_at = 0.0
        self._triggered_at: float | None = None
        self._pending: Acquired | None = None
        self._latest: Acquired | None = None
        self._count = 0
        self._io_at: float | None = None  # clock time of the last host I/O
        self._io_count = 0
        self._trigger_events = 0  # Keysight :TER? latch
        self._armed_events = 0  # Keysight :AER? latch

    # ------------------------------------------------------------ control

    def arm(self, frame: Frame, single: bool) -> None:
        """Start acquiring (ACQuire:STATE RUN / :SINGle / :RUN)."""
        with self._cond:
            self._frame = frame
            self._single = single
            self._running = True
            self._armed_at = self._clock()
            self._triggered_at = None
            self._pending = None
            self._armed_events += 1
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._update()
            self._running = False
            self._triggered_at = None
            self._pending = None
            self._cond.notify_all()

    def force(self) -> None:
        """TRIGger FORCe: trigger now if armed."""
        with self._cond:
            self._update()
            if self._running and self._triggered_at is None and self._frame is not None:
                self._fire(self._since_io(), forced=True)

    def forget(self) -> None:
        """Drop the stored record (a power cycle)."""
        with self._cond:
            self._latest = None
            self._running = False
            self._pending = None

    def host_io(self, op: str, size_bytes: int, offset_bytes: int, *,
                no_trigger: bool = False) -> dict[str, object]:
        """A host I/O reached the drive: tell the source, look for the trigger edge."""
        with self._cond:
            self.source.on_host_io(op, size_bytes, offset_bytes)
            self._io_at = self._clock()
            self._io_count += 1
            self._update()
            armed = self._running and self._triggered_at is None and self._frame is not None \
                and self.trigger_state() == "READY"
            trigger_s = None
            if armed and not no_trigger:
                index = self._search(self._frame)  # type: ignore[arg-type]
                if index is not None:
                    trigger_s = index * self._frame.dt_s  # type: ignore[union-attr]
                    self._fire(trigger_s, forced=False)
            self._cond.notify_all()
            return {"armed": armed, "triggered": trigger_s is not None, "trigger_s": trigger_s,
                    "io_count": self._io_count}

    # ------------------------------------------------------------ queries

    def trigger_state(self) -> str:
        with self._cond:
            self._update()
            if not self._running:
                return "SAVE"
            if self._triggered_at is not None:
                return "TRIGGER"
            if self._frame is not None and self._clock() < self._ready_at():
                return "ARMED"
            return "AUTO" if self._frame is not None and self._frame.auto and not self._single \
                else "READY"

    def running(self) -> bool:
        with self._cond:
            self._update()
            return self._running

    def waiting_for_trigger(self) -> bool:
        with self._cond:
            self._update()
            return self._running and self._triggered_at is None

    @property
    def count(self) -> int:
        with self._cond:
            self._update()
            return self._count

    def latest(self) -> Acquired | None:
        with self._cond:
            self._update()
            return self._latest

    def take_trigger_event(self) -> bool:
        with self._cond:
            self._update()
            hit, self._trigger_events = self._trigger_events > 0, 0
            return hit

    def take_armed_event(self) -> bool:
        """Keysight :AER?: latched once the trigger system is armed, i.e. ready for an edge
        (not while the pre-trigger part still fills)."""
        with self._cond:
            self._update()
            if self._armed_events and self._running and self._triggered_at is None \
                    and self._frame is not None and self._clock() < self._ready_at():
                return False
            hit, self._armed_events = self._armed_events > 0, 0
            return hit

    def wait_done(self, timeout_s: float | None, alive: Callable[[], bool] = lambda: True) -> bool:
        """Block until a single sequence completes (``*OPC?``); False on timeout or hang-up."""
        deadline = None if timeout_s is None else self._clock() + timeout_s
        with self._cond:
            while True:
                self._update()
                if not (self._running and self._single):
                    return True
                if deadline is not None and self._clock() >= deadline:
                    return False
                if not alive():
                    return False
                self._cond.wait(0.02)

    # ------------------------------------------------------------ internals

    def _since_io(self) -> float:
        if self._io_at is None:
            # Nothing happened yet: a time well before any request, where a source is idle.
            return -1.0
        return self._clock() - self._io_at

    def _ready_at(self) -> float:
        frame = self._frame
        fill = frame.trigger_index * frame.dt_s if frame else 0.0
        return self._armed_at + (fill + self.arm_s) * self.time_scale

    def _search(self, frame: Frame) -> int | None:
        horizon = int(min(self.trigger_search_s / frame.dt_s, self.MAX_SEARCH_SAMPLES))
        # A real scope has been watching since it was armed: look from a little before the
        # I/O (at most 100 µs) so an edge right at the request is seen as an edge.
        lead = int(min(max(self._clock() - self._armed_at, 0.0), 1e-4) / frame.dt_s)
        gain = 1.0
        if frame.trigger_channel != self.probe_channel:
            # Nothing is connected there: a flat zero only "crosses" a level of exactly 0.
            def samples(first: int, n: int) -> np.ndarray:
                return np.zeros(n)
        else:
            def samples(first: int, n: int) -> np.ndarray:
                return gain * self.source.current_a((first - lead) * frame.dt_s, frame.dt_s, n)
        index = find_crossing(samples, frame.trigger_level, frame.trigger_slope, horizon + lead)
        return None if index is None else index - lead

    def _fire(self, trigger_s: float, *, forced: bool) -> None:
        frame = self._frame
        assert frame is not None
        t_first = trigger_s + frame.x_zero_s
        current = self.source.current_a(t_first, frame.dt_s, frame.n_points) * self._gain(forced)
        adc = {}
        for ch, fe in frame.channels.items():
            values = current if ch == self.probe_channel else np.zeros(frame.n_points)
            adc[ch] = digitise(values, scale=fe.scale, position_div=fe.position_div,
                               offset=fe.offset, codes_per_div=fe.codes_per_div,
                               adc_bits=fe.adc_bits)
            adc[ch].setflags(write=False)
        self._pending = Acquired(frame, adc, trigger_s, self._count + 1, forced)
        self._triggered_at = self._clock()
        self._trigger_events += 1
        self._update()

    def _update(self) -> None:
        """Advance the state machine to 'now' (auto trigger, end of post-trigger time)."""
        now = self._clock()
        frame = self._frame
        if (self._running and self._triggered_at is None and frame is not None and frame.auto
                and now >= self._ready_at() + self.auto_trigger_s):
            self._fire(self._since_io(), forced=True)
            return
        if self._triggered_at is None or self._pending is None or frame is None:
            return
        post_s = ((frame.n_points - frame.trigger_index) * frame.dt_s + self.processing_s) * self.time_scale
        if now >= self._triggered_at + post_s:
            self._latest = self._pending
            self._count = self._pending.number
            self._pending = None
            self._triggered_at = None
            if self._single:
                self._running = False
            else:
                self._armed_at = now  # run mode re-arms at once
            self._cond.notify_all()

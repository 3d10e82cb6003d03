"""Count a NAND die's Ready/Busy low pulses in a stream of logic samples (000 §3.4, §4.2).

R/B is an open-drain, active-low pin: low while the die reads, programs or erases.
000 counts the low pulses whose width lies in the program window (a, b) µs
(Table 2: 200–2200 µs for MLC, 200–500 µs for SLC); reads are tens of µs,
erases milliseconds.  :class:`PulseCounter` does that over a stream of chunks in
constant memory: every pulse is classified once, also one that straddles two
chunks, and every low-pulse width goes into a fixed histogram so a wrong window
shows.

Glitches: a low stretch shorter than ``glitch_us`` is not a pulse, and a high
stretch shorter than ``glitch_us`` inside a pulse does not split it (open-drain
ringing on a long probe lead); both are counted as glitches (high blips also
apart, in ``high_glitches``).  The glitch time is resolved in *samples*, worst
case: a blip shorter than ``glitch_us`` covers at most ``ceil(glitch_us · rate)``
sample instants, so every stretch of that many samples or fewer is a glitch, at
any samplerate (at 250 kS/s a 1.9 µs blip shows as 0 or 1 sample: 1 sample is a
glitch).  The price: a real high gap between two operations that short merges
them — ``charz.analysis._wa_checks.resolution`` says when the samplerate cannot
tell the two apart.

A pulse already low when the stream starts has no known start: it is counted as
``partial`` and classified nowhere.  A pulse still low when counts are read is
reported as ``open_us`` and not counted (000 §4.2 reads a count only after R/B
stayed high for a settle time; :attr:`PulseCounts.high_for_us` is that time).

Why numba: the stream is up to 24 MS/s for hours; one compiled loop reads each
sample once and only branches at edges, several times faster than numpy's
``diff``/``flatnonzero`` passes, which also allocate per chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

__all__ = ["PulseWindows", "PulseCounts", "PulseCounter", "count_pulses", "glitch_samples", "WINDOWS_MLC", "WINDOWS_SLC"]

_jit = numba.njit(cache=True, nogil=True)

# Slots of the state vector (int64); kept in one array so the kernel allocates nothing.
S_POS, S_STATE, S_LOW_START, S_RISE, S_PARTIAL_FIRST = range(5)
S_PROGRAMS, S_READS, S_ERASES, S_GLITCHES, S_OTHER, S_PARTIAL, S_PULSES, S_HIGH_GLITCHES = range(5, 13)
# S_PIECE: the pulse's first low stretch, up to a high blip, was program-wide (0/1); S_MERGED:
# pulses wider than the program window that began so — a program and the next operation
# joined across a high gap shorter than the glitch time, or ringing inside a long pulse.
# S_BLIPPED: the pulse held a high blip (0/1); S_PROG_BLIPPED: programs that did — how often
# ringing strikes, to tell a join from ringing inside an erase.
S_PIECE, S_MERGED, S_BLIPPED, S_PROG_BLIPPED = 13, 14, 15, 16
N_STATE = 17
UNKNOWN, HIGH, LOW, PENDING = 0, 1, 2, 3  # PENDING: high again, but not yet for a glitch width

# Slots of the configuration vector (float64, widths in samples; C_GLITCH a whole number of samples).
C_GLITCH, C_PROG_LO, C_PROG_HI, C_READ_LO, C_READ_HI, C_ERASE_LO, C_ERASE_HI, C_BIN = range(8)
N_CFG = 8


@dataclass(frozen=True)
class PulseWindows:
    """Which low-pulse widths are programs, reads and erases (µs, open intervals).

    A width inside several windows is a program first (000 counts what lies in
    (a, b) as a program, erases included; §4.3 discusses the error), then a read,
    then an erase.  Widths in no window are ``other``.

    Example
    -------
    >>> PulseWindows(program_us=(200.0, 500.0)).program_us
    (200.0, 500.0)
    """

    program_us: tuple[float, float] = (200.0, 2200.0)
    read_us: tuple[float, float] = (2.0, 200.0)
    erase_us: tuple[float, float] = (2200.0, 20000.0)
    glitch_us: float = 2.0
    bin_us: float = 10.0
    max_us: float = 20000.0

    def __post_init__(self) -> None:
        for name in ("program_us", "read_us", "erase_us"):
            lo, hi = getattr(self, name)
            if not (0 <= lo < hi) or not np.isfinite(hi):
                raise ValueError(f"{name} must be (low, high) with 0 ≤ low < high µs, not ({lo}, {hi})")
        if not (self.glitch_us >= 0):
            raise ValueError(f"glitch_us must be ≥ 0, not {self.glitch_us}")
        if not (self.bin_us > 0 and self.max_us > self.bin_us):
            raise ValueError(f"histogram: need 0 < bin_us < max_us, not {self.bin_us}, {self.max_us}")

    @property
    def n_bins(self) -> int:
        """Histogram bins: ``[k·bin_us, (k+1)·bin_us)``, the last one also holds every wider pulse."""
        return int(np.ceil(self.max_us / self.bin_us)) + 1

    def to_dict(self) -> dict:
        return {"program_us": list(self.program_us), "read_us": list(self.read_us),
                "erase_us": list(self.erase_us), "glitch_us": self.glitch_us,
                "bin_us": self.bin_us, "max_us": self.max_us}

    @classmethod
    def from_dict(cls, d: dict) -> "PulseWindows":
        return cls(program_us=tuple(d["program_us"]), read_us=tuple(d["read_us"]),
                   erase_us=tuple(d["erase_us"]), glitch_us=float(d["glitch_us"]),
                   bin_us=float(d["bin_us"]), max_us=float(d["max_us"]))


WINDOWS_MLC = PulseWindows()  # 000 Table 2, SSD-v / SSD-I / SSD-M: programs 200–2200 µs
WINDOWS_SLC = PulseWindows(program_us=(200.0, 500.0), erase_us=(500.0, 20000.0))  # 000 Table 2, SSD-S


@dataclass(frozen=True)
class PulseCounts:
    """Counts so far.  ``histogram[k]`` counts low pulses of width in [k, k+1)·``bin_us``.

    ``programs`` is 000's N_Tprogram.  The histogram holds every complete low pulse
    (glitches included, partial first pulse excluded).
    """

    samples: int
    samplerate_hz: float
    programs: int
    reads: int
    erases: int
    glitches: int
    other: int
    partial: int
    pulses: int
    open_us: float
    high_for_us: float
    windows: PulseWindows
    histogram: np.ndarray = field(repr=False)
    high_glitches: int = 0  # of ``glitches``: high blips that did not split a pulse
    merged: int = 0  # pulses beyond the program window whose first stretch, up to a high blip, was program-wide
    programs_blipped: int = 0  # programs holding a high blip (ringing's rate)

    @property
    def duration_s(self) -> float:
        return self.samples / self.samplerate_hz

    @property
    def bin_edges_us(self) -> np.ndarray:
        return np.arange(self.histogram.size + 1) * self.windows.bin_us

    def to_dict(self) -> dict:
        """JSON-ready (the histogram as a list of ints)."""
        return {"samples": self.samples, "samplerate_hz": self.samplerate_hz, "programs": self.programs,
                "reads": self.reads, "erases": self.erases, "glitches": self.glitches, "other": self.other,
                "partial": self.partial, "pulses": self.pulses, "open_us": self.open_us,
                "high_for_us": self.high_for_us, "windows": self.windows.to_dict(),
                "histogram": [int(x) for x in self.histogram], "high_glitches": self.high_glitches,
                "merged": self.merged, "programs_blipped": self.programs_blipped}

    @classmethod
    def from_dict(cls, d: dict) -> "PulseCounts":
        keys = ("samples", "programs", "reads", "erases", "glitches", "other", "partial", "pulses")
        return cls(**{k: int(d[k]) for k in keys}, samplerate_hz=float(d["samplerate_hz"]),
                   open_us=float(d["open_us"]), high_for_us=float(d["high_for_us"]),
                   windows=PulseWindows.from_dict(d["windows"]),
                   histogram=np.asarray(d["histogram"], dtype=np.int64),
                   high_glitches=int(d.get("high_glitches", 0)), merged=int(d.get("merged", 0)),
                   programs_blipped=int(d.get("programs_blipped", 0)))


@_jit
def _finish_pulse(width, state, cfg, hist):
    if state[S_PARTIAL_FIRST]:
        state[S_PARTIAL_FIRST] = 0
        state[S_PARTIAL] += 1
        return
    w = float(width)
    k = int(w / cfg[C_BIN])
    if k >= hist.shape[0]:
        k = hist.shape[0] - 1
    hist[k] += 1
    state[S_PULSES] += 1
    if state[S_PIECE] and w >= cfg[C_PROG_HI]:
        state[S_MERGED] += 1
    if w <= cfg[C_GLITCH]:
        state[S_GLITCHES] += 1
    elif cfg[C_PROG_LO] < w < cfg[C_PROG_HI]:
        state[S_PROGRAMS] += 1
        state[S_PROG_BLIPPED] += state[S_BLIPPED]
    elif cfg[C_READ_LO] < w < cfg[C_READ_HI]:
        state[S_READS] += 1
    elif cfg[C_ERASE_LO] < w < cfg[C_ERASE_HI]:
        state[S_ERASES] += 1
    else:
        state[S_OTHER] += 1


@_jit
def _feed(buf, mask, cfg, state, hist):
    """One chunk through the state machine; ``buf`` is one byte per sample (may be strided)."""
    n = buf.shape[0]
    pos = state[S_POS]
    st = state[S_STATE]
    glitch = cfg[C_GLITCH]
    i = 0
    if st == UNKNOWN and n > 0:
        if buf[0] & mask:
            st = HIGH
            state[S_RISE] = pos
        else:
            st = LOW
            state[S_LOW_START] = pos
            state[S_PARTIAL_FIRST] = 1
        i = 1
    while i < n:
        if st == LOW:
            # Hot loop 1: wait for the rising edge.
            while i < n and not (buf[i] & mask):
                i += 1
            if i < n:
                st = PENDING
                state[S_RISE] = pos + i
        else:
            # Hot loop 2: wait for the falling edge.
            while i < n and (buf[i] & mask):
                i += 1
            if i < n:
                k = pos + i
                if st == PENDING:
                    if k - state[S_RISE] <= glitch:
                        state[S_GLITCHES] += 1  # a high blip inside a pulse: the pulse goes on
                        state[S_BLIPPED] = 1
                        if state[S_PIECE] == 0:
                            piece = float(state[S_RISE] - state[S_LOW_START])
                            if cfg[C_PROG_LO] < piece < cfg[C_PROG_HI]:
                                state[S_PIECE] = 1
                        state[S_HIGH_GLITCHES] += 1
                        st = LOW
                        continue
                    _finish_pulse(state[S_RISE] - state[S_LOW_START], state, cfg, hist)
                st = LOW
                state[S_LOW_START] = k
                state[S_PIECE] = 0
                state[S_BLIPPED] = 0
    pos += n
    if st == PENDING and pos - state[S_RISE] > glitch:
        _finish_pulse(state[S_RISE] - state[S_LOW_START], state, cfg, hist)
        st = HIGH
        state[S_PIECE] = 0
        state[S_BLIPPED] = 0
    state[S_POS] = pos
    state[S_STATE] = st


def glitch_samples(glitch_us: float, samplerate_hz: float) -> int:
    """The most sample instants a stretch shorter than ``glitch_us`` can cover: ``ceil(glitch_us · rate)``.

    >>> glitch_samples(2.0, 250e3), glitch_samples(2.0, 1e6), glitch_samples(2.0, 24e6), glitch_samples(0, 1e6)
    (1, 2, 48, 0)
    """
    return int(np.ceil(glitch_us * samplerate_hz / 1e6 - 1e-9))


def _arg_samples(chunk) -> np.ndarray:
    a = np.asarray(chunk)
    if a.ndim != 1:
        raise ValueError(f"a chunk is one byte per sample (1-D), not shape {a.shape}")
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    if a.dtype != np.uint8:
        raise ValueError(f"a chunk is uint8 logic bytes, not {a.dtype}")
    return a


class PulseCounter:
    """Streaming R/B pulse counter: :meth:`feed` chunks, read :attr:`counts` any time.

    Parameters
    ----------
    samplerate_hz : float
        Samples per second of the stream.
    windows : PulseWindows
        Program / read / erase windows, glitch width, histogram bins.
    bit : int
        Which bit of each sample byte is R/B (sigrok's first channel is bit 0).

    Memory is the histogram and a 13-slot state, whatever the stream's length.

    Example
    -------
    >>> c = PulseCounter(1e6)
    >>> rb = np.ones(5000, np.uint8); rb[1000:1900] = 0      # one 900 µs low pulse
    >>> c.feed(rb[:1500]); c.feed(rb[1500:])
    >>> c.counts.programs, c.counts.high_for_us
    (1, 3100.0)
    """

    def __init__(self, samplerate_hz: float, windows: PulseWindows = WINDOWS_MLC, *, bit: int = 0) -> None:
        if not (np.isfinite(samplerate_hz) and samplerate_hz > 0):
            raise ValueError(f"samplerate_hz must be > 0, not {samplerate_hz}")
        if not (0 <= bit <= 7):
            raise ValueError(f"bit must be 0..7 within a sample byte, not {bit}")
        self.samplerate_hz = float(samplerate_hz)
        self.windows = windows
        self.bit = bit
        per_us = self.samplerate_hz / 1e6
        w = windows
        self._cfg = np.array([glitch_samples(w.glitch_us, self.samplerate_hz), w.program_us[0] * per_us, w.program_us[1] * per_us,
                              w.read_us[0] * per_us, w.read_us[1] * per_us, w.erase_us[0] * per_us,
                              w.erase_us[1] * per_us, w.bin_us * per_us], dtype=np.float64)
        self._state = np.zeros(N_STATE, dtype=np.int64)
        self._hist = np.zeros(w.n_bins, dtype=np.int64)
        self._mask = np.uint8(1 << bit)

    def feed(self, chunk) -> None:
        """Count one chunk (uint8, one byte per sample; bit ``bit`` is R/B)."""
        _feed(_arg_samples(chunk), self._mask, self._cfg, self._state, self._hist)

    @property
    def counts(self) -> PulseCounts:
        s = self._state
        per_us = self.samplerate_hz / 1e6
        pos, st = int(s[S_POS]), int(s[S_STATE])
        open_us = (pos - s[S_LOW_START]) / per_us if st in (LOW, PENDING) else 0.0
        if st == PENDING:
            open_us = (s[S_RISE] - s[S_LOW_START]) / per_us
        high_for_us = (pos - s[S_RISE]) / per_us if st in (HIGH, PENDING) else 0.0
        return PulseCounts(
            samples=pos, samplerate_hz=self.samplerate_hz, programs=int(s[S_PROGRAMS]), reads=int(s[S_READS]),
            erases=int(s[S_ERASES]), glitches=int(s[S_GLITCHES]), other=int(s[S_OTHER]),
            partial=int(s[S_PARTIAL]) + int(s[S_PARTIAL_FIRST] and st == LOW),
            pulses=int(s[S_PULSES]), open_us=float(open_us), high_for_us=float(high_for_us),
            windows=self.windows, histogram=self._hist.copy(), high_glitches=int(s[S_HIGH_GLITCHES]),
            merged=int(s[S_MERGED]), programs_blipped=int(s[S_PROG_BLIPPED]))


def count_pulses(samples, samplerate_hz: float, windows: PulseWindows = WINDOWS_MLC, *, bit: int = 0) -> PulseCounts:
    """Counts of one whole array (a :class:`PulseCounter` fed once).

    Example
    -------
    >>> rb = np.ones(10000, np.uint8); rb[100:130] = 0; rb[2000:3000] = 0; rb[5000:8000] = 0
    >>> c = count_pulses(rb, 1e6)
    >>> c.reads, c.programs, c.erases
    (1, 1, 1)
    """
    c = PulseCounter(samplerate_hz, windows, bit=bit)
    c.feed(samples)
    return c.counts

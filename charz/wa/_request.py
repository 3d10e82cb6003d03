"""What a ``charz wa`` run is asked to do, read and checked here rather than in the CLI.

The options' text (windows ``LOW,HIGH``, sizes ``4k,8k``) parsed; the bench's stop rule
and shortest gap with 000's defaults and what to say of them; Eq. 7's constants from
the options and a profile, each with its origin.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from charz.analysis import PulseWindows, Quantity, WaGeometry, geometry_from_profile
from charz.errors import UsageError
from charz.logic import LogicSpec, parse_logic_spec, parse_samplerate
from charz.profile import read_profile
from charz.wa._jobs import TABLE3_FILES, parse_size
from charz.wa._records import WaSettings, WaStep
from charz.wa._run import build_plan

__all__ = ["WaRequest", "MockOptions", "parse_sizes", "parse_window", "settle_notes", "die_notes", "resolve_geometry", "BENCH_SETTLE_S",
           "BENCH_MIN_GAP_US"]


def parse_sizes(text: str) -> tuple[int, ...]:
    return tuple(parse_size(x) for x in text.split(",") if x.strip())


def parse_window(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"a window is 'LOW,HIGH' in µs (e.g. 200,2200), not {text!r}") from None
    return a, b


BENCH_SETTLE_S = 300.0   # 000 §4.2: R/B high for five minutes before N_Tprogram is read
BENCH_MIN_GAP_US = 10.0  # assumed: a command, its address cycles and the controller's turnaround


def settle_notes(settle: float | None, min_gap: float | None) -> tuple[float, float, list[str]]:
    """A bench's settle time and shortest gap (defaults 000's 300 s, 10 µs) and what to say of them."""
    notes = []
    settle = BENCH_SETTLE_S if settle is None else settle
    if settle < 0:
        raise UsageError(f"--settle is a time ≥ 0 s, not {settle:g}")
    if settle < BENCH_SETTLE_S:
        notes.append(f"--settle {settle:g} s is shorter than 000's {BENCH_SETTLE_S:g} s (§4.2): programs the "
                     "drive runs later in the background (garbage collection, a cache flush) may be missed")
    if min_gap is None:
        min_gap = BENCH_MIN_GAP_US
        notes.append(f"shortest high gap between two operations assumed {min_gap:g} µs (--min-gap)")
    elif not min_gap > 0:
        raise UsageError(f"--min-gap is a time > 0 µs, not {min_gap:g}")
    return settle, min_gap, notes


def die_notes(counted: int, dies: int, how: str = "--logic DRIVER:D0,D1,…") -> list[str]:
    """``how``: the option of the command at hand that counts several dies (a hint must name a real one)."""
    if counted == 1 and dies > 1:
        return [f"one die of {dies} counted: Eq. 7 takes every die to do the same work (000 §3.2.3, assumed); "
                "u covers dies that share pulses at random, not a die that works more — count several "
                f"({how}) to measure their spread"]
    if counted > dies:
        raise UsageError(f"{counted} dies counted but the geometry has {dies}")
    return []



def resolve_geometry(channels, chips, dies, page_size, profile):
    """Eq. 7's constants: each option given wins over the profile's value (and says so)."""
    if profile is None:
        if None in (channels, chips, dies, page_size):
            raise UsageError("Eq. 7 needs --channels, --chips, --dies and --page-size (the drive's parallelism)",
                             hint="take them from the drive's teardown / NAND datasheet, or give --profile")
        return WaGeometry.given(channels, chips, dies, parse_size(page_size))
    try:
        g = geometry_from_profile(read_profile(profile))
    except ValueError as exc:
        raise UsageError(f"{profile}: {exc}") from None
    for name, v, unit in (("channels", channels, "channels"), ("chips_per_channel", chips, "chips"),
                          ("dies_per_chip", dies, "dies"),
                          ("page_size", parse_size(page_size) if page_size else None, "B")):
        if v is not None:
            g = replace(g, **{name: Quantity.given(int(v), unit)})
    return g


@dataclass(frozen=True)
class MockOptions:
    """The simulated drive ``charz wa run --mock`` asks for (the CLI builds it: runtime
    code never imports the simulator)."""

    multi_plane: bool = True
    lines: bool | None = None
    counters: str = "micron"
    ftl: str | None = None
    nvm_cache_bytes: int = 8 << 20
    keep_sr: Path | None = None


@dataclass(frozen=True)
class WaRequest:
    """A checked ``charz wa run``: the plan, how to count, the stop rule, and the bench
    (``mock`` or ``device`` with ``logic``).  Build it with :meth:`build`.

    ``geometry`` is Eq. 7's constants for a drive (None for the mock, whose own
    configuration gives them); :meth:`settings` adds the bench's description.
    """

    out: Path
    plan: tuple[WaStep, ...]
    windows: PulseWindows
    samplerate_hz: float
    settle_s: float
    settle_timeout_s: float
    min_gap_us: float
    notes: tuple[str, ...]
    m_p_given: int | None = None
    planes: int | None = None
    pages_per_block: int | None = None
    mock: MockOptions | None = None
    device: Path | None = None
    logic: LogicSpec | None = None
    geometry: WaGeometry | None = None
    confirm_serial: str | None = None
    sigrok: str | None = None

    @classmethod
    def build(cls, *, mock: MockOptions | None = None, mock_stop_rule: tuple[float, float] | None = None,
              device: Path | None = None, logic: str | None = None, out: Path | None = None,
              volume: str = "128m", sizes: str = "512,4k,8k,16k,32k", files: str | None = None,
              benchmarks: bool = True, subtests: int = 0, op_sweep: str | None = None, mp: int | None = None,
              channels: int | None = None, chips: int | None = None, dies: int | None = None,
              page_size: str | None = None, planes: int | None = None, pages_per_block: int | None = None,
              profile: Path | None = None, program_window: str = "200,2200", read_window: str = "2,200",
              erase_window: str = "2200,20000", glitch: float = 2.0, min_gap: float | None = None,
              samplerate: str = "250k", settle: float | None = None, settle_timeout: float | None = None,
              confirm_serial: str | None = None, sigrok: str | None = None,
              now: datetime.datetime | None = None) -> "WaRequest":
        """Check the options as ``charz wa run`` takes them; bad ones raise :class:`UsageError`.

        ``mock_stop_rule``: the mock's own settle time and shortest gap (its replay's,
        ``charz.sim.MOCK_SETTLE_S`` and ``MOCK_MIN_GAP_US``), the defaults with ``mock``.
        """
        if (mock is not None) == (device is not None):
            raise UsageError("give exactly one of --mock and --device DEV")
        if mock is not None and mock.counters not in ("micron", "intel", "nvme"):
            raise UsageError(f"--mock-counters is micron, intel or nvme, not {mock.counters!r}")
        try:
            rate = parse_samplerate(samplerate)
            windows = PulseWindows(program_us=parse_window(program_window), read_us=parse_window(read_window),
                                   erase_us=parse_window(erase_window), glitch_us=glitch)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        ops = tuple(float(x) for x in op_sweep.split(",")) if op_sweep else ()
        plan = build_plan(volume_bytes=parse_size(volume), benchmarks=benchmarks,
                          files=tuple(files.split(",")) if files else TABLE3_FILES, sizes=parse_sizes(sizes),
                          calibrate=mp is None, subtests=subtests, op_percents=ops)
        if not plan:
            raise UsageError("nothing to run: no benchmarks, no sub-tests, M_p given")
        out = out or Path("runs") / f"wa-{(now or datetime.datetime.now()):%Y%m%d-%H%M%S}"
        geometry = spec = None
        if mock is not None:
            settle_default, gap_default = mock_stop_rule or (BENCH_SETTLE_S, BENCH_MIN_GAP_US)
            settle = settle_default if settle is None else settle
            min_gap = gap_default if min_gap is None else min_gap
            notes = [f"the mock's replay: R/B high {settle:g} s after its last pulse is its stop rule (000 §4.2 "
                     "waits 300 s on a drive); its |RE_WA| checks charz against its own simulator (a self-check)"]
        else:
            settle, min_gap, notes = settle_notes(settle, min_gap)
            if not logic:
                raise UsageError("--device needs --logic DRIVER:CHANNEL (the analyser on the die's R/B pin)")
            spec = parse_logic_spec(logic)
            geometry = resolve_geometry(channels, chips, dies, page_size, profile)
            notes += die_notes(len(spec.bits), geometry.dies)
        return cls(out=Path(out), plan=tuple(plan), windows=windows, samplerate_hz=rate, settle_s=settle,
                   settle_timeout_s=settle_timeout if settle_timeout is not None else settle + 300.0,
                   min_gap_us=min_gap, notes=tuple(notes), m_p_given=mp, planes=planes,
                   pages_per_block=pages_per_block, mock=mock, device=device, logic=spec, geometry=geometry,
                   confirm_serial=confirm_serial, sigrok=sigrok)

    def settings(self, bench: Mapping[str, Any], geometry: WaGeometry | None = None) -> WaSettings:
        """The run's settings with the bench's description (and, for the mock, its geometry)."""
        return WaSettings(plan=self.plan, windows=self.windows, samplerate_hz=self.samplerate_hz,
                          settle_s=self.settle_s, settle_timeout_s=self.settle_timeout_s,
                          geometry=geometry or self.geometry, bench=bench, m_p_given=self.m_p_given,
                          planes=self.planes, pages_per_block=self.pages_per_block, min_gap_us=self.min_gap_us,
                          notes=self.notes)

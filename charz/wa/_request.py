"""What a ``charz wa`` run is asked to do, read and checked here rather than in the CLI.

The options' text (windows ``LOW,HIGH``, sizes ``4k,8k``) parsed; the bench's stop rule
and shortest gap with 000's defaults and what to say of them; Eq. 7's constants from
the options and a profile, each with its origin.
"""

from __future__ import annotations

from dataclasses import replace

from charz.analysis import Quantity
from charz.errors import UsageError
from charz.profile import read_profile
from charz.wa._jobs import parse_size
from charz.analysis import WaGeometry, geometry_from_profile

__all__ = ["parse_sizes", "parse_window", "settle_notes", "die_notes", "resolve_geometry", "BENCH_SETTLE_S",
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

"""Whether a drive's allocation is decidable: the benchmark's subset.

Issue 22 counts the allocation "where the walks' durations or rises differ by more
than their spread".  Both are played noise-free with this family's own controller,
against every walk naming another scheme at any package-select delay (a controller's,
not on any datasheet):

* durations — no other walk reproduces the request durations, at any constant offset,
  to within the program-time spread of the page types;
* the rise — no other walk starts the one-unit write's packages programming at the
  same moments (relative to the first) to within what a person can place a step of
  one package's program current: the charge pump's ISPP period (the pulse/verify
  sawtooth hides any finer timing) plus two sample intervals.  A package's program
  current (ICC2, 12-50 mA) stands far above the noise of the mean of the repeats
  over one period, so the timing, not the height, is the limit.
"""

from __future__ import annotations

from dataclasses import replace

from tests.independent_datasheet.controller import PROG, duration_us, write_ops
from tests.independent_datasheet.ssd import CHANNELS_FIRST, WAYS_FIRST, Ssd

SELECT_GRID_US = tuple(range(0, 121, 3))


class _Mid:
    def uniform(self, a=0.0, b=1.0, size=None):
        return (a + b) / 2.0


def _durations(ssd: Ssd) -> list[float]:
    return [duration_us(write_ops(ssd, s, _Mid())) for s in ssd.write_sizes()]


def _program_starts(ssd: Ssd) -> list[float]:
    """When each package of a one-unit write starts programming, from the first, in order."""
    first: dict[int, float] = {}
    for o in write_ops(ssd, ssd.unit_bytes, _Mid()):
        if o.kind == PROG:
            first[o.package] = min(first.get(o.package, o.start), o.start)
    starts = sorted(first.values())
    return [s - starts[0] for s in starts]


def _others(ssd: Ssd) -> list[Ssd]:
    truth = ssd.scheme()
    others = [replace(ssd, walk=w) for w in (CHANNELS_FIRST, WAYS_FIRST) if w != ssd.walk]
    return [o for o in others if o.scheme() not in (None, truth)]


def rises_differ(ssd: Ssd) -> bool | None:
    """Whether the one-unit write's program starts tell the walks apart; ``None`` where
    the scheme is undefined."""
    if ssd.scheme() is None:
        return None
    others = _others(ssd)
    if not others:
        return True
    mine = _program_starts(ssd)
    resolution = ssd.ispp_period_us + 2 * ssd.dt_us
    for o in others:
        for sel in SELECT_GRID_US:
            theirs = _program_starts(replace(o, t_select_us=float(sel)))
            if max(abs(a - b) for a, b in zip(mine, theirs)) <= resolution:
                return False
    return True


def durations_differ(ssd: Ssd) -> bool | None:
    """Whether the request durations tell the walks apart; ``None`` where the scheme is undefined."""
    if ssd.scheme() is None:
        return None
    others = _others(ssd)
    if not others:
        return True
    mine = _durations(ssd)
    spread = ssd.t_prog_us * (max(ssd.page_types) - min(ssd.page_types)) / 2 + 0.03 * ssd.t_prog_us
    for o in others:
        for sel in SELECT_GRID_US:
            diff = [a - b for a, b in zip(mine, _durations(replace(o, t_select_us=float(sel))))]
            mid = (max(diff) + min(diff)) / 2
            if max(abs(x - mid) for x in diff) <= spread:
                return False
    return True


def walks_differ(ssd: Ssd) -> bool | None:
    """The benchmark's subset: the durations or the rise tell the walks apart."""
    if ssd.scheme() is None:
        return None
    return bool(durations_differ(ssd) or rises_differ(ssd))

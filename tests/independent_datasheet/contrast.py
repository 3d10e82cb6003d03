"""Whether a drive's allocation is decidable from durations: the benchmark's subset.

A person could tell the walk from the request durations when no walk naming another
scheme reproduces them — at any package-select delay (a controller's, not on any
datasheet) and any constant offset — to within the program-time spread of the page
types.  Played noise-free with this family's own controller.
"""

from __future__ import annotations

from dataclasses import replace

from tests.independent_datasheet.controller import duration_us, write_ops
from tests.independent_datasheet.ssd import CHANNELS_FIRST, WAYS_FIRST, Ssd

SELECT_GRID_US = tuple(range(0, 121, 3))


class _Mid:
    def uniform(self, a=0.0, b=1.0, size=None):
        return (a + b) / 2.0


def _durations(ssd: Ssd) -> list[float]:
    return [duration_us(write_ops(ssd, s, _Mid())) for s in ssd.write_sizes()]


def walks_differ(ssd: Ssd) -> bool | None:
    truth = ssd.scheme()
    if truth is None:
        return None
    others = [replace(ssd, walk=w) for w in (CHANNELS_FIRST, WAYS_FIRST) if w != ssd.walk]
    others = [o for o in others if o.scheme() not in (None, truth)]
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

"""How far apart the walks' request durations lie on one drive: the acceptance's subset.

Issue 11 asks for the allocation to be right on most drives "where the walks'
predictions differ by more than the program-time spread".  That is a property of the
drive, judged here with the generator's own physics (nothing from charz): every write
size is played noise-free under the drive's walk and under each other walk that names
a different scheme; the largest difference in duration is compared with the program
time's spread (lower/upper pages, ±t_prog_spread).
"""

from __future__ import annotations

from dataclasses import replace

from tests.independent.drive import CHANNEL_FIRST, WAY_FIRST, Drive, write_sizes
from tests.independent.physics import DriveState, write_activity


class _Mid:
    """An rng that always draws the middle of its range: durations without the noise."""

    def uniform(self, a=0.0, b=1.0, size=None):
        return (a + b) / 2.0


def _durations(drive: Drive) -> list[float]:
    state, rng = DriveState(drive), _Mid()
    return [write_activity(state, s, rng).busy[1] for s in write_sizes(drive)]


SWITCH_GRID_US = tuple(range(0, 301, 2))  # a controller's switch delay is not on a datasheet


def walk_contrast_us(drive: Drive) -> float | None:
    """How closely another walk can imitate the drive's durations: for each walk naming
    another scheme, the switch delay that brings its durations nearest (the datasheet gives
    transfer and program times, not the controller's switch delay), and then the largest
    difference over the write sizes, in µs; the smallest over the other walks.  ``None``
    when the scheme is undefined (one package per unit) or no other walk exists (one way)."""
    truth = drive.unit_scheme()
    if truth is None:
        return None
    others = [replace(drive, walk=w) for w in (CHANNEL_FIRST, WAY_FIRST) if w != drive.walk and drive.ways > 1]
    others = [o for o in others if o.unit_scheme() != truth]
    if not others:
        return None
    mine = _durations(drive)
    best = float("inf")
    for o in others:
        for sw in SWITCH_GRID_US:
            theirs = _durations(replace(o, t_switch_us=float(sw)))
            # the offset (latency before the first program) is fitted too: compare shapes
            diff = [a - b for a, b in zip(mine, theirs)]
            mid = (max(diff) + min(diff)) / 2.0
            best = min(best, max(abs(x - mid) for x in diff))
    return best


def walks_differ(drive: Drive) -> bool | None:
    """Whether the walks' predictions differ by more than the program-time spread (the subset
    the allocation target is judged on); ``None`` where the scheme is undefined."""
    if drive.unit_scheme() is None:
        return None
    contrast = walk_contrast_us(drive)
    if contrast is None:
        return True  # one geometry-allowed scheme: nothing to confuse it with
    return contrast > drive.t_prog_us * drive.t_prog_spread

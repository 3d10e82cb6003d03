"""The peak staircase's top where the packages given bound it: peaks built here from stated
currents (no simulator).

A step of the peak staircase is one more unit's packages starting to program (003 §4.1), so
a staircase has at most as many levels as there are packages.  Once it has that many, every
package is busy and no package is left to raise the peak further: whatever the peak does past
that size is another current — with cache program, the next pages move over the channels
while every package programs, and each busy channel's transfer current (30–60 % of one
package's program current, issue 22) lifts the peak by part of a step.  So a sweep whose
peaks still creep up past that top did reach it, and the count is the packages'.
"""

import numpy as np
import pytest

from charz.analysis._steps import fit_steps

pytestmark = pytest.mark.unit

CTRL_A = 0.060  # controller, busy through the request
PKG_A = 0.025  # one package programming (its dies interleave: no more for more dies)
XFER_A = 0.015  # one channel moving a page: 60 % of a package's program current (issue 22: 30–60 %)
NOISE_A = 0.0015  # per capture, on the peak (w = 20 average)
REPEATS = 3


def peaks(sizes: np.ndarray, tread: int, packages: int, channels: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Peaks (above idle) of writes of ``sizes`` pages, ``REPEATS`` each: one more package every
    ``tread`` pages up to ``packages``; past that, each further tread's pages cross a channel
    while every package programs (cache program), at most ``channels`` at once."""
    rng = np.random.default_rng(seed)
    u = np.repeat(np.asarray(sizes), REPEATS)
    units = -(-u // tread)
    busy = np.minimum(units, packages)
    moving = np.minimum(np.maximum(units - packages, 0), channels)
    return u, CTRL_A + PKG_A * busy + XFER_A * moving + rng.normal(0.0, NOISE_A, u.size)


def test_one_page_ramp_past_the_packages_stops_at_them():
    # Six packages of one-page units: 25 mA a page up to 6 pages, then pages 7 and 8 cross two
    # channels while all six program (+15 mA each: more than half a step, so they
    # look like ramp steps), and the peak holds.  Eight rises for six
    # packages: the ramp is cut at the packages — 6 one-page steps, every package busy at the
    # top (the old rule dropped the whole ramp for being longer than the packages, and the
    # drive's dies and unit stayed undetermined: datasheet drives 501, 547).
    u, y = peaks(np.arange(1, 13), tread=1, packages=6, channels=2)
    r = fit_steps(u, y, n_package=6, idle_a=0.0)
    assert (r.n_step, r.step_pages, r.confidence) == (6, 1, "medium"), r.reason
    assert r.count_sure, r.reason
    assert "6 packages" in r.reason and "transfers" in r.reason, r.reason


def test_rises_past_the_packages_as_large_as_theirs_are_no_ramp_cut():
    # The same drive, but each page past the sixth lifts the peak by a whole package's
    # current: equal rises on and on for more pages than packages are no packages' at all
    # (a transfer draws a fraction of a program), so no one-page count is claimed.
    rng = np.random.default_rng(1)
    u = np.repeat(np.arange(1, 13), REPEATS)
    y = CTRL_A + PKG_A * np.minimum(u, 9) + rng.normal(0.0, NOISE_A, u.size)
    r = fit_steps(u, y, n_package=6, idle_a=0.0)
    assert not (r.n_step == 6 and r.step_pages == 1), r.reason


def test_one_level_per_package_whose_last_tread_still_rises_is_the_top():
    # Four packages, 2-page units: four 25 mA steps to 8 pages, then the next unit's two pages
    # cross a channel while all four program (+15 mA) and the sweep stops at 10 pages.  The
    # last tread (7-10 pages) rises by 15 mA — "still rising" to a rule that ignores the
    # packages, yet there is no fifth package to start: the top is reached (datasheet drive 572,
    # 16 steps of 2 pages on 16 packages, at every noise).  Medium: the lift blurs the top's level.
    u, y = peaks(np.arange(1, 11), tread=2, packages=4, channels=1)
    r = fit_steps(u, y, n_package=4, idle_a=0.0)
    assert (r.n_step, r.step_pages, r.confidence) == (4, 2, "medium"), r.reason
    assert "one per package" in r.reason, r.reason


def test_fewer_levels_than_packages_with_a_rising_last_tread_stay_undetermined():
    # The same peaks with eight packages given: four levels of eight possible, and the last
    # tread rising may be the fifth unit's packages starting — the sweep may have stopped
    # on the way up, so nothing is claimed.
    u, y = peaks(np.arange(1, 11), tread=2, packages=4, channels=1)
    r = fit_steps(u, y, n_package=8, idle_a=0.0)
    assert r.n_step is None and "still rising" in r.reason, r.reason

"""A ramp of equal D-page steps shows the unit even where the staircase has no top.

A write of part of a unit programs the whole unit (padded, or read and rewritten), so
every write inside one tread draws the same packages and the peak is flat across it; at
each boundary one more unit's packages start.  Where programs overlap only in part, the
first units finish while the last start: past some size each unit adds less than a whole
step, and the sweep may stop before every package is busy.  No staircase of a few
levels fits such peaks, yet the first treads show the width alone.  The peaks here are
drawn from stated currents: a controller, a program current per unit, and a shrinking
share for the units past the overlap.
"""

import numpy as np
import pytest

from charz.analysis import Given, characterize
from charz.analysis._steps import _ramp_to_four_packages, _tread_ramp, fit_steps
from tests.unit.test_write_unit_veto import PAGE, sweep

pytestmark = pytest.mark.unit

CTRL_A = 0.090  # controller and host link while a write is in flight
UNIT_A = 0.052  # one unit's packages programming (2 packages of 26 mA)
SIGMA_A = 0.002  # one capture's peak noise


def overlapping_units(sizes, tread, full_units, rng, late_share=0.45):
    """Peak above idle: ``full_units`` units overlap completely, each later unit adds only
    ``late_share`` of a unit (the first ones finish while it starts)."""
    units = -(-sizes // tread)
    lift = UNIT_A * (np.minimum(units, full_units) + late_share * np.clip(units - full_units, 0, None))
    return CTRL_A + lift + rng.normal(0.0, SIGMA_A, sizes.size)


def test_two_page_treads_stand_where_the_sweep_never_reaches_the_top():
    # 32 packages, units of 2 packages and 2 pages: 16 steps to every package busy, but
    # only 8 units overlap fully; the sweep stops at 34 pages, still rising.
    rng = np.random.default_rng(487)
    sizes = np.repeat(np.arange(1, 35), 3)
    r = fit_steps(sizes, overlapping_units(sizes, 2, 8, rng), n_package=32, idle_a=0.0)
    assert r.step_pages == 2, r.reason
    assert r.confidence == "medium"  # one view: the peaks' treads
    assert not r.count_sure  # the count needs the top the sweep never reached


def test_the_smallest_flat_tread_wins_over_its_multiples():
    # 3-page treads: 6- or 9-page treads would rise inside by at least half a step.
    rng = np.random.default_rng(3)
    sizes = np.repeat(np.arange(1, 46), 3)
    y = overlapping_units(sizes, 3, 6, rng)
    med = np.array([np.median(y[sizes == s]) for s in range(1, 46)])
    found = _tread_ramp(np.arange(1, 46), med, np.full(45, 1.2533 * SIGMA_A / np.sqrt(3)), 32)
    assert found is not None and found[1] == 3


def test_a_host_link_step_half_way_through_each_unit_is_no_ramp_of_half_units():
    # 4-page units; the host link (10 mA) still sends while the unit's first package
    # programs, so each unit's peak rises part-way: 10 mA at its third page, the rest of the
    # unit (42 mA) at its first.  Steps alternate: no ramp of 2-page units.
    rng = np.random.default_rng(245)
    sizes = np.repeat(np.arange(1, 41), 3)
    units = -(-sizes // 4)
    third_on = ((sizes - 1) % 4 >= 2)
    y = CTRL_A + 0.042 * units + 0.010 * third_on + rng.normal(0.0, SIGMA_A, sizes.size)
    med = np.array([np.median(y[sizes == s]) for s in range(1, 41)])
    found = _tread_ramp(np.arange(1, 41), med, np.full(40, 1.2533 * SIGMA_A / np.sqrt(3)), 16)
    assert found is None or found[1] != 2


def test_a_one_page_ramp_is_no_wider_tread():
    # one-page steps (one package each): any wider tread rises inside
    rng = np.random.default_rng(1)
    sizes = np.arange(1, 25)
    y = CTRL_A + 0.026 * np.minimum(sizes, 16) + rng.normal(0.0, SIGMA_A / 3, sizes.size)
    assert _tread_ramp(sizes, y, np.full(24, SIGMA_A / 3), 16) is None


# Whole sweeps (waveforms drawn from stated currents and times by the write-unit veto's
# helper): 16 packages of 4 KiB pages, one more busy every 2 pages; the first 8 draw 45 mA
# each, the later 8 only 20 mA (they start as the first ones finish: partial overlap), and
# the request grows by one program round every ``duration_tread`` pages.
RAMP_GIVEN = Given(channels=4, packages=16, page_size_bytes=PAGE)
SHRINKING = (0.045,) * 8 + (0.020,) * 8


def test_durations_that_pair_the_ramp_treads_leave_the_unit_to_them():
    c = characterize(sweep(peak_tread=2, packages=16, duration_tread=6, largest=30, pkg_a=SHRINKING), RAMP_GIVEN)
    assert c["write_io_unit_bytes"].value == 2 * PAGE
    assert c["write_io_unit_bytes"].confidence == "medium"  # one view
    assert not c["n_step"].known  # the sweep never reaches every package busy


def test_durations_that_split_the_ramp_treads_make_the_views_disagree():
    # a 2-page unit cannot make the request jump every 5 pages: neither view decides
    c = characterize(sweep(peak_tread=2, packages=16, duration_tread=5, largest=30, pkg_a=SHRINKING), RAMP_GIVEN)
    q = c["write_io_unit_bytes"]
    assert not q.known and q.details.get("decided_by") == "neither", q
    assert "2 pages" in q.evidence and "5 pages" in q.evidence, q.evidence


def test_a_one_page_ramp_on_four_packages_needs_only_three_rises():
    # Four one-page units, 27 mA a package; past every package busy the next pages'
    # transfers lift the peak 3, 10, then 20 mA (cache program: a fraction of a program).
    # Three equal rises from the first page, each under a unit that would hold the peak
    # flat if it were wider, then smaller ones: 4 one-page steps.
    rng = np.random.default_rng(757)
    sizes = np.repeat(np.arange(1, 21), 3)
    creep = np.array([0, 0, 0, 0, 0.003, 0.010] + [0.020] * 14)
    y = CTRL_A + 0.027 * np.minimum(sizes, 4) + creep[sizes - 1] + rng.normal(0.0, SIGMA_A, sizes.size)
    r = fit_steps(sizes, y, n_package=4, idle_a=0.0)
    assert (r.n_step, r.step_pages, r.confidence) == (4, 1, "medium"), r.reason
    assert r.count_sure


def test_three_rises_on_eight_packages_are_no_ramp():
    # the same three rises stop short of 8 packages: too few to read a tread from
    y = CTRL_A + 0.027 * np.minimum(np.arange(1, 13), 4)
    assert _ramp_to_four_packages(np.arange(1, 13), y, np.full(12, 0.001), 8) is None
    assert _ramp_to_four_packages(np.arange(1, 13), y, np.full(12, 0.001), 4) == (4, pytest.approx(0.027))

"""The write unit where the peak staircase cannot be read over the whole sweep (issue 22).

Peaks and durations are drawn here from stated currents and timings, not from charz:

* Durations step where units finish in separate batches, so their tread may be several
  units that parallel packages program together.  It is the unit itself only where the
  peaks do not rise inside it (a unit beside the first adds its packages' current).
* The durations' margins are taken on the best fit's own scale: where units overlap until
  every package is busy, each adds only a switch delay and then one waits a whole program
  time, no single per-unit cost fits, and rival treads must not look decisive.
* The first write that waits for a busy package is the staircase's top; past it the peak may
  still creep (cache program's transfers), so the staircase is read up to that top.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize, fit_steps
from charz.analysis._steps import fit_steps_to_top
from charz.analysis._units import durations_top, next_unit_beside, peaks_flat_inside, unit_from_durations
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

CTRL_A, PACKAGE_A, TRANSFER_A = 0.050, 0.030, 0.012  # controller busy, one package programming, one channel moving a page


def overlapping_units_us(pages, *, per_unit_pages=4, packages=3, t_xfer=25.0, t_switch=20.0, t_prog=900.0, c=60.0):
    """Request duration of a write of ``pages`` pages by 003's recurrence: one package per
    unit (its dies take ``per_unit_pages`` pages), each on its own channel; a unit starts a
    switch delay after the previous, or when its package is free; whole units (padding)."""
    free = np.zeros(packages)
    cursor = end = 0.0
    for j in range(-(-pages // per_unit_pages)):
        p = j % packages
        start = max(cursor, free[p])
        free[p] = start + per_unit_pages * t_xfer + t_prog
        cursor = start + t_switch
        end = max(end, free[p])
    return c + end


@pytest.mark.parametrize("extra", [2, 4])
def test_overlapping_units_leave_the_durations_undecided(extra):
    # 3 channels × 1 way × 4 dies, 4-page units: 20 µs per unit until all three packages are
    # busy, then a program time.  4-, 6- and 12-page treads all miss that; none may be decided
    # (6 pages was said at "high" before the margins were scaled).
    rng = np.random.default_rng(1)
    sizes = np.repeat(np.arange(1, 12 + extra + 1), 5)
    d = np.array([overlapping_units_us(int(u)) for u in sizes]) + rng.normal(0, 3.0, sizes.size)
    r = unit_from_durations(sizes, d * 1e-6)
    assert r.unit_pages in (None, 4), r.reason


def test_serial_units_still_decide_the_durations():
    # Units that never overlap (003 Fig. 3c): each adds a program time; the tread is decided.
    rng = np.random.default_rng(2)
    sizes = np.repeat(np.arange(1, 25), 5)
    d = 80 + 950 * np.ceil(sizes / 8) + rng.normal(0, 3.0, sizes.size)
    r = unit_from_durations(sizes, d * 1e-6)
    assert r.unit_pages == 8 and r.confidence == "high", r.reason


def test_peaks_flat_inside_the_tread_make_it_one_unit():
    rng = np.random.default_rng(3)
    sizes = np.repeat(np.arange(1, 25), 5)
    # One 8-page unit at a time (4 packages): the same peak at every size.
    flat = CTRL_A + 4 * PACKAGE_A + rng.normal(0, 0.002, sizes.size)
    ok, why = peaks_flat_inside(sizes, flat, 8)
    assert ok, why
    # 2-page units of one package each, four side by side in the 8-page tread: the peak climbs.
    side = CTRL_A + PACKAGE_A * np.minimum(-(-sizes // 2), 4) + rng.normal(0, 0.002, sizes.size)
    ok, why = peaks_flat_inside(sizes, side, 8)
    assert not ok and "side by side" in why


def test_a_unit_spanning_every_package_cannot_overlap_the_next():
    rng = np.random.default_rng(4)
    sizes = np.repeat(np.arange(1, 25), 5)
    y = CTRL_A + 4 * PACKAGE_A + rng.normal(0, 0.002, sizes.size)
    assert not next_unit_beside(sizes, y, 8)[0]
    # The ninth page's unit starts programming on other packages while the first still programs.
    beside = y + 3 * PACKAGE_A * (sizes == 9)
    ok, why = next_unit_beside(sizes, beside, 8)
    assert ok and "beside" in why


def creeping_peaks(sizes, rng, tread=2, units=4, creep_per_page=0.0009, sigma=0.0015):
    """Peaks of ``units`` units of ``tread`` pages, one package each, to every package busy;
    past it, cache program moves the next pages over the channels while every package
    programs: the peak creeps up by ``creep_per_page`` per page (a step's worth in 30 pages)."""
    busy = np.minimum(-(-sizes // tread), units)
    past = np.clip(sizes - units * tread, 0, None)
    return CTRL_A + PACKAGE_A * busy + creep_per_page * past + rng.normal(0, sigma, sizes.size)


def test_the_staircase_up_to_the_durations_top():
    rng = np.random.default_rng(5)
    sizes = np.repeat(np.arange(1, 41), 5)
    y = creeping_peaks(sizes, rng)
    whole = fit_steps(sizes, y, n_package=4, idle_a=0.0)
    assert (whole.n_step, whole.step_pages) != (4, 2) or whole.confidence == "undetermined", whole.reason
    # Durations: 20 µs per unit while units overlap, then each wave of four waits a program time.
    d = 500 + 20 * np.minimum(-(-sizes // 2), 4) + 330 * (-(-sizes // 8) - 1) + rng.normal(0, 3.0, sizes.size)
    top = durations_top(sizes, d * 1e-6)
    assert top == 8
    r = fit_steps_to_top(sizes, y, top, n_package=4)
    assert (r.n_step, r.step_pages, r.confidence) == (4, 2, "medium"), r.reason


def test_a_units_last_page_lift_is_not_finer_steps():
    # Four 4-page units of two packages (60 mA a step); cache program lifts each unit's last
    # page by a transfer current (12 mA).  2-page steps would put 30 mA between the halves of
    # every tread; the data put 6 mA there, so 4 × 4 stands.
    rng = np.random.default_rng(6)
    sizes = np.repeat(np.arange(1, 21), 5)
    unit = np.minimum(-(-sizes // 4), 4)
    last_page = (sizes % 4 == 0) & (sizes <= 16)
    y = CTRL_A + 2 * PACKAGE_A * unit + TRANSFER_A * last_page + 0.008 * (sizes > 16) + rng.normal(0, 0.002, sizes.size)
    r = fit_steps_to_top(sizes, y, 16, n_package=8)
    assert (r.n_step, r.step_pages) == (4, 4), r.reason
    # Genuine 2-page steps with the same top are read as such.
    finer = CTRL_A + PACKAGE_A * np.minimum(-(-sizes // 2), 8) + rng.normal(0, 0.002, sizes.size)
    r = fit_steps_to_top(sizes, finer, 16, n_package=8)
    assert (r.n_step, r.step_pages) == (8, 2), r.reason


def test_a_top_the_staircase_does_not_end_at_decides_nothing():
    rng = np.random.default_rng(7)
    sizes = np.repeat(np.arange(1, 21), 5)
    y = creeping_peaks(sizes, rng, tread=4, units=3)  # top at 12 pages
    # Durations that jump one unit early (at 8 pages): 2 × 4 fits up to there, but the peak
    # climbs a whole step past it — a further unit, not transfers.
    r = fit_steps_to_top(sizes, y, 8, n_package=8)
    assert r.n_step is None and "climbs" in r.reason, r.reason
    assert fit_steps_to_top(sizes, y, 12, n_package=8).n_step == 3
    # A sweep that stops at the top shows nothing past it.
    assert fit_steps_to_top(sizes[sizes <= 12], y[sizes <= 12], 12, n_package=8).n_step is None


DT, T_FIRST, N = 2e-6, -0.5e-3, 3000
Y_MULT = 0.25e-3
PAGE = 4096


def serial_unit_write(pages, rng, repeat, unit_pages=8, xfer_us=100.0, prog_us=650.0, unit_a=0.12):
    """Units of ``unit_pages`` pages that never overlap (the next waits for the previous to
    finish: 003's 'units stopped overlapping'); sub-unit writes are padded to a whole unit."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, 0.040)
    units = -(-pages // unit_pages)
    end = 20.0 + units * (xfer_us + prog_us)
    amps[(t_us >= 0) & (t_us < end)] += CTRL_A
    for k in range(units):
        p0 = 20.0 + k * (xfer_us + prog_us) + xfer_us
        amps[(t_us >= p0) & (t_us < p0 + prog_us)] += unit_a
    amps += rng.normal(0, 0.004, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def test_the_write_unit_from_the_durations_alone_where_the_peaks_are_flat():
    # Flat peaks on a drive of 16 packages: one-package steps could hide in the noise, so the
    # staircase abstains; the durations jump every 8 pages and the peaks do not rise inside:
    # the unit is 8 pages, one view (medium), and N_step and the dies are left open (no timing).
    rng = np.random.default_rng(8)
    traces = [serial_unit_write(p, rng, r) for r in range(4) for p in range(1, 21)]
    c = characterize(traces, Given(channels=4, packages=16, page_size_bytes=PAGE))
    assert c["n_step"].value is None
    unit = c["write_io_unit_bytes"]
    assert unit.value == 8 * PAGE, unit.evidence
    assert unit.confidence == "medium" and unit.details["decided_by"] == "durations"
    assert "one unit at a time" in unit.evidence
    assert c["dies_per_package"].value is None


def test_a_wide_tread_with_a_step_inside_every_tread_is_not_read():
    # Four 4-page units whose packages differ (steps of 30, 6 and 34 mA) and whose last page is
    # lifted by 12 mA: the only clean staircase to the top at 16 pages is 2 × 8, with a step
    # of 30 mA inside each of its treads — it straddles the units' boundaries: undetermined.
    rng = np.random.default_rng(9)
    sizes = np.repeat(np.arange(1, 21), 5)
    levels = np.array([0.0, 0.030, 0.036, 0.070, 0.073])
    y = (0.08 + levels[np.minimum((sizes - 1) // 4, 4)] + 0.012 * ((sizes % 4 == 0) & (sizes <= 16))
         + rng.normal(0, 0.001, sizes.size))
    r = fit_steps_to_top(sizes, y, 16, n_package=8)
    assert r.n_step is None and "inside each tread" in r.reason, r.reason

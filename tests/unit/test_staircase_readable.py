"""Where the peak staircase is readable although a weak staircase fits it better (issue 22).

Peaks drawn here from stated currents: a controller's current, one unit's packages'
program current per unit programming at once (a package's dies share one charge pump,
so a unit of one package adds one package's ICC2 whatever its dies), and what else a
datasheet drive draws while it writes — channel transfer current once every package of
the top programs, and per-size quirks the repeats do not show.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize, fit_steps
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

CTRL_A = 0.060  # A: controller busy


def test_small_rises_past_the_top_do_not_make_the_count_unsure():
    # 8 packages of 1 die, units of 2 pages on 2 packages (60 mA per unit): 4 steps, then the
    # next units' pages cross the channels while every package programs, lifting the peak by
    # 3 mA and then 7 mA of transfer current.  A 6-level staircase of 2-page treads fits
    # better, its last two steps weak (2–4 σ); they are each under a tenth of a unit's step.
    rng = np.random.default_rng(3)
    sizes = np.repeat(np.arange(1, 21), 3)
    busy = np.minimum(-(-sizes // 2), 4)
    transfers = 0.003 * ((sizes > 8) & (sizes <= 10)) + 0.007 * (sizes > 10)
    y = CTRL_A + 0.060 * busy + transfers + rng.normal(0, 0.0015, sizes.size)
    r = fit_steps(sizes, y, n_package=8, idle_a=0.0)
    assert (r.n_step, r.step_pages) == (4, 2), r.reason
    assert r.count_sure and r.confidence == "medium", r.reason
    assert "transfers" in r.reason


def test_a_ramp_of_one_page_steps_read_where_a_weak_staircase_fits_better():
    # 16 packages, one-page units, 46 mA ± 10 % per package; units stop overlapping after
    # 11 pages (transfers take longer than a program), so the peak is flat from there, with
    # per-size quirks of 6 mA the repeats (σ 6 mA, 3 each) do not show.  The one-page staircase's
    # smallest step is under 4 σ on its own scatter, so "11 × 1 is weak" made the answer
    # undetermined; every per-page rise, even and standing 4 standard errors, is a ramp.
    rng = np.random.default_rng(3)
    sizes = np.repeat(np.arange(1, 41), 3)
    per_page = 0.046 * (1 + 0.1 * rng.uniform(-1, 1, 40))
    per_page[0], per_page[11:] = 0.0, 0.0
    level = np.cumsum(per_page) + 0.006 * rng.normal(0, 1, 40)
    y = CTRL_A + level[sizes - 1] + rng.normal(0, 0.006, sizes.size)
    r = fit_steps(sizes, y, n_package=16, idle_a=0.0)
    assert (r.n_step, r.step_pages) == (11, 1), r.reason
    assert r.confidence == "medium" and "with every page" in r.reason


def eight_page_units(rng, host_a=0.016, sigma=0.0022, per_unit_a=0.040, tread=8, levels=3):
    """Peaks of a drive with units of ``tread`` pages on one package each (its dies share the
    package's pump: one ``per_unit_a`` per unit), ``levels`` units overlapping at most (the
    transfers of a unit take longer than a third of a program), swept to 72 pages with 4
    repeats; the host link's DMA current ``host_a`` lifts the first unit's writes of 5
    pages or more (the request's data still crosses the link while the package programs)."""
    sizes = np.repeat(np.arange(1, 73), 4)
    units = np.minimum(-(-sizes // tread), levels)
    host = host_a * ((sizes >= 5) & (sizes <= 8))
    return sizes, CTRL_A + per_unit_a * units + host + rng.normal(0, sigma, sizes.size)


def test_finer_steps_absent_from_one_tread_are_ruled_out():
    # The pooled test inside the treads sees the host current in the first tread (16 mA) and
    # none in the others: 5 ± 5 mA against the 20 mA of 4-page steps, not ruled out.  The
    # second tread alone rises by nothing where 4-page steps would add 20 mA.
    sizes, y = eight_page_units(np.random.default_rng(5))
    r = fit_steps(sizes, y, n_package=8, idle_a=0.0)
    assert (r.n_step, r.step_pages) == (3, 8), r.reason


def test_true_finer_steps_are_not_ruled_out_by_one_tread():
    # The same drive drawn with 4-page units of 20 mA (6 overlapping): every 8-page tread has
    # its 4-page step inside, so no tread rules them out and the 8-page tread is not read.
    for seed in range(5):
        sizes, y = eight_page_units(np.random.default_rng(seed), per_unit_a=0.020, tread=4, levels=6)
        r = fit_steps(sizes, y, n_package=8, idle_a=0.0)
        assert r.step_pages != 8, r.reason


def test_an_uneven_staircase_does_not_rule_out_finer_steps_by_one_tread():
    # Units of 4 pages on 2 packages (30 mA), 2 overlapping; the host link's 9 mA lifts the
    # last two pages of every unit and every write past the top (slow host: each page waits
    # for its data).  2-page "steps" then alternate 9 and 21 mA: uneven, not units, so the
    # first tread's flat inside may not rule out 1-page steps and crown 4 × 2.
    rng = np.random.default_rng(9)
    sizes = np.repeat(np.arange(1, 13), 3)
    units = np.minimum(-(-sizes // 4), 2)
    host = 0.009 * ((((sizes - 1) % 4) >= 2) | (sizes > 8))
    y = CTRL_A + 0.030 * units + host + rng.normal(0, 0.002, sizes.size)
    r = fit_steps(sizes, y, n_package=4, idle_a=0.0)
    assert r.step_pages != 2, r.reason


# --- the staircase at whole units (read-modify-write) ------------------------------------

DT, T_FIRST, N = 2e-6, -0.5e-3, 3500
Y_MULT, PAGE = 0.25e-3, 4096
IDLE_A, ICC2_A = 0.040, 0.045  # idle; one package programming (its 4 dies share the pump)
UNIT, T_XFER_US, T_PROG_US = 4, 50.0, 700.0  # pages per unit (one package), µs per page, tPROG


def rmw_write(pages, rng, repeat):
    """1 channel × 2 packages of 4 dies, a unit of 4 pages on one package, units in turn on
    packages 0, 1, 0, …  A partial last unit first reads the pages it lacks (60 µs of array
    read at 70 mA + 10 mA per page, then 30 µs per page over the channel): that read, not
    the programs, sets the peak of most partial writes, and it falls as fewer pages lack."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    missing = -pages % UNIT
    t = 20.0
    if missing:
        amps[(t_us >= t) & (t_us < t + 60.0)] += 0.070 + 0.010 * missing
        t += 60.0 + 30.0 * missing
    free = [0.0, 0.0]
    end = t
    for k in range(-(-pages // UNIT)):
        t_in = t + UNIT * T_XFER_US  # the unit's pages over the channel
        start = max(t_in, free[k % 2])
        amps[(t_us >= start) & (t_us < start + T_PROG_US)] += ICC2_A
        free[k % 2] = end = start + T_PROG_US
        t = t_in
    amps[(t_us >= 0) & (t_us < end + 10.0)] += 0.030  # the controller
    amps += rng.normal(0, 0.002, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def test_the_staircase_is_read_at_whole_units_where_partial_units_read_first():
    rng = np.random.default_rng(2)
    traces = [rmw_write(p, rng, r) for r in range(3) for p in range(1, 17)]
    c = characterize(traces, Given(channels=1, packages=2, page_size_bytes=PAGE))
    assert c["write_io_unit_bytes"].value == UNIT * PAGE, c["write_io_unit_bytes"].evidence
    assert c["n_step"].value == 2, c["n_step"].evidence
    assert "whole units" in c["n_step"].evidence
    dies = c["dies_per_package"]
    assert dies.value == 4 and dies.confidence == "medium", dies.evidence


def test_peaks_flat_inside_a_tread_without_its_first_size():
    # The one-page writes were clipped (the read of 31 missing pages peaks highest), so the
    # sizes start at 2; the peak falls inside the 32-page tread (fewer pages to read), which
    # is one unit at a time — while units of 2 pages side by side would still show.
    from charz.analysis._units import peaks_flat_inside

    rng = np.random.default_rng(0)
    sizes = np.repeat(np.arange(2, 65), 3)
    missing = -sizes % 32
    y = np.maximum(0.120 + 0.040 * (sizes > 32), 0.120 + 0.006 * missing) + rng.normal(0, 0.002, sizes.size)
    assert peaks_flat_inside(sizes, y, 32)[0]
    side_by_side = 0.100 + 0.030 * np.minimum(-(-sizes // 2), 8)
    assert not peaks_flat_inside(sizes, side_by_side + rng.normal(0, 0.002, sizes.size), 32)[0]


def striped_write(pages, rng, repeat, host_a=0.015):
    """The same bench, a unit of 4 pages striped over both packages (2 dies each): every
    unit waits for the one before.  The host link (slower than the channel) lifts every
    write of two units or more by ``host_a`` while the first unit programs and the second's
    data still arrives; partial units first read the pages they lack, as in :func:`rmw_write`
    (here at 120 mA + 20 mA per page: the read sets every partial write's peak)."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    t, end = 20.0, 0.0
    missing = -pages % UNIT
    if missing:
        amps[(t_us >= t) & (t_us < t + 60.0)] += 0.120 + 0.020 * missing
        t += 60.0 + 30.0 * missing
    for k in range(-(-pages // UNIT)):
        start = max(t + UNIT * T_XFER_US, end)
        amps[(t_us >= start) & (t_us < start + T_PROG_US)] += 2 * ICC2_A
        t, end = start, start + T_PROG_US
    if pages > UNIT:
        amps[(t_us >= 20.0) & (t_us < 20.0 + 300.0 * (pages / UNIT))] += host_a
    amps[(t_us >= 0) & (t_us < end + 10.0)] += 0.030
    amps += rng.normal(0, 0.002, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def test_a_level_per_package_at_whole_units_needs_the_wait():
    # The per-page staircase is unreadable (the reads of partial units); whole-unit writes
    # read 2 levels on 2 packages — the host current, not a second unit beside the first (it
    # waits for the same packages: every unit adds a whole program).  Without the wait past
    # the top, Eq. 1 would call that every package busy: 4 dies.
    rng = np.random.default_rng(2)
    traces = [striped_write(p, rng, r) for r in range(3) for p in range(1, 17)]
    c = characterize(traces, Given(channels=1, packages=2, page_size_bytes=PAGE))
    assert c["dies_per_package"].value != 4, c["dies_per_package"].evidence

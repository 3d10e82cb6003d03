"""tPROG and the page transfer time measured from waveforms drawn here by hand (003 §4.1–4.2).

A write's current: the controller's busy level from the request, a channel transfer of
each page, then each package's program current for tPROG, with an ISPP sawtooth ripple
and noise.  The stated times are the truth; nothing comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._quantity import HIGH, UNDETERMINED
from charz.analysis._rise import RiseHypothesis, RiseResult, dispatch_fits
from charz.analysis._timing import _held_to_cadence, _refitted, program_time, rise_with_measured_timing

pytestmark = pytest.mark.unit

DT = 2e-6
T = np.arange(-200e-6, 2.6e-3, DT)


def write(first_us, packages, *, xfer_us, prog_us, channels_apart=True, amps=None, busy=0.05, xfer_a=0.012,
          ripple=0.15, noise=0.002, repeats=4, seed=0, prog_jitter=0.03, page_types=(1.0,)):
    """``packages`` packages of one die each: page k crosses the channel from ``first_us``
    (+ k × 25 µs on separate channels, + k × xfer_us on one), then programs ``prog_us`` ×
    its page's type (MLC/TLC: lower pages shorter, upper pages longer, in turn)."""
    rng = np.random.default_rng(seed)
    tu = T * 1e6
    amps = amps or [0.045, 0.052, 0.048, 0.05][:packages]
    rows, ends = [], []
    for _ in range(repeats):
        w = np.zeros_like(tu)
        last = 0.0
        for k, a in zip(range(packages), amps):
            x0 = first_us + k * (25.0 if channels_apart else xfer_us)
            p0 = x0 + xfer_us
            p1 = p0 + prog_us * page_types[k % len(page_types)] * rng.uniform(1 - prog_jitter, 1 + prog_jitter)
            w += xfer_a * ((tu > x0) & (tu < p0))
            w += a * ((tu > p0) & (tu < p1)) * (1 + ripple * (((tu - p0) / 22.0) % 1.0 - 0.5) * 2)
            last = max(last, p1)
        end = last + 15.0
        w += busy * ((tu > 0) & (tu < end))
        rows.append(w + rng.normal(0, noise, tu.size))
        ends.append(end * 1e-6)
    return np.array(rows), T, np.array(ends)


def test_program_time_is_the_program_currents_length():
    w, t, _ = write(60.0, 1, xfer_us=40.0, prog_us=700.0)
    m = program_time(w, t)
    assert m.value_us == pytest.approx(700.0, rel=0.05), m.reason
    # one page is a lower or an upper page: the spread admits at least ±20 %
    assert m.spread_us >= 0.2 * m.value_us
    assert m.pre_program_us == pytest.approx(100.0, abs=15.0)


def test_program_time_abstains_when_the_step_is_lost_in_noise():
    w, t, _ = write(60.0, 1, xfer_us=40.0, prog_us=700.0, amps=[0.002], busy=0.003, xfer_a=0.0, noise=0.02)
    m = program_time(w, t)
    assert m.value_us is None and m.reason


def test_program_time_abstains_when_repeats_disagree():
    a, t, _ = write(60.0, 1, xfer_us=40.0, prog_us=400.0, repeats=2, seed=1)
    b, _, _ = write(60.0, 1, xfer_us=40.0, prog_us=1200.0, repeats=2, seed=2)
    m = program_time(np.vstack([a, b]), t)
    assert m.value_us is None and "spread" in m.reason


def test_rise_runs_on_measured_timing_and_says_at_most_medium():
    # the datasheet is not given: tPROG 900 µs and a 40 µs page transfer are on the waveforms only
    page, _, _ = write(60.0, 1, xfer_us=40.0, prog_us=900.0, seed=3)
    unit, t, ends = write(60.0, 2, xfer_us=40.0, prog_us=900.0, seed=4)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=2,
                                         packages=8)
    assert r.packages_per_unit == 2, r.reason
    assert times["t_prog_us"].origin == "measured"
    assert abs(times["t_prog_us"].value - 900.0) <= times["t_prog_us"].uncertainty
    # the transfer time is one grid step (×1.5) from the stated 40 µs at most
    assert 40.0 / 1.5 <= times["t_xfer_page_us"].value <= 40.0 * 1.5
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert "measured" in r.reason


def test_no_count_when_neither_the_one_page_nor_the_one_unit_write_can_be_measured():
    page, _, _ = write(60.0, 1, xfer_us=40.0, prog_us=900.0, amps=[0.002], busy=0.003, xfer_a=0.0, noise=0.02)
    unit, t, ends = write(60.0, 2, xfer_us=40.0, prog_us=900.0, amps=[0.002, 0.002], busy=0.003, xfer_a=0.0,
                          noise=0.02, seed=4)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=2,
                                         packages=8)
    assert not times
    assert r.packages_per_unit is None and r.confidence == UNDETERMINED
    assert "not measured" in r.reason and "one-unit writes" in r.reason


def rmw_page_write(read_a, read_us):
    """A read-modify-write drive's one-page write: the unit's other page is read out of the
    array first (``read_a`` above the busy level for ``read_us`` from 20 µs, then 100 µs of
    its transfer out at 12 mA), and only then does the whole two-page unit program (tPROG
    900 µs, pages 40 µs over two channels, as :func:`write` draws them)."""
    w, t, ends = write(20.0 + read_us + 100.0, 2, xfer_us=40.0, prog_us=900.0, seed=3)
    tu = t * 1e6
    w = w + read_a * ((tu > 20.0) & (tu < 20.0 + read_us)) + 0.012 * ((tu > 20.0 + read_us) & (tu < 120.0 + read_us))
    return w, t, ends


def test_a_read_burst_is_not_measured_as_the_program():
    # The read (300 mA for 30 µs: many pages sensed at once) peaks far above the programs
    # (~100 mA): the top step is the read's, about 12 µs wide through the 22 µs average —
    # shorter than any NAND page program.  Before, that was tPROG "12 ± 2 µs measured" (dev
    # seed 463: "44 ± 9 µs", its tPROG 665 µs).
    page, t, _ = rmw_page_write(0.300, 30.0)
    m = program_time(page, t)
    assert m.value_us is None and "less than any page program" in m.reason


def test_a_read_as_high_as_the_programs_is_no_base():
    # The read (100 mA for 60 µs) stands as high as the two packages' programs: the level
    # after the onset is the read's, and the current falls below it before the programs
    # start.  Before, that level was taken for the base and tPROG "626 ± 125 µs measured"
    # (900 µs drawn): a wrong time inside a spread that did not cover the truth.
    page, t, _ = rmw_page_write(0.100, 60.0)
    m = program_time(page, t)
    assert m.value_us is None and "in front of the programs" in m.reason


@pytest.mark.parametrize("read_a, read_us", [(0.100, 60.0), (0.300, 30.0)])
def test_a_read_modify_write_drive_is_measured_on_its_one_unit_writes(read_a, read_us):
    # The one-unit write programs the same unit with no read in front, and its program
    # current measures tPROG, with the wider spread of a unit's programs (±50 %).  Before,
    # the rise abstained or ran on the read's time (dev seeds 257, 464, 517, 539: "no timing
    # given, and not measured").
    page, _, _ = rmw_page_write(read_a, read_us)
    unit, t, ends = write(60.0, 2, xfer_us=40.0, prog_us=900.0, seed=4)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=2,
                                         packages=8)
    prog = times["t_prog_us"]
    assert abs(prog.value - 900.0) <= prog.uncertainty and "one-unit writes" in prog.evidence
    assert prog.uncertainty >= 0.5 * prog.value
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED


def test_a_timing_the_write_rules_out_does_not_unsettle_the_count():
    # MLC: a lower page programs in 0.7 × the typical 900 µs.  The one-page write programs a
    # lower page, so tPROG measures ~600 ± 120 µs; the unit's second page is a typical one and
    # the write ends ~900 µs after it starts.  At tPROG − its spread (~480 µs) no hypothesis'
    # last program comes near that end (none is plausible): that timing is ruled out by the
    # waveform itself, and the count read at every timing the data allow (2) stands — before,
    # that bound counted as a disagreeing reading and the rise abstained (dev seeds 306, 316, 384).
    page, _, _ = write(60.0, 1, xfer_us=40.0, prog_us=900.0, page_types=(0.7,), seed=3)
    unit, t, ends = write(60.0, 2, xfer_us=40.0, prog_us=900.0, page_types=(0.7, 1.0), seed=4)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=2,
                                         packages=8)
    assert times["t_prog_us"].value < 700.0  # the lower page's, as drawn
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH
    assert "ruled out" in r.reason


def test_a_bound_that_fits_the_same_count_less_surely_does_not_unsettle_it():
    # Two packages on their own channels, 40 µs page transfers, 900 µs programs, σ 25 mA per
    # sample.  The count is 2 at every transfer time the grid tries; at tPROG − its spread the
    # same 2 packages still fit best, only by less than a decisive margin.  The count has not
    # changed there, the data are only less sure: 2 stands (medium).  Before, that bound
    # counted as a disagreeing reading and the rise abstained (dev seeds 480, 483, 316).
    page, _, _ = write(60.0, 1, xfer_us=40.0, prog_us=900.0, seed=63, noise=0.025)
    unit, t, ends = write(60.0, 2, xfer_us=40.0, prog_us=900.0, seed=64, noise=0.025)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=4,
                                         packages=8)
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert "not decisively" in r.reason
    assert "t_xfer_page_us" in times


def test_a_transfer_time_at_the_spans_bound_is_measured_from_below():
    # Pages take 110 µs to cross their channels, and the one-page write's program starts
    # ~130 µs after its current leaves idle: no transfer can take longer than that span, so
    # the grid stops at 114 µs, and the fit is best there.  Bounded by the span above and the
    # fit below, the time is measured and the count (2) must hold at the lower neighbour and
    # tPROG ± its spread.  Before, a best fit at either end of the grid abstained (dev seed 378).
    page, _, _ = write(20.0, 1, xfer_us=110.0, prog_us=900.0, seed=3)
    unit, t, ends = write(20.0, 2, xfer_us=110.0, prog_us=900.0, seed=4)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=2, page_size_bytes=16384, channels=4,
                                         packages=8)
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert 110.0 / 1.5 <= times["t_xfer_page_us"].value <= 110.0 * 1.5
    assert "span before its program bounds it" in r.reason


def test_a_one_unit_tprog_bound_refits_the_transfer_time():
    # At a one-unit write's tPROG bound (±50 %) the transfer time fitted at the measured tPROG
    # need not hold: the bound's reading is the best plausible fit over the whole grid, and a
    # bound under which nothing fits anywhere shows that (dev seed 463: at tPROG − spread,
    # the truth, no count fitted at the 114 µs transfer fitted at tPROG, 8 packages at 51 µs).
    def rise(x, p):
        # at tPROG 660 µs only a 51 µs transfer fits (8 packages); at 1980 µs nothing does
        plausible = p < 1000 and x == 51.0
        h = RiseHypothesis(8, 4, (0,) * 8, (), 0.0, 0.0, 0.0, (), (), -100.0 if plausible else 0.0, plausible)
        return RiseResult(8 if plausible else None, None, "medium", "undetermined", f"{x}", "", hypotheses=(h,))

    grid = np.array([22.5, 33.75, 51.0, 114.0])
    assert _refitted(rise, grid, 660.0).packages_per_unit == 8
    assert not any(h.plausible for h in _refitted(rise, grid, 1980.0).hypotheses)


def die_major_write(first_us, packages, dies, *, xfer_us, prog_us, select_us=5.0, amps=(0.045, 0.052), busy=0.05,
                    xfer_a=0.012, ripple=0.15, noise=0.002, repeats=4, seed=0, prog_jitter=0.03, page_types=(1.0,)):
    """``packages`` packages of ``dies`` dies on one channel, dealt die by die: page q crosses
    the channel from ``first_us`` + q × (``xfer_us`` + ``select_us``) to package q mod P, then
    its die programs ``prog_us`` × its page's type (lower/upper pages in turn).  A package
    draws one program current while any of its dies programs (datasheet ICC2: the current is
    the package's pump, not additive over dies)."""
    rng = np.random.default_rng(seed)
    tu = T * 1e6
    rows, ends = [], []
    for _ in range(repeats):
        on = np.zeros((packages, tu.size), dtype=bool)
        w = np.zeros_like(tu)
        last = 0.0
        for q in range(packages * dies):
            x0 = first_us + q * (xfer_us + select_us)
            p0 = x0 + xfer_us
            p1 = p0 + prog_us * page_types[q % len(page_types)] * rng.uniform(1 - prog_jitter, 1 + prog_jitter)
            w += xfer_a * ((tu > x0) & (tu < p0))
            on[q % packages] |= (tu > p0) & (tu < p1)
            last = max(last, p1)
        for k in range(packages):
            w += amps[k % len(amps)] * on[k] * (1 + ripple * ((tu / 22.0) % 1.0 - 0.5) * 2)
        end = last + 15.0
        w += busy * ((tu > 0) & (tu < end))
        rows.append(w + rng.normal(0, noise, tu.size))
        ends.append(end * 1e-6)
    return np.array(rows), T, np.array(ends)


@pytest.mark.parametrize("noise", [0.004, 0.008])
def test_a_transfer_time_the_fit_rules_out_does_not_unsettle_the_count(noise):
    # Two packages of two dies share one channel, dealt die by die: 100 µs page transfers
    # 5 µs apart, 700 µs programs.  The grid's step (×1.5) is the transfer time's spread only
    # where the fit is as good a step away; here every count fits the rise decisively worse at
    # the grid's neighbours of the fitted time than 2 packages do at it, so the data put the
    # transfer time nearer than a step, and a count read at a neighbour (where 2 packages'
    # starts, one transfer apart, cannot be placed) is no reading of this drive.  Before, that
    # neighbour's other count unsettled the rise (datasheet dev seeds 589, 591, 598: 2
    # packages, the rise's best by 45-181, a neighbour's count 4 at 68-180 worse).
    page, _, _ = die_major_write(75.0, 1, 1, xfer_us=100.0, prog_us=700.0, seed=1, noise=noise)
    unit, t, ends = die_major_write(75.0, 2, 2, xfer_us=100.0, prog_us=700.0, seed=11, noise=noise)
    r, times = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=4, page_size_bytes=8192, channels=4,
                                         packages=16)
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert "ruled out by the fit" in r.reason
    assert 100.0 / 1.5 <= times["t_xfer_page_us"].value <= 100.0 * 1.5


def test_a_count_where_the_neighbours_fit_as_well_still_abstains():
    # The same drive with tPROG 450 µs: a die's program ends about as its package's next die
    # starts, so at the fitted transfer time 4 packages fit nearly as well as 2 (by less than
    # the rise's margin).  Neighbours the fit rules out cannot make that count sure: the rise
    # still abstains.
    page, _, _ = die_major_write(75.0, 1, 1, xfer_us=100.0, prog_us=450.0, seed=1, noise=0.008)
    unit, t, ends = die_major_write(75.0, 2, 2, xfer_us=100.0, prog_us=450.0, seed=11, noise=0.008)
    r, _ = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=4, page_size_bytes=8192, channels=4,
                                     packages=16)
    assert r.packages_per_unit is None and r.confidence == UNDETERMINED


def test_a_program_time_the_fit_rules_out_does_not_unsettle_the_count():
    # Eight packages of two dies, dealt die by die, pages 40 µs over the channel 15 µs apart;
    # MLC pages program 600 and 1400 µs in turn (typical 1000 µs, as a one-page write shows).
    # At tPROG − its spread (~730 µs) the fits fall apart (no count ahead of every other, none
    # leaned to), so that bound unsettled the count.  Scored on the stretch the fits at the
    # measured tPROG compare, every count fits there decisively worse than 8 packages at the
    # measured tPROG: the unit's programs are not that short, and the count stands (medium).
    page, _, _ = die_major_write(30.0, 1, 1, xfer_us=40.0, prog_us=1000.0, select_us=15.0,
                                 amps=(0.045, 0.052, 0.048, 0.05), seed=1, noise=0.004)
    unit, t, ends = die_major_write(30.0, 8, 2, xfer_us=40.0, prog_us=1000.0, select_us=15.0,
                                    amps=(0.045, 0.052, 0.048, 0.05), page_types=(0.6, 1.4), seed=11, noise=0.004)
    r, _ = rise_with_measured_timing(unit, t, ends, page, t, unit_pages=16, page_size_bytes=8192, channels=4,
                                     packages=16)
    assert r.packages_per_unit == 8, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert "ruled out by the fit" in r.reason


def package_major_write(packages, dies, *, xfer_us, prog_us, select_us, page_types, noise, seed, first_us=20.0,
                        amps=(0.045, 0.052), busy=0.05, xfer_a=0.012, ripple=0.15, repeats=4, prog_jitter=0.03):
    """``packages`` packages of ``dies`` dies on one channel, each package's pages in a row:
    page q (package q div dies) crosses the channel from ``first_us`` + q × ``xfer_us`` +
    its package's ``select_us`` switches, then its die programs ``prog_us`` × its page's type.
    A package draws one program current while any of its dies programs."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 3.6e-3, DT)
    tu = t * 1e6
    rows, ends = [], []
    for _ in range(repeats):
        on = np.zeros((packages, tu.size), dtype=bool)
        w = np.zeros_like(tu)
        last = 0.0
        for q in range(packages * dies):
            x0 = first_us + q * xfer_us + (q // dies) * select_us
            p0 = x0 + xfer_us
            p1 = p0 + prog_us * page_types[q % len(page_types)] * rng.uniform(1 - prog_jitter, 1 + prog_jitter)
            w += xfer_a * ((tu > x0) & (tu < p0))
            on[q // dies] |= (tu > p0) & (tu < p1)
            last = max(last, p1)
        for k in range(packages):
            w += amps[k % len(amps)] * on[k] * (1 + ripple * ((tu / 22.0) % 1.0 - 0.5) * 2)
        end = last + 15.0
        w += busy * ((tu > 0) & (tu < end))
        rows.append(w + rng.normal(0, noise, tu.size))
        ends.append(end * 1e-6)
    return np.array(rows), t, np.array(ends)


@pytest.fixture(scope="module")
def one_channel_unit():
    """Two packages of eight dies on one channel, 120 µs page transfers, 30 µs package switch,
    MLC programs (0.83 / 1.17 × 950 µs), σ 8 mA: a unit's 16 pages take 16 × 120 + 2 × 30 =
    1980 µs to dispatch, and with no wait for a busy package each unit adds that to a write."""
    page, _, _ = write(20.0, 1, xfer_us=120.0, prog_us=950.0 * 1.17, seed=105, noise=0.008)
    unit, t, ends = package_major_write(2, 8, xfer_us=120.0, prog_us=950.0, select_us=30.0, page_types=(0.83, 1.17),
                                        noise=0.008, seed=5)
    return unit, t, ends, page


def test_the_durations_cadence_narrows_the_transfer_times_spread(one_channel_unit):
    # The rise fits best at 114 µs (the grid's top); at its neighbour 76 µs a unit's 16 pages
    # would be out in ~1300 µs, far from the 1980 µs each unit added: the cadence rules that
    # neighbour out, so the spread checked narrows to half a grid step, where 2 packages hold.
    # Before, the count at 76 µs unsettled it and the rise abstained (datasheet dev 489).
    unit, t, ends, page = one_channel_unit
    r, _ = rise_with_measured_timing(unit, t, ends, page, T, unit_pages=16, page_size_bytes=4096, channels=1,
                                     packages=4, cadence_us=16 * 120.0 + 2 * 30.0)
    assert r.packages_per_unit == 2, r.reason
    assert r.confidence != HIGH and r.confidence != UNDETERMINED
    assert "narrowed" in r.reason


@pytest.mark.parametrize("cadence_us", [600.0, 3000.0])
def test_a_cadence_the_fitted_count_cannot_dispatch_in_abstains(one_channel_unit, cadence_us):
    # Writes whose units each add 600 µs (or 3000 µs) cannot be this unit's 16 pages over one
    # channel at the fitted ~114 µs a page: the timing is not the drive's, no count is given.
    unit, t, ends, page = one_channel_unit
    r, _ = rise_with_measured_timing(unit, t, ends, page, T, unit_pages=16, page_size_bytes=4096, channels=1,
                                     packages=4, cadence_us=cadence_us)
    assert r.packages_per_unit is None and r.confidence == UNDETERMINED
    assert f"{cadence_us:.0f} µs each unit added" in r.reason


def test_dispatch_fits_the_next_unit_after_the_last_package_is_selected():
    # Pages at 0, 50, 100, 150 µs (50 µs each).  Dealt package by package (2 dies), the last
    # package is selected at 100 µs; dealt die by die, every page selects one, the last at 150.
    xs = np.array([[[0.0, 50.0], [100.0, 150.0]]])
    t_first = np.array([-10.0])
    assert dispatch_fits(xs, 50.0, t_first, 0.0, 115.0, 2)[0]
    assert not dispatch_fits(xs, 50.0, t_first, 0.0, 115.0, 1)[0]     # 150 > 115 × 1.1
    # ... and no later than the pages are over their channels (200 µs), a switch and command cycles
    assert not dispatch_fits(xs, 50.0, t_first, 0.0, 400.0, 2)[0]
    # a slow host link spaces the units: 4 pages at 100 µs each from the host
    assert dispatch_fits(xs, 50.0, t_first, 100.0, 400.0, 2)[0]


def test_a_timing_whose_dispatch_misses_the_cadence_is_ruled_out():
    # Two packages of eight dies on one channel, fitted at a 76 µs page transfer with a 30 µs
    # switch: the unit's 16 pages are out by ~1250 µs, while each unit added 1980 µs (120 µs
    # pages): every hypothesis there is made implausible and the reading gives no count.
    h = RiseHypothesis(2, 8, (0, 0), (), 30.0, 0.0, 0.0, (76.0, 714.0), (), -100.0, True, "", 8)
    r = RiseResult(2, None, "medium", "undetermined", "2 packages", "", hypotheses=(h,))
    held = _held_to_cadence(r, 76.0, 0.0, 1980.0)
    assert held.packages_per_unit is None and not any(x.plausible for x in held.hypotheses)
    # at 120 µs a page the same hypothesis dispatches in the cadence and stands
    assert _held_to_cadence(r, 120.0, 0.0, 1980.0).packages_per_unit == 2

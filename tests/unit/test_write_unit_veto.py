"""The write-unit veto, on sweeps drawn here from stated currents and times (no simulator).

A write I/O unit raises the peak once per unit (one more unit's packages programming,
003 §4.1) and, once units no longer overlap, lengthens the request once per unit.  So the
peak staircase's tread and the duration staircase's tread are two views of one number:

* durations may pair units (two units on parallel channels finish together), so a duration
  tread that is a whole multiple of the peak tread confirms it;
* durations never split a unit, so a duration tread that is *not* a multiple of the peak
  tread means one of the views is fooled: nothing about the unit is decided, and the answer
  names both views.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

DT = 2e-6
T_FIRST = -0.5e-3
N = 4000  # 8 ms
Y_MULT = 0.25e-3  # 12-bit codes, 0.25 mA each
PAGE = 4096
IDLE_A, CTRL_A, PKG_A = 0.040, 0.050, 0.045
START_US, SWITCH_US, PROG_US = 60.0, 25.0, 700.0


def write_trace(pages: int, busy: int, rounds: int, rng, repeat: int, pkg_a=(PKG_A,) * 8) -> Trace:
    """Idle; ``rounds`` program rounds one after another, in each ``busy`` packages programming
    for PROG_US, starting a switch delay apart; the controller busy throughout; 3 mA of white
    noise; 12-bit codes."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    round_us = 20.0 + (busy - 1) * SWITCH_US + PROG_US
    amps[(t_us >= START_US) & (t_us < START_US + rounds * round_us)] += CTRL_A
    for r in range(rounds):
        for i in range(busy):
            p0 = START_US + r * round_us + 20.0 + i * SWITCH_US
            amps[(t_us >= p0) & (t_us < p0 + PROG_US)] += pkg_a[i]
    amps += rng.normal(0.0, 0.003, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def sweep(peak_tread: int, packages: int, duration_tread: int, largest: int = 12, repeats: int = 3,
          seed: int = 0, pkg_a=(PKG_A,) * 8) -> list[Trace]:
    """Writes of 1..``largest`` pages: one more package busy every ``peak_tread`` pages (up to
    ``packages``), and one more program round (a program time longer) every ``duration_tread``
    pages."""
    rng = np.random.default_rng(seed)
    out = []
    for repeat in range(repeats):
        for pages in range(1, largest + 1):
            busy = min(-(-pages // peak_tread), packages)
            out.append(write_trace(pages, busy, -(-pages // duration_tread), rng, repeat, pkg_a))
    return out


GIVEN = Given(channels=4, packages=4, page_size_bytes=PAGE)  # no timing given: the rise stays out of it


def test_durations_that_split_the_peak_tread_veto_the_unit():
    # Peaks rise every 2 pages (4 steps, one per package); the request grows by 800 µs every
    # 3 pages.  A 2-page unit cannot make the durations jump at 3, 6, 9 pages: one view is
    # fooled, and without the veto Eq. 1 would answer 2 dies, a 2-page unit, from the peaks alone.
    c = characterize(sweep(peak_tread=2, packages=4, duration_tread=3), GIVEN)
    for key in ("n_step", "step_pages", "dies_per_package", "write_io_unit_bytes", "allocation_scheme"):
        q = c[key]
        assert not q.known and q.confidence == "undetermined", (key, q)
        assert q.details.get("decided_by") == "neither", (key, q.details)
    why = c["write_io_unit_bytes"].evidence
    assert "2 pages" in why and "3 pages" in why, why  # both views named, with what each says
    assert any("disagree" in w for w in c.warnings)


def test_durations_that_pair_peak_treads_confirm_the_unit():
    # Two 2-page units finish together (parallel channels): the durations jump every 4 pages.
    # That is a whole number of peak treads, so it is no veto: the unit stands.
    c = characterize(sweep(peak_tread=2, packages=4, duration_tread=4), GIVEN)
    assert c["write_io_unit_bytes"].value == 2 * PAGE, c["write_io_unit_bytes"].evidence
    # The count is another matter: the third unit's request takes a whole program time longer,
    # a wait for a busy package, which no unit does before every package is taken — while the
    # peaks show a step per package.  Cache program's transfer current draws such steps past
    # the top, so the two views disagree on N_step and the dies are not decided (they were 2
    # here, from the peaks alone; on a datasheet drive of this shape the truth was 1).
    dies = c["dies_per_package"]
    assert dies.value is None and "disagree" in dies.evidence, dies.evidence


def test_durations_that_wait_a_whole_write_each_tread_dispute_the_peak_staircase():
    # Each 2-page tread adds a whole program round (700 µs of a one-unit write's ~800 µs):
    # units that do not overlap in time — so they cannot draw a second, third and fourth
    # level of packages programming at once, as these peaks show.  The common tread is a
    # wait for a busy package (every package busy), not the unit: on datasheet drive 542
    # both views read such a tread as the unit at "high", and it was twice the unit.  The
    # two views disagree, both named, nothing decided.
    c = characterize(sweep(peak_tread=2, packages=4, duration_tread=2), GIVEN)
    for key in ("step_pages", "write_io_unit_bytes", "dies_per_package"):
        assert c[key].value is None and c[key].confidence == "undetermined", (key, c[key])
    why = c["write_io_unit_bytes"].evidence
    assert "disagree" in why and "do not overlap" in why, why


# A third package whose program draws a quarter of the others' current: the staircase's
# third step is far smaller than the rest (uneven), so the top says nothing about the
# packages, and the tread stands only where the durations show the same one.
UNEVEN = (PKG_A, PKG_A, PKG_A / 4, PKG_A, PKG_A, PKG_A, PKG_A, PKG_A)
EIGHT = Given(channels=4, packages=8, page_size_bytes=PAGE)


def test_uneven_steps_and_durations_with_another_tread_decide_nothing():
    c = characterize(sweep(peak_tread=2, packages=4, duration_tread=3, pkg_a=UNEVEN), EIGHT)
    for key in ("n_step", "step_pages", "dies_per_package", "write_io_unit_bytes"):
        assert not c[key].known and c[key].confidence == "undetermined", (key, c[key])
    why = c["write_io_unit_bytes"].evidence
    assert "uneven" in why and "every 3 pages" in why, why  # the staircase and the durations named


def test_uneven_steps_on_treads_that_each_wait_a_whole_write_decide_nothing():
    # The same tread in both views, but each tread adds a whole program round: units that do
    # not overlap, which draw no second level however uneven — the check holds on the uneven
    # path as on the even one (the tread is where every package is busy, not the unit).
    c = characterize(sweep(peak_tread=2, packages=4, duration_tread=2, pkg_a=UNEVEN), EIGHT)
    for key in ("n_step", "step_pages", "write_io_unit_bytes", "dies_per_package"):
        assert not c[key].known and c[key].confidence == "undetermined", (key, c[key])
    assert "do not overlap" in c["write_io_unit_bytes"].evidence, c["write_io_unit_bytes"].evidence


def _write_trace(amps: np.ndarray, t_us: np.ndarray, end: float, pages: int, rng, repeat: int) -> Trace:
    """The controller busy from the command to the last program's ``end``, 3 mA of noise, on
    the 12-bit scale."""
    amps = amps.copy()
    amps[(t_us >= START_US) & (t_us < end)] += CTRL_A
    amps += rng.normal(0.0, 0.003, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def overlapping_trace(pages: int, tread: int, packages: int, rng, repeat: int, gap_us: float = 40.0,
                      pkg_a: float = 0.025, prog_us: float = 3000.0) -> Trace:
    """Units that overlap: unit k (one package, ``tread`` pages) starts programming ``gap_us``
    after unit k − 1 (its transfers), on its own package, until every package is busy; the
    next unit waits a whole program time for the first package.  A unit the write fills only
    in part is read first (read-modify-write: 150 µs), so the request ends that much later."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    units = -(-pages // tread)
    end = 0.0
    for k in range(units):
        p0 = START_US + 20.0 + (k % packages) * gap_us + (k // packages) * prog_us
        p0 += 150.0 if k == units - 1 and pages % tread else 0.0
        p1 = p0 + prog_us
        amps[(t_us >= p0) & (t_us < p1)] += pkg_a  # 12 of them stay on the 12-bit scale
        end = max(end, p1)
    return _write_trace(amps, t_us, end, pages, rng, repeat)


def test_durations_that_follow_no_tread_veto_nothing():
    # 13 packages, 2-page units that overlap: each unit adds 40 µs until all 13 program, then
    # the 14th waits a program time (3 ms); half-filled units end 150 µs late.  No single
    # duration tread fits both the 40 µs per unit and the 3 ms wait: the best ("13 pages")
    # leaves the durations straying by a good part of its own jump, so it is no view of the
    # unit and does not veto the clear peak staircase (a 2-page tread).
    rng = np.random.default_rng(3)
    traces = [overlapping_trace(p, 2, 13, rng, r) for r in range(3) for p in range(1, 29)]
    c = characterize(traces, Given(channels=13, packages=13, page_size_bytes=PAGE))
    assert c["step_pages"].value == 2, c["step_pages"].evidence
    assert c["write_io_unit_bytes"].value == 2 * PAGE, c["write_io_unit_bytes"].evidence


def walk_trace(pages: int, rng, repeat: int, pkg_a=(0.045, 0.045, 0.045 / 4, 0.045), tread: int = 2,
               xfer_us: float = 50.0, prog_us: float = 450.0) -> Trace:
    """Units of ``tread`` pages, one package each, walked over ``len(pkg_a)`` packages: a unit
    programs once its pages have crossed the channel (``xfer_us`` a page, one unit after
    another) and its package is free; a unit the write fills only in part is padded.  The
    controller is busy until the last program ends."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    units, free, end = -(-pages // tread), [0.0] * len(pkg_a), 0.0
    for k in range(units):
        pkg = k % len(pkg_a)
        p0 = max(START_US + 20.0 + (k + 1) * tread * xfer_us, free[pkg])
        free[pkg] = end = p0 + prog_us
        amps[(t_us >= p0) & (t_us < free[pkg])] += pkg_a[pkg]
    return _write_trace(amps, t_us, end, pages, rng, repeat)


def test_uneven_steps_of_overlapping_units_that_durations_confirm_decide_the_unit():
    # Four packages, 2-page units 100 µs apart (two 50 µs page transfers), tPROG 450 µs: all
    # four units program at once (units that overlap), the third package draws a quarter of
    # the others' 45 mA (a weak package: uneven steps of 45, 11 and 45 mA), and the sweep runs
    # two units past the top (the fifth unit waits 50 µs for its package, which frees as the
    # fourth still programs, so the peak stays at the top).  Every unit adds its 100 µs of
    # transfers: the durations' tread is 2 pages too, and no tread is a wait of a whole write.  The uneven path must decide the unit
    # from the two views here — the no-overlap check (tread_is_a_wait) is no veto.
    rng = np.random.default_rng(5)
    traces = [walk_trace(p, rng, r) for r in range(3) for p in range(1, 13)]
    c = characterize(traces, Given(channels=4, packages=4, page_size_bytes=PAGE))
    step = c["step_pages"]
    assert step.value == 2 and step.details.get("decided_by") == "both", step.evidence
    assert "uneven, and duration treads agree" in step.evidence, step.evidence
    assert c["write_io_unit_bytes"].value == 2 * PAGE, c["write_io_unit_bytes"].evidence

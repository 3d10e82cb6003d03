"""Views that said "medium" and were wrong on fresh datasheet drives: where each must abstain.

Peaks, durations and read views are drawn here from stated currents and timings, not from
charz's output:

* A staircase's tread holds two units where a step shows inside every tread above the first.
  8 packages, units of 2 packages × 2 dies (4 pages), 36 mA a unit programming over a 60 mA
  controller; a write below one unit first reads the pages it lacks at 30 mA a page, so
  the first 4-page tread is no level.  Up to the durations' top (16 pages) a 2 × 8 staircase
  absorbed it, with a 36 mA step between 12 and 13 pages inside its top tread.
* Durations that fit their tread as well as their repeats scatter veto a staircase of
  another tread even where the scatter is large beside the tread's jump: 32 one-package
  units of 2 pages add 90 µs each, with 30 µs of jitter per request.
* The ripple of the largest read does not decide alone against a busy time that names
  another unit clearly but cannot decide (its time per page the host link's).
* Durations alone do not make their tread one unit where they rise inside it past a divisor
  beyond the host link's time: one channel, 2 packages, 2-page units (one package's 2 dies)
  paired every 4 pages, the second adding its 2 page transfers (48 µs each) and the host
  link 15 µs a page.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from charz.analysis import _characterize as C
from charz.analysis._reads import fit_read_unit
from charz.analysis._ripple import Ripple, ripple_unit
from charz.analysis._steps import fit_steps_to_top
from charz.analysis._units import durations_flat_inside, unit_from_durations

pytestmark = pytest.mark.unit

CTRL_A, UNIT_A, READ_PAGE_A = 0.060, 0.036, 0.030  # controller, one 4-page unit programming, one page read
SIZES = np.repeat(np.arange(1, 21), 3)


def _peaks(rng: np.random.Generator, unit_pages: int, read_page_a: float = READ_PAGE_A) -> np.ndarray:
    """Peaks above idle: k units programming after padding or reading a partial one (k = size
    / unit, rounded up, at most every package: 16 pages); writes below one unit peak at the
    array reads of the pages they lack; past the top, transfers creep by 4 mA a unit."""
    k = np.minimum(np.ceil(SIZES / unit_pages), 16 // unit_pages)
    y = CTRL_A + UNIT_A * k * unit_pages / 4
    below = SIZES < unit_pages
    y = np.where(below, CTRL_A + np.maximum(UNIT_A * unit_pages / 4, read_page_a * (unit_pages - SIZES)), y)
    y = y + 0.004 * np.clip(SIZES - 16, 0, None) / 4
    return y + rng.normal(0.0, 0.001, SIZES.size)


def test_a_step_inside_every_tread_above_the_first_splits_the_tread():
    r = fit_steps_to_top(SIZES, _peaks(np.random.default_rng(1), 4), 16, n_package=8)
    assert r.n_step is None, r.reason
    assert "every tread above the first rises inside" in r.reason


def test_treads_flat_above_the_first_still_stand():
    # 8-page units of 4 packages × 2 dies, a partial unit padded (no reads): flat treads.
    r = fit_steps_to_top(SIZES, _peaks(np.random.default_rng(2), 8, read_page_a=0.0), 16, n_package=8)
    assert (r.n_step, r.step_pages) == (2, 8), r.reason


def _one_package_durations(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """2-page units, each adding 90 µs (its transfers) to 2.4 ms; 60 µs of jitter, 5 repeats."""
    u = np.repeat(np.arange(1, 37), 5)
    d = 2400.0 + 90.0 * np.ceil(u / 2) + rng.normal(0.0, 60.0, u.size)
    return u, d * 1e-6


def test_durations_that_fit_as_their_repeats_scatter_veto_a_staircase_of_another_tread():
    u, d = _one_package_durations(np.random.default_rng(3))
    by_time = unit_from_durations(u, d)
    assert by_time.unit_pages == 2 and by_time.confidence == "high", by_time.reason
    assert by_time.scatter_us > C.VETO_SCATTER * by_time.per_unit_us  # the jitter is large beside the jump
    # The peaks read 3-page treads (two one-package steps merged and split anew): the views
    # cannot both be, so every write answer is undetermined.
    w = C._Writes(None, C.Given(), {}, [], steps=SimpleNamespace(reason="18 levels, boundaries every 3 pages"))
    sweep = C._Sweep(u, np.zeros(u.size), d, 0.0)
    assert C._durations_confirm_tread(w, sweep, C._Tread(18, 3, "medium", "peak staircase")) is None
    assert not w.q["step_pages"].known and "the views disagree" in w.q["step_pages"].evidence
    assert by_time.reduced_chi2 <= C.FITS_AS_NOISE


def test_durations_that_miss_their_tread_by_more_than_their_repeats_are_no_tread():
    # Overlapping units add 40 µs each, then the first wait a whole program time (1.6 ms):
    # no single tread fits both, whatever the repeats' scatter.
    u = np.repeat(np.arange(1, 37), 5)
    d = (2400.0 + 40.0 * np.ceil(u / 2) + 1600.0 * (u > 24) + np.random.default_rng(4).normal(0.0, 3.0, u.size)) * 1e-6
    assert not C._tread_fits_as_noise(unit_from_durations(u, d))


PAGE, HOST = 8192, 150e6  # 55 µs a page over the host link


def test_a_ripple_does_not_decide_alone_against_a_busy_time_at_the_host_links_pace():
    # Host-bound reads of 1-page units: the durations at the host's rate, the array busy 55 µs
    # a page (as long as the host link's page: maybe its DMA, so no view).  The largest read
    # (64 pages) repeats a 55 µs pattern, its envelope held over half the read: 32 "cycles",
    # which names 2-page units.
    rng = np.random.default_rng(5)
    sizes = np.repeat(np.r_[np.arange(1, 21), 64] * PAGE, 4)
    pages = sizes / PAGE
    d = (60.0 + pages * PAGE / HOST * 1e6 + rng.normal(0, 2.0, sizes.size)) * 1e-6
    busy = 10.0 + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, sizes.size)
    cycles = [Ripple(55e-6, 0.5, c) for c in (31.0, 32.5, 31.8, 32.2)]
    view = ripple_unit(cycles, 64 * PAGE, PAGE)
    assert view.unit_bytes == 2 * PAGE
    r = fit_read_unit(sizes, d, np.ones(sizes.size), PAGE, HOST, burst_width=busy, busy_us=busy, ripple=lambda: view)
    assert r.unit_bytes is None and r.at_least_bytes is None, r.reason
    assert "busy time names 8192 B" in r.reason
    # Without a busy time that names another unit, the ripple still decides alone.
    alone = fit_read_unit(sizes, d, np.ones(sizes.size), PAGE, HOST, burst_width=busy, busy_us=None,
                          ripple=lambda: view)
    assert (alone.unit_bytes, alone.confidence) == (2 * PAGE, "medium"), alone.reason


T_XFER_US, HOST_PAGE_US = 48.0, 14.9


def _paired_units(rng: np.random.Generator, second_unit_us: float) -> tuple[np.ndarray, np.ndarray]:
    """Durations of writes of 1–20 pages, 5 repeats: 400 µs of command, host data and status,
    the host link's 14.9 µs a page, a pair of units (tPROG 340 µs) every 4 pages, and
    ``second_unit_us`` more once the pair's second unit is written; 5 µs of jitter."""
    u = np.repeat(np.arange(1, 21), 5)
    d = 400.0 + HOST_PAGE_US * u + 340.0 * np.ceil(u / 4) + second_unit_us * ((u - 1) % 4 >= 2)
    return u, (d + rng.normal(0.0, 5.0, u.size)) * 1e-6


def test_durations_that_rise_inside_their_tread_pair_units_and_do_not_decide_alone():
    u, d = _paired_units(np.random.default_rng(6), 2 * T_XFER_US)
    by_time = unit_from_durations(u, d)
    assert by_time.unit_pages == 4, by_time.reason
    assert not durations_flat_inside(u, d, 4, by_time.per_unit_us, HOST_PAGE_US)[0]
    # The peaks are flat (the controller's current hides one package's program): only the
    # durations speak, and they do not make the 4-page tread one unit.
    w = C._Writes(None, C.Given(channels=1, packages=2, page_size_bytes=8192, host_rate_bytes_per_s=550e6), {}, [],
                  steps=SimpleNamespace(reason="the peaks look flat"))
    sweep = C._Sweep(u, np.full(u.size, 0.100) + np.tile([0.001, 0.0, -0.001, 0.0, 0.0], 20), d, 0.0)
    assert C._unit_from_durations_alone(w, sweep) is None
    assert "2-page units the durations pair" in w.from_durations.reason


def test_durations_that_grow_inside_their_tread_only_by_the_host_link_are_one_unit():
    u, d = _paired_units(np.random.default_rng(7), 0.0)
    by_time = unit_from_durations(u, d)
    assert by_time.unit_pages == 4, by_time.reason
    assert durations_flat_inside(u, d, 4, by_time.per_unit_us, HOST_PAGE_US)[0]

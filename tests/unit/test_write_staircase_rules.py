"""Issue 22's write-side rules, on peaks and waveforms drawn here from stated currents.

* A unit's step is one more unit's packages programming; packages differ by ±15 %, so
  a rise at the top less than half the steps below is not a unit — it is pages moving
  over the channels while every package of the top programs (transfer current).
* One-page units make the peak rise by one package's program current with every page:
  a ramp of equal per-page rises, which no wider staircase explains.
* A one-page unit lies on one die of one package (Eq. 2), so the dies follow from the
  tread even where the staircase's top is not every package busy.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize, fit_steps
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

IDLE_A, CTRL_A, PROGRAM_A = 0.040, 0.060, 0.080  # A: idle, controller busy, one unit's packages programming


def peaks(sizes, tread, units, extra_a=0.0, rng=None, sigma=0.0015):
    """Peak above idle of each write: controller, one PROGRAM_A per unit up to ``units``
    units at once, and ``extra_a`` more once every package of the top programs and more
    pages keep moving (each size past the top)."""
    rng = rng or np.random.default_rng(0)
    busy = np.minimum(-(-sizes // tread), units)
    past_top = sizes > units * tread
    return CTRL_A + PROGRAM_A * busy + extra_a * past_top + rng.normal(0.0, sigma, sizes.size)


def test_a_small_rise_at_the_top_is_transfers_not_a_unit():
    # 4 units of 2 pages (8 packages of 1 die, 2 per unit), then 15 mA of transfer current for
    # every write past the top: without the rule the peaks read as 5 steps.
    sizes = np.repeat(np.arange(1, 17), 3)
    r = fit_steps(sizes, peaks(sizes, 2, 4, extra_a=0.015), n_package=8, idle_a=0.0)
    assert (r.n_step, r.step_pages) == (4, 2), r.reason
    assert "transfers" in r.reason
    assert r.confidence in ("high", "medium") and r.count_sure


def test_a_full_size_top_step_is_still_a_unit():
    # The same drive without transfer current, with a fifth unit as large as the others:
    # nothing is trimmed (the rule looks only at rises under half the others).
    sizes = np.repeat(np.arange(1, 17), 3)
    r = fit_steps(sizes, peaks(sizes, 2, 5), n_package=10, idle_a=0.0)
    assert (r.n_step, r.step_pages) == (5, 2), r.reason
    assert "transfers" not in r.reason


def test_a_ramp_of_one_page_steps_past_the_package_limit_of_candidates():
    # 32 packages, one-page units, 24 mA per package; the sweep stops at 40 pages and the
    # last packages overlap only in part, so the top creeps (no clean 32-level staircase).
    rng = np.random.default_rng(3)
    sizes = np.repeat(np.arange(1, 41), 3)
    busy = np.minimum(sizes, 28) + np.clip(sizes - 28, 0, 4) * 0.25
    y = CTRL_A + 0.024 * busy + rng.normal(0, 0.002, sizes.size)
    r = fit_steps(sizes, y, n_package=32, idle_a=0.0)
    assert r.step_pages == 1, r.reason
    # the ramp ends where the per-page rises stop being a package's: never past the packages
    assert 26 <= r.n_step <= 29, r.reason
    assert r.confidence == "medium"


def test_two_page_treads_with_a_rise_inside_each_are_not_a_ramp():
    # 2-page units whose second page adds 10 mA of transfer current inside each tread, 60 mA
    # per unit: the per-page rises alternate (10, 60, 10, ...) — not one-page steps.
    from charz.analysis._steps import _one_page_ramp

    sizes = np.arange(1, 25)
    unit = -(-sizes // 2)
    y = CTRL_A + 0.060 * np.minimum(unit, 10) + 0.010 * ((sizes % 2 == 0) & (unit <= 10))
    assert _one_page_ramp(sizes, y, np.full(sizes.size, 0.0005), 32) is None
    ramp = CTRL_A + 0.035 * np.minimum(sizes, 20)  # the same peaks drawn as one-page steps
    assert _one_page_ramp(sizes, ramp, np.full(sizes.size, 0.0005), 32) == (20, pytest.approx(0.035))


DT, T_FIRST, N = 2e-6, -0.5e-3, 3000
Y_MULT = 0.25e-3
PAGE = 4096


def one_page_writes(pages, rng, repeat, gap_us=120.0, prog_us=700.0):
    """One-page units: page i starts programming ``gap_us`` after page i-1 (its transfer), for
    ``prog_us``: at most ceil(prog/gap) = 6 packages at once, so the staircase stops at 6 steps
    on a drive of 32 packages, and each page adds the same time (no wait for a busy package)."""
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    end = 20.0 + (pages - 1) * gap_us + prog_us
    amps[(t_us >= 0) & (t_us < end)] += CTRL_A
    for i in range(pages):
        p0 = 20.0 + i * gap_us
        amps[(t_us >= p0) & (t_us < p0 + prog_us)] += 0.045
    amps += rng.normal(0, 0.003, N)
    codes = np.round(amps / Y_MULT).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def test_a_one_page_unit_is_one_die_without_the_rise():
    rng = np.random.default_rng(4)
    traces = [one_page_writes(p, rng, r) for r in range(3) for p in range(1, 13)]
    c = characterize(traces, Given(channels=4, packages=32, page_size_bytes=PAGE))  # no timing: no rise
    assert c["step_pages"].value == 1, c["step_pages"].evidence
    assert c["write_io_unit_bytes"].value == PAGE
    dies = c["dies_per_package"]
    assert dies.value == 1, dies.evidence
    assert dies.confidence == "medium" and "one die of one package" in dies.evidence
    assert c["n_step"].value == 32  # every package its own step, though the staircase stopped at 6

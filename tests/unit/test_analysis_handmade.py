"""The analysis on waveforms built by hand — no simulator involved.

Each request is drawn as rectangles: a controller step, then one program pulse
per busy package starting a fixed switch delay apart; noise, mains hum, spikes
and 12-bit quantisation are added on top.  The drive behind them is described
only here, so nothing can agree with the simulator by construction.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize, fit_steps, measure_window
from charz.errors import AnalysisError
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

DT = 2e-6
N = 6000
T_FIRST = -1e-3
Y_MULT = 0.5e-3  # 0.5 mA per code: 12 bits span ±1 A


def handmade(n_packages, pkg_a=0.05, start_us=80.0, switch_us=30.0, prog_us=1000.0, rng=None, sigma=0.004, hum=0.002, spikes=2,
             wrapped=0):
    """Idle 40 mA; controller +60 mA from start to the last program end; package i programs from
    start + 20 + i·switch for prog_us; then ``wrapped`` packages program once more after the first
    round (units past every package wait for a busy one).  Returns int16 codes and the true edges."""
    rng = rng or np.random.default_rng(0)
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, 0.040)
    end_us = start_us + 20 + (n_packages - 1) * switch_us + prog_us
    if wrapped:
        amps[(t_us >= end_us) & (t_us < end_us + prog_us)] += wrapped * pkg_a
        end_us += prog_us
    amps[(t_us >= start_us) & (t_us < end_us)] += 0.060
    for i in range(n_packages):
        p0 = start_us + 20 + i * switch_us
        amps[(t_us >= p0) & (t_us < p0 + prog_us)] += pkg_a
    amps += rng.normal(0, sigma, N) + hum * np.sin(2 * np.pi * 50 * t_us * 1e-6 + rng.uniform(0, 6.3))
    for _ in range(rng.poisson(spikes)):
        amps[rng.integers(0, N)] += rng.choice([0.2, -0.1])
    codes = np.clip(np.round(amps / Y_MULT), -2048, 2047).astype(np.int16)
    return codes, start_us, end_us


def test_window_edges_and_peak_on_handmade_pulses():
    rng = np.random.default_rng(1)
    rows, truth = [], []
    for n in (1, 3, 6, 10):
        codes, s, e = handmade(n, rng=rng)
        rows.append(codes)
        truth.append((s, e, 0.040 + 0.060 + n * 0.05))
    m = measure_window(np.array(rows), y_mult=Y_MULT, y_offset_codes=0, y_zero=0, sample_interval_s=DT, t_first_s=T_FIRST)
    for i, (s, e, level) in enumerate(truth):
        assert m.start_s[i] * 1e6 == pytest.approx(s, abs=4.0)
        assert m.end_s[i] * 1e6 == pytest.approx(e, abs=4.0)
        # The w = 20 average of a flat top: the level plus at most a few σ/√20 of noise and hum.
        assert m.peak_a[i] == pytest.approx(level, abs=0.008)
    # The baseline is the local idle level: within the 2 mA hum of the true 40 mA.
    assert m.baseline_a == pytest.approx(0.040, abs=0.0025)


def test_steps_dies_and_unit_from_handmade_sweep():
    # 12 packages, 3 dies each, I/O unit 6 pages = 2 packages: steps of 6 pages, 6 steps to M_peak.
    rng = np.random.default_rng(2)
    traces = []
    for repeat in range(5):
        for pages in range(1, 46):
            busy = min(-(-pages // 6), 6) * 2
            wrapped = 2 if pages > 36 else 0  # the seventh unit waits for the first unit's packages
            codes, _, _ = handmade(busy, rng=rng, pkg_a=0.03, wrapped=wrapped)
            traces.append(Trace("write", pages * 4096, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A"), repeat=repeat))
    c = characterize(traces, Given(channels=6, packages=12, page_size_bytes=4096))
    assert (c["n_step"].value, c["step_pages"].value) == (6, 6)
    assert c["dies_per_package"].value == 3
    assert c["write_io_unit_bytes"].value == 6 * 4096
    assert c["dies_per_package"].origin == "inferred" and c["n_step"].origin == "measured"
    assert "Eq. 1" in c["dies_per_package"].evidence
    # no timing given, so no rise: the staircase is the only view of the dies, and one view is
    # never "high" (issue 22)
    assert c["dies_per_package"].details["decided_by"] == "staircase"
    assert c["dies_per_package"].confidence == "medium"


def test_flat_peaks_with_one_repeat_are_at_most_medium_confidence():
    rng = np.random.default_rng(3)
    traces = []
    for pages in range(1, 31):
        codes, _, _ = handmade(min(pages, 8), rng=rng)
        traces.append(Trace("write", pages * 4096, Waveform(codes, Y_MULT, 0.0, 0.0, DT, T_FIRST, unit="A")))
    c = characterize(traces, Given(channels=8, packages=8, page_size_bytes=4096))
    assert c["n_step"].confidence in ("medium", "undetermined")
    assert any("one capture per size" in w for w in c.warnings)


def test_nan_and_silent_captures_are_flagged_not_fatal():
    rng = np.random.default_rng(4)
    good, _, _ = handmade(4, rng=rng)
    nan = good.astype(np.float64)
    nan[100:200] = np.nan
    silent = np.full(N, 80, dtype=np.int16)  # idle only: the request never showed
    m = measure_window(np.stack([good.astype(float), nan, silent.astype(float)]), y_mult=Y_MULT, y_offset_codes=0,
                       y_zero=0, sample_interval_s=DT, t_first_s=T_FIRST)
    assert m.flags[0] == 0
    assert m.flags[1] & 32  # non-finite
    assert m.flags[2] & 1 and np.isnan(m.peak_a[2])  # no activity


def test_empty_input_is_a_clear_error():
    with pytest.raises(AnalysisError, match="no captures"):
        characterize([], Given())
    with pytest.raises(AnalysisError, match="no samples"):
        characterize([Trace("write", 4096, Waveform(np.empty(0, np.int16), 1e-3, 0, 0, DT, T_FIRST, unit="A"))], Given())


def test_staircase_without_repeats_uses_neighbours_for_noise():
    sizes = np.arange(1, 41)
    level = 0.1 + 0.02 * np.minimum((sizes + 3) // 4, 5) + np.random.default_rng(5).normal(0, 0.0005, 40)
    r = fit_steps(sizes, level)
    assert (r.n_step, r.step_pages) == (5, 4)
    assert r.sizes.sigma_source == "neighbouring sizes"


def test_traces_that_share_one_array_measure_as_separate_ones():
    # A loader that reads a batch at once hands out rows of one array; measuring them in
    # place must give exactly what separate copies give, and must not alter the array.
    from charz.analysis import measure_traces

    rng = np.random.default_rng(7)
    block = np.stack([handmade(n, rng=rng)[0] for n in (1, 2, 4, 8)])
    before = block.copy()

    def traces(rows):
        return [Trace("write", 4096 * (i + 1), Waveform(r, Y_MULT, 0, 0, DT, T_FIRST, unit="A", code_min=-2048, code_max=2047))
                for i, r in enumerate(rows)]

    shared = measure_traces(traces(list(block)))
    separate = measure_traces(traces([r.copy() for r in block]))
    for name in ("start_s", "end_s", "peak_a", "charge_c"):
        np.testing.assert_array_equal(getattr(shared, name), getattr(separate, name))
    np.testing.assert_array_equal(block, before)
    # Rows in another order are not the array's rows: they take the copying path and still agree.
    swapped = measure_traces(traces([block[1], block[0], block[2], block[3]]))
    np.testing.assert_array_equal(swapped.peak_a[[1, 0, 2, 3]], separate.peak_a)


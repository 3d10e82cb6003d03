"""Hand-drawn captures with a real bench's nuisances (no simulator): the window's end under a
mains-hum crest, noise correlated over samples and 8-bit steps; read bursts with a spike; a
staircase whose level count is in doubt but whose tread is not.  Each case is one a person
reads off the plot; the numbers are written here from the drawing, not from charz."""

import numpy as np
import pytest

from charz.analysis import fit_steps, measure_window
from charz.analysis._reads import count_bursts

pytestmark = pytest.mark.unit

DT = 4e-6
LSB = 0.007  # 8-bit steps of 7 mA, as on a 1.8 A full scale


def _digitize(amps):
    return np.round(amps / LSB).astype(np.int8)


def _read_capture(rng, *, hum_a, hum_phase, end_us=1600.0, n=10_000, pre=1000):
    """Idle 115 mA; a read's busy level 180 mA from 0 to end_us; a 50 Hz hum; noise
    correlated over three samples (σ 2.5 mA)."""
    t = (np.arange(n) - pre) * DT
    amps = np.full(n, 0.115)
    amps[(t >= 0) & (t < end_us * 1e-6)] = 0.180
    white = rng.normal(0, 0.0025, n + 2)
    amps += (white[:-2] + white[1:-1] + white[2:]) / np.sqrt(3)
    amps += hum_a * np.sin(2 * np.pi * 50 * t + hum_phase)
    return _digitize(amps), -pre * DT


@pytest.mark.parametrize("phase", np.linspace(0, 2 * np.pi, 16, endpoint=False))
def test_the_end_is_the_fall_not_where_a_hum_crest_lets_the_idle_level_down(phase):
    for hum_a in (0.003, 0.004, 0.006):
        for seed in range(3):
            codes, t0 = _read_capture(np.random.default_rng(seed), hum_a=hum_a, hum_phase=phase)
            m = measure_window(codes[None, :], y_mult=LSB, y_offset_codes=0, y_zero=0, sample_interval_s=DT,
                               t_first_s=t0)
            # The fall is at 1600 µs; an edge within a few samples of it, whatever the hum's
            # phase (before, a crest after the request held the end 6-11 ms late at some phases).
            assert abs(m.start_s[0] * 1e6) <= 12
            assert abs(m.end_s[0] * 1e6 - 1600) <= 16, (hum_a, seed)


def test_a_staircase_tail_of_one_package_is_kept_under_hum():
    # Last package programs alone for 800 µs at 40 mA above idle: that is the request, not hum.
    rng = np.random.default_rng(5)
    n, pre = 10_000, 1000
    t = (np.arange(n) - pre) * DT
    amps = np.full(n, 0.115) + 0.004 * np.sin(2 * np.pi * 50 * t + 1.0)
    amps[(t >= 0) & (t < 600e-6)] += 0.120
    amps[(t >= 600e-6) & (t < 1400e-6)] += 0.040
    amps += rng.normal(0, 0.002, n)
    m = measure_window(_digitize(amps)[None, :], y_mult=LSB, y_offset_codes=0, y_zero=0, sample_interval_s=DT,
                       t_first_s=-pre * DT)
    assert abs(m.end_s[0] * 1e6 - 1400) <= 16


def test_read_bursts_are_counted_through_a_spike_and_flat_tops():
    # Seven bursts of 60 µs every 110 µs, 20 mA on a 60 mA busy level, 8-bit steps; one
    # two-sample spike of 150 mA in the middle.
    rng = np.random.default_rng(1)
    t = np.arange(200) * DT * 1e6
    amps = 0.160 + 0.020 * (((t % 110) < 60) & (t < 7 * 110))
    amps = amps[: int(7 * 110 / 4)]
    amps = amps + rng.normal(0, 0.0015, amps.size)
    amps[90:92] += 0.150
    x = np.round(amps / 0.0045) * 0.0045
    assert count_bursts(x, 3, 0.0015, min_distance=13) == 7


def test_a_tread_every_close_fit_shares_stands_while_the_count_is_in_doubt():
    # Steps every 4 pages: 500, 840, 955, then 960 mA (programs overlap only in part, so the
    # last rise is 5 mA, under 4 σ of 6 mA noise over five repeats).  A person reads the
    # 4-page tread, not the number of levels: 3 × 4 and 4 × 4 both rise every 4 pages.
    sizes = np.repeat(np.arange(1, 21), 5)
    level = np.array([0.500, 0.840, 0.955, 0.960])[np.minimum((sizes - 1) // 4, 3)]
    r = fit_steps(sizes, level + np.random.default_rng(1).normal(0, 0.006, sizes.size), n_package=16, idle_a=0.0)
    assert (r.step_pages, r.count_sure, r.confidence) == (4, False, "medium")


def test_no_staircase_has_more_levels_than_packages():
    # Eight packages; nine small rises (the ninth is ripple on a saturated top).
    sizes = np.repeat(np.arange(1, 11), 5)
    level = np.concatenate([np.arange(1, 9) * 0.05, [0.405, 0.406]])[sizes - 1]
    r = fit_steps(sizes, level + np.tile([0.0004, -0.0004, 0.0, 0.0002, -0.0002], 10), n_package=8, idle_a=0.0)
    assert r.n_step is None or r.n_step <= 8
    assert all(c.n_levels <= 8 for c in r.candidates)

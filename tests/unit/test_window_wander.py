"""Where a request starts and ends when the idle level wanders (drift, mains hum), drawn by
hand from stated currents and timings (no simulator).  A person reading the trace puts the
end at the request's last step down to idle and the start at the foot of its rising edge;
a slow glide of a few mA before or after the request is idle, however long it stays above
the level the record ends on."""

import numpy as np
import pytest

from charz.analysis import measure_window

pytestmark = pytest.mark.unit

DT, N, PRE = 4e-6, 2500, 250  # 10 ms record of 4 µs samples, 1 ms before the request


def _measure(amps, lsb):
    codes = np.round(amps / lsb).astype(np.int16)
    m = measure_window(codes[None, :], y_mult=lsb, y_offset_codes=0, y_zero=0, sample_interval_s=DT,
                       t_first_s=-PRE * DT)
    return m.start_s[0] * 1e6, m.end_s[0] * 1e6


def _t_us():
    return (np.arange(N) - PRE) * DT * 1e6


def _crest(t, a, b, height):
    """A hum's or drift's slow crest: half a sine of ``height`` from a to b µs."""
    on = (t >= a) & (t < b)
    return np.where(on, height * np.sin(np.pi * (t - a) / (b - a)), 0.0)


def test_a_write_ramping_down_in_steps_ends_at_its_last_step_not_after_the_hum_crest():
    # Idle 80 mA, σ 1.1 mA.  A write on 16 packages: +280 mA from 20 µs to 2400 µs, then the
    # packages finish in steps: +220 mA to 2800, +160 to 3100, +100 to 3400, +40 to 3700 µs,
    # then idle.  From 3900 µs a crest of +6 mA (2 % of the request) glides over 3.6 ms, back
    # to idle by 7500 µs — above the level the record ends on for most of that time.
    t = _t_us()
    clean = np.full(N, 0.080) + _crest(t, 3900, 7500, 0.006)
    for a, b, h in ((20, 2400, 0.280), (2400, 2800, 0.220), (2800, 3100, 0.160), (3100, 3400, 0.100),
                    (3400, 3700, 0.040)):
        clean[(t >= a) & (t < b)] += h
    for seed in range(10):
        amps = clean + np.random.default_rng(seed).normal(0, 0.0011, N)
        start, end = _measure(amps, 2e-4)
        # Before: the largest fall (280 → 220 mA) was tested as the end, the stretch after it
        # held the rest of the ramp, and the crest stayed in the window (end ≈ 6.8 ms).
        assert abs(end - 3700) <= 16, (seed, end)
        assert abs(start - 20) <= 12, (seed, start)


def test_a_read_with_a_tall_first_burst_ends_after_its_shoulder_not_at_its_burst():
    # Idle 84 mA, σ 1.5 mA.  A 512 KiB read: every die senses at once, +280 mA from 20 to
    # 200 µs; the pages then go out with the controller busy, +54 mA until 1900 µs; idle
    # after it, with a +6 mA crest from 1950 to 3500 µs.
    t = _t_us()
    clean = np.full(N, 0.084) + _crest(t, 1950, 3500, 0.006)
    clean[(t >= 20) & (t < 200)] += 0.280
    clean[(t >= 200) & (t < 1900)] += 0.054
    for seed in range(10):
        amps = clean + np.random.default_rng(seed).normal(0, 0.0015, N)
        start, end = _measure(amps, 2e-4)
        # Before: the burst's fall was the largest, the stretch after it (shoulder and crest)
        # came back near idle, and the window was cut after the burst (end ≈ 200 µs).
        assert abs(end - 1900) <= 16, (seed, end)
        assert abs(start - 20) <= 12, (seed, start)


def test_a_wander_lifting_the_block_before_the_request_does_not_start_it():
    # Idle 80 mA, σ 1 mA.  The idle level creeps up by 3 mA over the 400 µs before the
    # request (a drift) and stays there; the request: +120 mA from 10 µs to 1500 µs.
    t = _t_us()
    clean = np.full(N, 0.080) + 0.003 * np.clip((t + 400) / 410, 0.0, 1.0)
    clean[(t >= 10) & (t < 1500)] += 0.120
    for seed in range(20):
        amps = clean + np.random.default_rng(seed).normal(0, 0.001, N)
        start, end = _measure(amps, 2e-4)
        # Before: the block before time zero rose over the start threshold and a noise
        # crossing early in it started the window ~150 µs before the request.
        assert abs(start - 10) <= 12, (seed, start)
        assert abs(end - 1500) <= 16, (seed, end)


def test_a_write_whose_last_package_programs_alone_ends_after_that_package():
    # Idle 125 mA, σ 2.8 mA, 2 µs samples.  A write on 16 packages: +815 mA from 20 to
    # 1100 µs, +470 mA until 1900 µs as packages finish, then the last package programs
    # alone, +65 mA (under a tenth of the top), flat until 3800 µs, and steps down to idle.
    # That flat step is the request, not a hum (a hum's crest is a few mA and glides).
    dt, n, pre = 2e-6, 5000, 500
    t = (np.arange(n) - pre) * dt * 1e6
    clean = np.full(n, 0.125)
    for a, b, h in ((20, 1100, 0.815), (1100, 1900, 0.470), (1900, 3800, 0.065)):
        clean[(t >= a) & (t < b)] += h
    for seed in range(10):
        amps = clean + np.random.default_rng(seed).normal(0, 0.0028, n)
        codes = np.round(amps / 5e-4).astype(np.int16)
        m = measure_window(codes[None, :], y_mult=5e-4, y_offset_codes=0, y_zero=0, sample_interval_s=dt,
                           t_first_s=-pre * dt)
        # Before: the fall to the last package was taken for the end and the package for a
        # hum plateau (end ≈ 1.9 ms).
        assert abs(m.end_s[0] * 1e6 - 3800) <= 16, (seed, m.end_s[0])


def test_a_read_whose_last_step_straddles_two_blocks_ends_there_under_a_drift_crest():
    # 20 ms record of 2 µs samples (100 µs blocks), 1 ms before the request.  Idle 246 mA,
    # σ 4.8 mA.  A read keeps the controller busy, +40 mA from 20 to 1750 µs: its step down
    # falls mid-block, so each of the two blocks around it holds only half the fall.  From
    # the request's end a drift's crest holds the idle level 5-11 mA up until 14 ms, above
    # the level the record ends on.
    dt, n, pre = 2e-6, 10_000, 500
    t = (np.arange(n) - pre) * dt
    clean = np.full(n, 0.246)
    on = (t >= 1750e-6) & (t < 14e-3)
    clean[on] += 0.011 * np.sin(np.pi * (t[on] - 1250e-6) / 12.75e-3)
    clean[(t >= 20e-6) & (t < 1750e-6)] += 0.040
    for seed in range(10):
        amps = clean + np.random.default_rng(seed).normal(0, 0.0048, n)
        codes = np.round(amps / 5e-4).astype(np.int16)
        m = measure_window(codes[None, :], y_mult=5e-4, y_offset_codes=0, y_zero=0, sample_interval_s=dt,
                           t_first_s=-pre * dt)
        # Before: on half the seeds no single block fell twice the crest's height, and the
        # window ran on through the crest (end ≈ 13 ms).
        assert abs(m.end_s[0] * 1e6 - 1750) <= 30, (seed, m.end_s[0])

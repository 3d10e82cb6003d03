"""The window of a read, drawn by hand from stated currents and timings (no simulator).

A read keeps the controller busy from its command to its last transfer to the host: a busy
level above idle, array-read bursts on top of it, then a shoulder while the pages go out
over the channels and the host link.  Idle noise before the request has the idle level's
statistics.  The numbers below are the drawing's; each assertion is where a person puts the
edges on the plot."""

import numpy as np
import pytest

from charz.analysis import measure_window

pytestmark = pytest.mark.unit


def _measure(amps, lsb, dt, pre):
    codes = np.round(amps / lsb).astype(np.int8 if amps.max() / lsb < 127 else np.int16)
    return measure_window(codes[None, :], y_mult=lsb, y_offset_codes=0, y_zero=0, sample_interval_s=dt,
                          t_first_s=-pre * dt)


def test_a_short_pre_trigger_still_gives_the_idle_level_its_own_noise():
    # 1250 samples of 4 µs, 500 µs of them before the request (125 samples: fewer than four
    # 50-sample blocks).  Idle 120 mA, white noise σ 6 mA, 8-bit steps of 5 mA.  The read:
    # controller busy +45 mA from 25 to 225 µs, two array-read bursts of +25 mA, 60 µs each.
    # The window is the controller's busy span, whatever the noise does before it.
    dt, n, pre = 4e-6, 1250, 125
    t = (np.arange(n) - pre) * dt
    clean = np.full(n, 0.120)
    clean[(t >= 25e-6) & (t < 225e-6)] += 0.045
    for b in (40e-6, 110e-6):
        clean[(t >= b) & (t < b + 60e-6)] += 0.025
    starts, ends, flags = [], [], []
    for seed in range(40):
        amps = clean + np.random.default_rng(seed).normal(0, 0.006, n)
        m = _measure(amps, 0.005, dt, pre)
        starts.append(m.start_s[0] * 1e6)
        ends.append(m.end_s[0] * 1e6)
        flags.append(int(m.flags[0]))
    starts, ends = np.array(starts), np.array(ends)
    # Before: on about one capture in three the start landed 100-300 µs early, on idle noise.
    assert np.all(np.abs(starts - 25) <= 12), starts
    assert np.all(np.abs(ends - 225) <= 16), ends
    assert not any(f & 4 for f in flags), "125 idle samples are a pre-trigger, not its absence"


def test_a_long_read_ends_after_its_shoulder_not_after_its_bursts():
    # 2 µs samples, 5 ms record, 500 µs pre-trigger.  Idle 250 mA, σ 6 mA, 8-bit steps of
    # 4 mA.  Array reads of 8 dies: +380 mA from 30 to 400 µs; then the pages go out over the
    # channels and the host link with the controller busy: +80 mA until 1420 µs, then idle.
    # The shoulder is 13 σ above idle and steps down to it: it is the read, not a hum crest.
    dt, n, pre = 2e-6, 2500, 250
    t = (np.arange(n) - pre) * dt
    clean = np.full(n, 0.250)
    clean[(t >= 30e-6) & (t < 400e-6)] += 0.380
    clean[(t >= 400e-6) & (t < 1420e-6)] += 0.080
    for seed in range(10):
        amps = clean + np.random.default_rng(seed).normal(0, 0.006, n)
        m = _measure(amps, 0.004, dt, pre)
        # Before: the end was put at ~400 µs and the shoulder taken for a hum plateau.
        assert abs(m.end_s[0] * 1e6 - 1420) <= 16, (seed, m.end_s[0])
        assert abs(m.start_s[0] * 1e6 - 30) <= 12, (seed, m.start_s[0])


def test_a_burst_after_a_return_to_idle_is_not_the_requests_tail():
    # 4 µs samples, 40 ms record, 4 ms pre-trigger.  Idle 115 mA, σ 3 mA.  A write: +120 mA
    # from 0 to 600 µs; back to idle for 400 µs; then the drive erases a block on its own:
    # +25 mA from 1000 to 2800 µs, ending in a step.  The current came back to idle between
    # them, so the erase is other activity — the step-down rule for a read's shoulder must
    # not take it into the window.
    dt, n, pre = 4e-6, 10_000, 1000
    t = (np.arange(n) - pre) * dt
    clean = np.full(n, 0.115)
    clean[(t >= 0) & (t < 600e-6)] += 0.120
    clean[(t >= 1000e-6) & (t < 2800e-6)] += 0.025
    for seed in range(5):
        amps = clean + np.random.default_rng(seed).normal(0, 0.003, n)
        m = _measure(amps, 0.002, dt, pre)
        assert abs(m.end_s[0] * 1e6 - 600) <= 16, (seed, m.end_s[0])
        assert m.flags[0] & 16, "the erase is reported as another burst of current"

"""Energy and the Power Budget against hand calculations."""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize
from charz.analysis._energy import power_budget, window_stats
from charz.waveform import Waveform

pytestmark = pytest.mark.unit


def test_window_stats_of_a_rectangle():
    # 100 mA for 1 ms then 300 mA for 1 ms at 1 µs sampling, 12 V rail.
    i = np.r_[np.full(1000, 0.1), np.full(1000, 0.3)]
    s = window_stats(i, 1e-6, 12.0)
    assert s.charge_c == pytest.approx(0.1e-3 + 0.3e-3)
    assert s.energy_j == pytest.approx(12 * 0.4e-3)
    assert (s.avg_a, s.min_a, s.max_a, s.p2p_a) == pytest.approx((0.2, 0.1, 0.3, 0.2))
    assert s.duration_s == pytest.approx(2e-3)


def test_window_stats_uses_a_measured_voltage_sample_by_sample():
    i = np.full(4, 1.0)
    v = np.array([5.0, 5.0, 4.0, 4.0])
    assert window_stats(i, 1.0, v).energy_j == pytest.approx(18.0)


def test_energy_per_request_of_a_handmade_capture():
    # Idle 50 mA; the request draws 250 mA for exactly 800 µs; 5 V assumed.
    dt = 2e-6
    i = np.full(5000, 0.05)
    i[1000:1400] = 0.25
    codes = np.round(i / 1e-4).astype(np.int16)
    traces = [Trace("write", 4096, Waveform(codes, 1e-4, 0.0, 0.0, dt, -1000 * dt, unit="A"), repeat=r) for r in range(3)]
    char = characterize(traces, Given(page_size_bytes=4096, rail_v=5.0))
    e = char.energy[0]
    assert e.duration_s == pytest.approx(800e-6, abs=4e-6)
    assert e.energy_j == pytest.approx(5.0 * 0.25 * 800e-6, rel=0.02)
    assert e.excess_energy_j == pytest.approx(5.0 * 0.20 * 800e-6, rel=0.02)


def test_power_budget_rows_and_limit():
    b = power_budget(np.array([0.171, 0.19, 0.209, 0.228]), 1)
    assert [r.packages for r in b.rows] == [1, 2, 3, 4]
    assert b.per_package_a == pytest.approx(0.019)
    assert b.max_packages_within(0.2) == 2
    assert b.max_packages_within(0.1) == 0

"""000 Eq. 7–9 against numbers the test computes from the formulas, and M_p's three outcomes."""

from __future__ import annotations

import numpy as np
import pytest

from charz.analysis._quantity import GIVEN, INFERRED, UNDETERMINED
from charz.analysis._wa import WaGeometry, calibrate_mp, count_uncertainty, re_wa, wa_eq7

pytestmark = pytest.mark.unit


def test_eq7_design_table_case():
    # 8 ch · 4 chips · 2 dies · 16 KiB · (100 000 · M_p 2), host 100 GiB
    phys = 8 * 4 * 2 * 16384 * (100_000 * 2)
    e = wa_eq7(100_000, 2, WaGeometry.given(8, 4, 2, 16384), 100 * 2**30)
    assert e.physical_bytes.value == phys == 209_715_200_000
    assert e.wa.value == pytest.approx(phys / (100 * 2**30)) and e.wa.value == pytest.approx(1.953125)
    assert e.wa.origin == INFERRED and e.logical_bytes.origin == "measured" and e.m_p.origin == GIVEN


def test_eq7_uncertainty_parts():
    g = WaGeometry.given(4, 1, 1, 4096)
    n, L = 10_000, 10_000 * 4 * 4096 / 1.5
    e = wa_eq7(n, 1, g, L, u_logical_bytes=0.01 * L)
    assert e.wa.value == pytest.approx(1.5)
    assert e.u_counting == pytest.approx(1.5 * np.sqrt(n * 0.75) / n)
    assert e.u_volume == pytest.approx(0.015)
    assert e.wa.uncertainty == pytest.approx(np.hypot(e.u_counting, e.u_volume))


def test_count_uncertainty_matches_a_binomial_split():
    # pages thrown at random onto 4 dies: one die's count × 4 scatters as the formula says
    rng = np.random.default_rng(0)
    total, dies = 40_000, 4
    one_die = rng.binomial(total, 1 / dies, size=4000)
    assert np.std(one_die) == pytest.approx(count_uncertainty(total // dies, dies), rel=0.05)


@pytest.mark.parametrize("pulses_per_page, expect", [(1.0, 1), (0.5, 2), (0.97, 1), (0.52, 2)])
def test_mp_calibration(pulses_per_page, expect):
    g = WaGeometry.given(2, 2, 1, 16384)
    L = 512 * 2**20
    pages_per_die = L / 16384 / 4
    q = calibrate_mp(int(pages_per_die * pulses_per_page), g, L)
    assert q.value == expect and q.origin == INFERRED


@pytest.mark.parametrize("pulses_per_page, why", [(0.75, "between 1/2 and 1"), (1.4, "> 1"), (0.3, "< 0.5")])
def test_mp_cannot_tell_says_why(pulses_per_page, why):
    g = WaGeometry.given(2, 2, 1, 16384)
    L = 512 * 2**20
    q = calibrate_mp(int(L / 16384 / 4 * pulses_per_page), g, L)
    assert q.confidence == UNDETERMINED and q.value is None and why in q.evidence


def test_mp_four_planes_only_when_planes_given():
    g = WaGeometry.given(1, 1, 1, 4096)
    L = 4096 * 40_000
    assert calibrate_mp(10_000, g, L).value is None
    assert calibrate_mp(10_000, g, L, planes=4).value == 4


def test_re_wa_eq9():
    assert re_wa(7.2, 7.32) == pytest.approx(abs(7.2 - 7.32) / 7.32)
    with pytest.raises(ValueError):
        re_wa(1.0, 0.0)


def test_bad_input():
    with pytest.raises(ValueError, match="positive integer"):
        WaGeometry.given(0, 1, 1, 4096)
    with pytest.raises(ValueError, match="logical_bytes"):
        wa_eq7(10, 1, WaGeometry.given(1, 1, 1, 4096), 0)
    with pytest.raises(ValueError, match="n_tprogram"):
        wa_eq7(-1, 1, WaGeometry.given(1, 1, 1, 4096), 100)

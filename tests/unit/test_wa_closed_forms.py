"""Closed-form WA models against published values, re-derived here from the formulas.

The Lambert W values are recomputed by Halley's iteration (no scipy), the δ form by
bisection on 002 Eq. 3 as printed — tests/independent/closed_forms.py, so charz's code is checked against
arithmetic it did not do.  Published numbers:

* Xiang & Kurkoski, arXiv 1110.4245, abstract: "when the overprovisioning factor is
  0.3, [our expression] gives 2.36 whereas [Agarwal's] gives 2.17, when the actual
  value is 2.35" — ρ = spare/user = 0.3 (α = 1.3).
* Dayan et al. (paper 002) Appendix A: Eq. 3 solved through Lambert W is "in fact the
  equation derived through different means in [9, 20, 16]" (Desnoyers among them).
* Desnoyers SYSTOR'12 Eq. 12: greedy tends to LRW as pages per block grow.
"""

from __future__ import annotations

import pytest

from charz.analysis._wa_models import (
    agarwal_wa_rho,
    dayan_delta_sf,
    dayan_wa_sf,
    greedy_wa_sf,
    held_spare_factor,
    lrw_wa_sf,
    model_table,
    rho_from_sf,
    sf_from_rho,
)

from tests.independent.closed_forms import dayan, greedy_sf, lrw

pytestmark = pytest.mark.unit


def test_xiang_kurkoski_rho_0_3():
    rho = 0.3
    sf = rho / (1 + rho)  # the paper's factor is spare/user: S_f = ρ/(1 + ρ)
    by_hand = lrw(1 + rho)
    assert round(by_hand, 2) == 2.36  # the paper's Lambert-W value
    assert lrw_wa_sf(sf) == pytest.approx(by_hand, rel=1e-12)
    assert abs(lrw_wa_sf(sf) - 2.35) < 0.02  # "the actual value is 2.35" (their simulation)
    assert round((1 + rho) / (2 * rho), 2) == 2.17
    assert agarwal_wa_rho(rho) == pytest.approx((1 + rho) / (2 * rho))
    # the convention trap: feeding ρ where S_f belongs gives a very different number
    assert abs(lrw_wa_sf(rho) - 2.36) > 0.3


@pytest.mark.parametrize("sf", [0.03, 0.07, 0.125, 0.28, 0.5, 0.9])
def test_dayan_delta_form_equals_desnoyers_lrw(sf):
    # 002 Eq. 3 by bisection, as printed: (δ − 1)/ln δ = LBA/PBA = 1 − S_f
    wa = dayan(1 - sf)
    assert dayan_delta_sf(sf) == pytest.approx(1 - 1 / wa, abs=1e-9)
    assert dayan_wa_sf(sf) == pytest.approx(wa, rel=1e-7)
    # Appendix A: the same as the Lambert-W form
    assert dayan_wa_sf(sf) == pytest.approx(lrw(1 / (1 - sf)), rel=1e-7)
    assert lrw_wa_sf(sf) == pytest.approx(lrw(1 / (1 - sf)), rel=1e-10)


@pytest.mark.parametrize("sf,n_p", [(0.07, 64), (0.07, 256), (0.28, 64), (0.125, 256)])
def test_greedy_eq12(sf, n_p):
    assert greedy_wa_sf(sf, n_p) == pytest.approx(greedy_sf(sf, n_p), rel=1e-10)
    assert greedy_wa_sf(sf, n_p) < lrw_wa_sf(sf)  # greedy picks emptier victims than FIFO


def test_greedy_tends_to_lrw_and_limits():
    assert greedy_wa_sf(0.1, 10**7) == pytest.approx(lrw_wa_sf(0.1), rel=1e-5)
    assert lrw_wa_sf(1e-4) > 1000  # no spare: unbounded
    assert lrw_wa_sf(0.999) == pytest.approx(1.0, abs=1e-3)  # all spare: no copies
    assert agarwal_wa_rho(1e6) == pytest.approx(0.5, rel=1e-3)  # its known flaw: below 1 at high OP


def test_conventions_round_trip_and_bad_input():
    assert sf_from_rho(rho_from_sf(0.2)) == pytest.approx(0.2)
    assert rho_from_sf(2 / 16) == pytest.approx(2 / 14)  # SSD-v: 16 GB flash, 14 GB user
    for bad in (0, 1, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="S_f"):
            lrw_wa_sf(bad)
    with pytest.raises(ValueError, match="ρ"):
        agarwal_wa_rho(0)
    with pytest.raises(ValueError, match="pages per block"):
        greedy_wa_sf(0.1, 0)
    with pytest.raises(ValueError):
        held_spare_factor(0.05, 4, 64)  # more held than spare


def test_model_table_names_its_convention():
    rows = model_table(0.07, 256)
    assert [r.convention for r in rows] == ["S_f", "S_f", "S_f", "ρ"]
    assert rows[3].wa == pytest.approx(agarwal_wa_rho(0.07 / 0.93))


def test_format_model_fits_80_columns_and_names_conventions():
    from charz.cli._wa_model import Geometry, format_model
    g = Geometry(0.125, "given as S_f", 256, 64, (1.0, 2.0), "given")
    from charz.wa import SteadySeries
    text = format_model(g, SteadySeries("sub-tests 2–4", None, 3, (4.95, 0.03), None))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "S_f = 0.1250 spare/physical, ρ = 0.1429 spare/user" in text
    greedy_row = next(line for line in text.splitlines() if line.startswith("greedy"))
    # nominal, then the range with 1 and 2 blocks held of 64 (S_f − 1/64, S_f − 2/64)
    assert f"{greedy_wa_sf(0.125, 256):.3f}" in greedy_row
    assert f"{greedy_wa_sf(0.125 - 1 / 64, 256):.3f}–{greedy_wa_sf(0.125 - 2 / 64, 256):.3f}" in greedy_row
    assert "(none in the archive)" in text and "4.950 ± 0.030" in text


@pytest.mark.parametrize("args,msg", [
    (["--op", "7%", "--spare-factor", "0.1"], "give one of"),
    (["--op", "seven"], "ρ = spare/user"),
    (["--op", "0"], "need some spare space (ρ > 0)"),
    (["--op", "7"], "ambiguous"),
    (["--op", "700%"], "above 100 %"),
    (["--spare-factor", "1.2"], "S_f"),
    (["--op", "7%", "--held-blocks", "1,2"], "--blocks-per-pool"),
    ([], "give --op or --spare-factor"),
])
def test_wa_model_cli_bad_input(args, msg, capsys):
    from tests.system.charz_cli import run
    assert run(["wa", "model", *args]) != 0
    err = capsys.readouterr()
    assert msg in " ".join((err.out + err.err).split())

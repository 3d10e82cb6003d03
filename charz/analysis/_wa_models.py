"""Closed-form write amplification of uniform random page overwrites in steady state (pure).

Two over-provisioning conventions are in use and mixing them is the usual mistake,
so every function names its own in its suffix:

* ``_sf``  — spare factor S_f = (T − U)/T, spare over *physical* (Desnoyers, SYSTOR'12;
  Dayan et al., paper 002 Eq. 3 as LBA/PBA = U/T = 1 − S_f; MQSim, SimpleSSD, SSDsim);
* ``_rho`` — ρ = (T − U)/U, spare over *user* space, as vendors quote "7 % OP"
  (Agarwal & Marrow, GLOBECOM'10; Xiang & Kurkoski, arXiv 1110.4245).

T = physical pages, U = user (logical) pages; α = T/U = 1/(1 − S_f) = 1 + ρ.

The models:

==================  ===============================================================
LRW (FIFO)          Desnoyers Eq. 4: A = α/(α + W₀(−α e^{−α})), Lambert W, main branch
greedy              Desnoyers Eq. 12: A_LRW(kα)/k, k = 1 + 1/(2 N_p), N_p pages/block
Dayan δ             002 Eq. 3: (δ − 1)/ln δ = LBA/PBA, WA = 1/(1 − δ), δ the victim's
                    valid share; solved here by bracketing, not through Lambert W, so
                    it checks the LRW form (002 Appendix A: the two are the same)
Agarwal             (1 + ρ)/(2ρ): a simple, pessimistic-at-low-OP approximation
==================  ===============================================================

All assume uniformly random single-page overwrites of the whole user space in steady
state, no TRIM, no hot/cold separation; a drive that keeps blocks open or free
beyond its spare sees less spare than its nominal S_f (:func:`held_spare_factor`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.optimize import brentq
from scipy.special import lambertw

__all__ = ["rho_from_sf", "sf_from_rho", "lrw_wa_sf", "greedy_wa_sf", "dayan_delta_sf", "dayan_wa_sf",
           "agarwal_wa_rho", "held_spare_factor", "ModelRow", "model_table"]


def _check_sf(sf: float) -> float:
    sf = float(sf)
    if not 0.0 < sf < 1.0:
        raise ValueError(f"spare factor S_f = spare/physical must be in (0, 1), got {sf}")
    return sf


def _check_rho(rho: float) -> float:
    rho = float(rho)
    if not (rho > 0.0 and math.isfinite(rho)):
        raise ValueError(f"ρ = spare/user must be > 0, got {rho}")
    return rho


def rho_from_sf(sf: float) -> float:
    """ρ = S_f/(1 − S_f).

    >>> round(rho_from_sf(0.125), 6)
    0.142857
    """
    sf = _check_sf(sf)
    return sf / (1.0 - sf)


def sf_from_rho(rho: float) -> float:
    """S_f = ρ/(1 + ρ).

    >>> round(sf_from_rho(0.3), 6)
    0.230769
    """
    rho = _check_rho(rho)
    return rho / (1.0 + rho)


def _lrw_alpha(alpha: float) -> float:
    # W₀ of −α e^{−α} is the root other than −α (that one is W₋₁ for α > 1)
    w = lambertw(-alpha * math.exp(-alpha), 0)
    return float(alpha / (alpha + w.real))


def lrw_wa_sf(sf: float) -> float:
    """Desnoyers' LRW/FIFO cleaning, Eq. 4, at spare factor S_f.

    >>> round(lrw_wa_sf(0.07), 4)
    7.3177
    """
    return _lrw_alpha(1.0 / (1.0 - _check_sf(sf)))


def greedy_wa_sf(sf: float, pages_per_block: int) -> float:
    """Desnoyers' greedy cleaning, Eq. 12, at S_f with N_p pages per erase block.

    >>> round(greedy_wa_sf(0.07, 256), 4)
    7.1237
    """
    if int(pages_per_block) != pages_per_block or pages_per_block < 1:
        raise ValueError(f"pages per block must be a positive integer, got {pages_per_block}")
    k = 1.0 + 1.0 / (2.0 * pages_per_block)
    return _lrw_alpha(k / (1.0 - _check_sf(sf))) / k


def dayan_delta_sf(sf: float) -> float:
    """δ, the share of a victim block still valid, from 002 Eq. 3 with LBA/PBA = 1 − S_f."""
    ratio = 1.0 - _check_sf(sf)
    # (δ − 1)/ln δ rises from 0 (δ → 0) to 1 (δ → 1) monotonically: one root in (0, 1)
    f = lambda d: (d - 1.0) / math.log(d) - ratio  # noqa: E731
    return float(brentq(f, 1e-300, 1.0 - 1e-15, xtol=1e-15, rtol=1e-15, maxiter=500))


def dayan_wa_sf(sf: float) -> float:
    """002's WA = 1/(1 − δ) at S_f.

    >>> round(dayan_wa_sf(0.28), 4)
    1.9916
    """
    return 1.0 / (1.0 - dayan_delta_sf(sf))


def agarwal_wa_rho(rho: float) -> float:
    """Agarwal & Marrow's (1 + ρ)/(2ρ) at ρ = spare/user.

    >>> round(agarwal_wa_rho(0.3), 4)
    2.1667
    """
    rho = _check_rho(rho)
    return (1.0 + rho) / (2.0 * rho)


def held_spare_factor(sf: float, held_blocks: float, blocks_per_pool: int) -> float:
    """The spare a cleaner can use when each GC pool of ``blocks_per_pool`` blocks keeps
    ``held_blocks`` of its spare open or free (write frontiers, a reserve): those hold no
    reclaimable data, so the models see S_f − held/blocks.  A drive with thousands of
    blocks per pool barely notices; charz's small mock (64) does.

    >>> round(held_spare_factor(0.125, 2.5, 64), 4)
    0.0859
    """
    sf = _check_sf(sf)
    if blocks_per_pool <= 0 or held_blocks < 0:
        raise ValueError("blocks per pool must be positive and held blocks ≥ 0")
    return _check_sf(sf - held_blocks / blocks_per_pool)


@dataclass(frozen=True)
class ModelRow:
    """One model's WA at one geometry, with what it assumes and where it comes from."""

    name: str
    convention: str  # "S_f" or "ρ": which over-provisioning the formula takes
    wa: float
    source: str


def model_table(sf: float, pages_per_block: int | None = None) -> list[ModelRow]:
    """Every closed form at spare factor ``sf`` (and ρ = S_f/(1 − S_f) for Agarwal).

    >>> [(r.name, round(r.wa, 2)) for r in model_table(0.3 / 1.3)]
    [('LRW / FIFO', 2.36), ('Dayan δ', 2.36), ('Agarwal', 2.17)]
    """
    sf = _check_sf(sf)
    rows = [ModelRow("LRW / FIFO", "S_f", lrw_wa_sf(sf), "Desnoyers'12 Eq. 4")]
    if pages_per_block:
        rows.append(ModelRow(f"greedy, {pages_per_block} pages/block", "S_f", greedy_wa_sf(sf, pages_per_block),
                             "Desnoyers'12 Eq. 12"))
    rows.append(ModelRow("Dayan δ", "S_f", dayan_wa_sf(sf), "002 Eq. 3, 1/(1 − δ)"))
    rows.append(ModelRow("Agarwal", "ρ", agarwal_wa_rho(rho_from_sf(sf)), "Agarwal 2010"))
    return rows

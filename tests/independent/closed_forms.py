"""Closed-form WA of uniform random page writes, written for the tests from the
papers' formulas — no code or constants shared with ``charz.analysis._wa_models`` or
the simulator, so a test that compares either with these checks arithmetic charz did
not do.

* Lambert W (main branch, −1/e < x < 0) by Halley's iteration.
* Desnoyers (SYSTOR'12): LRW / FIFO, WA = α / (α + W₀(−α·e^−α)), α = physical/user
  pages; greedy with N_p pages per block (Eq. 12), the same at k·α, divided by k,
  k = 1 + 1/(2·N_p).
* Dayan et al. (paper 002) Eq. 3: (δ − 1)/ln δ = LBA/PBA, WA = 1/(1 − δ), δ by
  bisection.
"""

from __future__ import annotations

import math


def lambert_w0(x: float) -> float:
    """W₀(x) for −1/e < x < 0."""
    w = -0.5
    for _ in range(100):
        e = math.exp(w)
        f = w * e - x
        w_new = w - f / (e * (w + 1) - (w + 2) * f / (2 * w + 2))
        if abs(w_new - w) < 1e-15:
            return w_new
        w = w_new
    return w


def lrw(alpha: float) -> float:
    """Desnoyers' LRW (FIFO) WA at α = physical/user pages."""
    return alpha / (alpha + lambert_w0(-alpha * math.exp(-alpha)))


def lrw_sf(sf: float) -> float:
    """The same at spare factor S_f = spare/physical (α = 1/(1 − S_f))."""
    return lrw(1.0 / (1.0 - sf))


def greedy_sf(sf: float, n_p: int) -> float:
    """Desnoyers' greedy (Eq. 12) at spare factor S_f with ``n_p`` pages per block."""
    k = 1 + 1 / (2 * n_p)
    return lrw(k / (1.0 - sf)) / k


def dayan(lba_over_pba: float) -> float:
    """002 Eq. 3 solved by bisection (δ in (0, 1))."""
    lo, hi = 1e-12, 1.0 - 1e-12
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (mid - 1.0) / math.log(mid) < lba_over_pba:
            lo = mid
        else:
            hi = mid
    return 1.0 / (1.0 - 0.5 * (lo + hi))

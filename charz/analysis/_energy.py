"""Energy per request, window statistics, and the Power Budget (003 §5.1.1, §7).

Energy is the integral of current times voltage.  003 multiplies by a fixed 5 V;
charz uses a measured voltage channel when the bench has one, and otherwise the
rail voltage the user gave (or assumed), and says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowStats:
    """Joulescope-style statistics of one stretch of samples."""

    avg_a: float
    std_a: float
    min_a: float
    max_a: float
    p2p_a: float
    charge_c: float
    energy_j: float | None  # None when no voltage is known
    duration_s: float


def window_stats(current_a: np.ndarray, sample_interval_s: float, voltage_v=None) -> WindowStats:
    """Statistics over a window; ``voltage_v`` a float (rail) or an array (measured).

    Energy is Σ I·V·Δt — the rectangle sum every power tool uses.

    Example
    -------
    >>> s = window_stats(np.full(1000, 0.2), 1e-6, 5.0)
    >>> round(s.charge_c, 9), round(s.energy_j, 9), s.duration_s
    (0.0002, 0.001, 0.001)
    """
    i = np.asarray(current_a, dtype=np.float64)
    if i.size == 0:
        raise ValueError("an empty window has no statistics")
    dt = float(sample_interval_s)
    charge = float(i.sum() * dt)
    energy = None
    if voltage_v is not None:
        v = np.broadcast_to(np.asarray(voltage_v, dtype=np.float64), i.shape)
        energy = float(np.sum(i * v) * dt)
    return WindowStats(float(i.mean()), float(i.std()), float(i.min()), float(i.max()), float(i.max() - i.min()),
                       charge, energy, i.size * dt)


@dataclass(frozen=True)
class BudgetRow:
    packages: int
    peak_a: float


@dataclass(frozen=True)
class PowerBudget:
    """Peak current per number of busy packages, from the peak staircase (003 §7)."""

    rows: tuple[BudgetRow, ...]
    per_package_a: float  # least-squares slope of peak over busy packages
    base_a: float  # intercept: idle + controller

    def max_packages_within(self, budget_a: float) -> int:
        """The most packages that may program at once without the peak exceeding ``budget_a``."""
        fits = [r.packages for r in self.rows if r.peak_a <= budget_a]
        return max(fits) if fits else 0


def power_budget(levels_a: np.ndarray, packages_per_step: int) -> PowerBudget:
    """Tie each step level to the packages busy at it.

    Example
    -------
    003 Table 2's MXP: four steps of four packages each up to 400 mA.

    >>> b = power_budget(np.array([0.175, 0.25, 0.325, 0.40]), 4)
    >>> [r.packages for r in b.rows], round(b.per_package_a, 5), b.max_packages_within(0.3)
    ([4, 8, 12, 16], 0.01875, 8)
    """
    levels = np.asarray(levels_a, dtype=np.float64)
    if levels.size == 0 or packages_per_step < 1:
        raise ValueError("need step levels and at least one package per step")
    packages = packages_per_step * np.arange(1, levels.size + 1)
    if levels.size >= 2:
        slope, intercept = np.polyfit(packages, levels, 1)
    else:
        slope, intercept = float("nan"), float("nan")
    rows = tuple(BudgetRow(int(p), float(lv)) for p, lv in zip(packages, levels))
    return PowerBudget(rows, float(slope), float(intercept))

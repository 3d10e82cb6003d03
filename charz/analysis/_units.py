"""The write I/O unit from the duration staircase, where the peaks cannot show it.

When one I/O unit spans every package (003 Fig. 3c) the peak is M_peak from the
first page and there are no steps; but units are then programmed one after
another, so the request duration jumps each time the size crosses a multiple
of the unit, and inside a unit it shrinks as less has to be read for
read-modify-write.  Each candidate unit ``D`` is a linear model

    duration(u) = c0 + c1 · ceil(u / D) + c2 · (ceil(u / D) · D - u)

fitted to the per-size medians; the best BIC wins if it wins clearly and the
per-unit cost ``c1`` is significantly positive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._steps import summarize_sizes

DECISIVE = 10.0
SUGGESTIVE = 6.0


@dataclass(frozen=True)
class UnitFromDurations:
    unit_pages: int | None
    confidence: str
    reason: str
    per_unit_us: float | None = None
    scores: tuple[tuple[int, float], ...] = ()


def unit_from_durations(size_pages: np.ndarray, duration_s: np.ndarray) -> UnitFromDurations:
    """Find the unit from jumps in request duration.

    Example
    -------
    >>> u = np.repeat(np.arange(1, 17), 3)
    >>> d = (300 + 900 * np.ceil(u / 4) + 20 * (np.ceil(u / 4) * 4 - u)) * 1e-6
    >>> unit_from_durations(u, d + np.tile([1e-6, 0, -1e-6], 16)).unit_pages
    4
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(duration_s, dtype=np.float64) * 1e6)
    u = s.size_pages.astype(np.float64)
    if u.size < 4:
        return UnitFromDurations(None, UNDETERMINED, "fewer than four sizes")
    w = 1.0 / np.hypot(s.stderr, 2.0) ** 2  # 2 µs floor: edges are placed to a sample or so
    y = s.median
    results = []
    for d in range(1, int(u.max()) // 2 + 1):
        m = np.ceil(u / d)
        r = m * d - u
        cols = [np.ones_like(u), m] + ([r] if d > 1 else [])
        x = np.stack(cols, axis=1)
        sw = np.sqrt(w)
        coef, *_ = np.linalg.lstsq(x * sw[:, None], y * sw, rcond=None)
        chi2 = float(np.sum(w * (y - x @ coef) ** 2))
        cov = np.linalg.pinv((x * w[:, None]).T @ x)
        z = coef[1] / np.sqrt(max(cov[1, 1], 1e-30))
        results.append((chi2 + len(cols) * np.log(u.size), d, coef[1], z))
    results.sort()
    score, d, per_unit, z = results[0]
    scores = tuple((int(dd), float(sc)) for sc, dd, _, _ in results[:5])
    if z < 5 or per_unit <= 0:
        return UnitFromDurations(None, UNDETERMINED, "durations do not jump at any unit size", scores=scores)
    margin = results[1][0] - score if len(results) > 1 else np.inf
    why = f"duration jumps by {per_unit:.0f} µs every {d} pages; next best unit ({results[1][1]} pages) scores {margin:.0f} worse"
    if margin >= DECISIVE:
        return UnitFromDurations(d, HIGH, why, float(per_unit), scores)
    if margin >= SUGGESTIVE:
        return UnitFromDurations(d, MEDIUM, why, float(per_unit), scores)
    return UnitFromDurations(None, UNDETERMINED, why + " — not decisive", float(per_unit), scores)

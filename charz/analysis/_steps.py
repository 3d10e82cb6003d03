"""Steps of peak current over request size (003 §4.1, Fig. 3): N_step and D_step.

003 reads the staircase off a plot.  Here it is a model choice: every
candidate staircase with treads ``D`` pages wide and ``N`` levels — boundaries
at multiples of ``D``, levels free, the last level held to the largest size —
is fitted to the per-size median peaks, weighted by their standard errors
(estimated from the spread of repeats).  Candidates whose claimed rises are not
significant are discarded; the rest are ranked by a BIC-like score, and the
margin to the runner-up is the evidence.  A staircase whose last tread is not
confirmed by at least one size beyond where a further step would start is not
allowed to win, so a sweep that never reaches M_peak says so instead of
guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED

DECISIVE = 10.0  # score margin for a confident answer (≈ e^5 likelihood ratio)
SUGGESTIVE = 6.0
MIN_RISE_Z = 4.0  # a claimed step must rise this many standard errors
MISFIT_CHI2 = 4.0  # reduced χ² above which the best staircase does not explain the data
MAX_RESIDUAL_Z = 5.0  # a size this far from its tread's level is not explained by the staircase...
MAX_RESIDUAL_OF_RISE = 0.25  # ...unless it is within a quarter of the smallest claimed rise


@dataclass(frozen=True)
class SizeLevels:
    """Per-size summary of repeated captures."""

    size_pages: np.ndarray  # (S,) sorted unique sizes
    median: np.ndarray  # (S,)
    stderr: np.ndarray  # (S,) standard error of the median
    count: np.ndarray  # (S,)
    sigma: float  # pooled spread of one capture
    sigma_source: str  # "repeats" or "neighbouring sizes"


@dataclass(frozen=True)
class Staircase:
    tread_pages: int
    n_levels: int
    levels: np.ndarray
    chi2: float
    score: float
    min_rise_z: float


@dataclass(frozen=True)
class StepResult:
    """Outcome of :func:`fit_steps`; ``n_step``/``step_pages`` are None when undetermined."""

    n_step: int | None
    step_pages: int | None
    confidence: str
    reason: str
    best: Staircase | None
    runner_up: Staircase | None
    sizes: SizeLevels
    candidates: tuple[Staircase, ...] = field(default=())

    @property
    def m_peak(self) -> float | None:
        return None if self.best is None else float(self.best.levels[0])

    @property
    def M_peak(self) -> float | None:
        return None if self.best is None else float(self.best.levels[-1])

    @property
    def rises_after_pages(self) -> list[int]:
        if self.best is None:
            return []
        return [self.best.tread_pages * j for j in range(1, self.best.n_levels)]


def summarize_sizes(size_pages: np.ndarray, values: np.ndarray) -> SizeLevels:
    """Median, standard error and count per size, with a pooled robust σ of one capture.

    Example
    -------
    >>> s = summarize_sizes(np.array([1, 1, 1, 2, 2, 2]), np.array([1.0, 1.1, 0.9, 2.0, 2.1, 1.9]))
    >>> s.median.tolist(), s.count.tolist()
    ([1.0, 2.0], [3, 3])
    """
    size_pages = np.asarray(size_pages)
    values = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(values)
    size_pages, values = size_pages[ok], values[ok]
    if values.size == 0:
        raise ValueError("no finite values")
    sizes, inverse, counts = np.unique(size_pages, return_inverse=True, return_counts=True)
    order = np.argsort(inverse, kind="stable")
    groups = np.split(values[order], np.cumsum(counts)[:-1])
    med = np.array([np.median(g) for g in groups])
    resid = np.concatenate([g - m for g, m in zip(groups, med) if g.size >= 2] or [np.empty(0)])
    if resid.size >= 6:
        # MAD about each size's own median reads low for few repeats; √(n/(n-1)) undoes most of it.
        n_typ = np.median(counts[counts >= 2])
        sigma = 1.4826 * np.median(np.abs(resid)) * np.sqrt(n_typ / max(n_typ - 1, 1))
        source = "repeats"
    elif sizes.size >= 4:
        sigma = 1.4826 * np.median(np.abs(np.diff(med))) / np.sqrt(2)
        source = "neighbouring sizes"
    else:
        sigma = 0.0
        source = "none"
    scale = max(np.max(np.abs(med)), 1e-12)
    sigma = max(float(sigma), 1e-6 * scale)  # noise-free data still needs a finite σ
    stderr = 1.2533 * sigma / np.sqrt(counts)
    return SizeLevels(sizes, med, stderr, counts, sigma, source)


def _fit(sizes: np.ndarray, y: np.ndarray, w: np.ndarray, tread: int, n_levels: int) -> tuple[np.ndarray, float, float]:
    """Levels, χ² and the smallest rise in standard errors; an empty fit when the staircase
    leaves some size unexplained (then it cannot be the drive's, whatever its score)."""
    idx = np.minimum((sizes + tread - 1) // tread, n_levels) - 1
    wsum = np.bincount(idx, weights=w, minlength=n_levels)
    if np.any(wsum == 0):
        return np.empty(0), np.inf, -np.inf
    levels = np.bincount(idx, weights=w * y, minlength=n_levels) / wsum
    resid = y - levels[idx]
    chi2 = float(np.sum(w * resid**2))
    rises = np.diff(levels)
    tolerance = MAX_RESIDUAL_Z / np.sqrt(w)
    if n_levels > 1:
        tolerance = np.maximum(tolerance, MAX_RESIDUAL_OF_RISE * rises.min())
    if np.any(np.abs(resid) > tolerance):
        return np.empty(0), np.inf, -np.inf
    if n_levels == 1:
        return levels, chi2, np.inf
    se = 1.0 / np.sqrt(wsum)
    z = rises / np.hypot(se[1:], se[:-1])
    return levels, chi2, float(z.min())


def fit_steps(size_pages: np.ndarray, peak_a: np.ndarray) -> StepResult:
    """Find the staircase of peak current over request size.

    Parameters
    ----------
    size_pages : (m,) ints
        Request size of each capture, in pages (1 = one page).
    peak_a : (m,) floats
        Peak level of each capture (max of the w = 20 average); NaN = unusable capture.

    Examples
    --------
    Hand-made: 4 steps of 2 pages, swept to 12 pages, two repeats each.

    >>> sizes = np.repeat(np.arange(1, 13), 2)
    >>> level = 0.1 + 0.05 * np.minimum((sizes + 1) // 2, 4)
    >>> r = fit_steps(sizes, level + np.tile([0.001, -0.001], 12))
    >>> r.n_step, r.step_pages, r.confidence
    (4, 2, 'high')
    """
    s = summarize_sizes(size_pages, peak_a)
    sizes = s.size_pages.astype(np.int64)
    if sizes.size < 3:
        return StepResult(None, None, UNDETERMINED, "fewer than three request sizes with usable captures", None, None, s)
    if np.any(sizes < 1):
        raise ValueError("sizes must be whole pages >= 1")
    w = 1.0 / s.stderr**2
    y = s.median
    largest = int(sizes.max())
    penalty = np.log(sizes.size)
    cands: list[Staircase] = []
    for tread in range(1, largest + 1):
        max_levels = 1 if tread >= largest else (largest - 1) // tread  # a size must lie beyond the last tread's end
        for n_levels in range(1, max_levels + 1):
            levels, chi2, zmin = _fit(sizes, y, w, tread, n_levels)
            if not levels.size or zmin < MIN_RISE_Z:
                continue
            if n_levels == 1 and tread != 1:
                continue  # a flat line is one candidate, not one per tread
            cands.append(Staircase(tread, n_levels, levels, chi2, chi2 + n_levels * penalty, zmin))
    if not cands:
        why = (
            "the peak is still rising at the largest size: the sweep never reaches M_peak; extend it"
            if _still_rising(sizes, y, s.stderr)
            else "no staircase of equal-width steps explains the peaks"
        )
        return StepResult(None, None, UNDETERMINED, why, None, None, s)
    cands.sort(key=lambda c: c.score)
    best = cands[0]
    runner = cands[1] if len(cands) > 1 else None
    dof = max(sizes.size - best.n_levels, 1)
    reduced = best.chi2 / dof
    margin = np.inf if runner is None else runner.score - best.score
    top = tuple(cands[:6])
    if reduced > MISFIT_CHI2 and sizes.size - best.n_levels >= 3:
        still_rising = _still_rising(sizes, y, s.stderr)
        why = (
            "the peak is still rising at the largest size: the sweep never reaches M_peak; extend it"
            if still_rising
            else f"no equal-width staircase explains the peaks (reduced χ² {reduced:.1f})"
        )
        return StepResult(None, None, UNDETERMINED, why, best, runner, s, top)
    if margin >= DECISIVE:
        conf = HIGH
    elif margin >= SUGGESTIVE:
        conf = MEDIUM
    else:
        why = (
            f"{best.n_levels} steps of {best.tread_pages} pages and {runner.n_levels} steps of "
            f"{runner.tread_pages} pages fit almost equally well (margin {margin:.1f}); add repeats or reduce noise"
        )
        return StepResult(None, None, UNDETERMINED, why, best, runner, s, top)
    why = (
        f"{best.n_levels} levels, boundaries every {best.tread_pages} pages; smallest rise {best.min_rise_z:.0f} σ; "
        + ("no other staircase fits" if runner is None else f"next best ({runner.n_levels} × {runner.tread_pages}) scores {margin:.0f} worse")
    )
    return StepResult(best.n_levels, best.tread_pages, conf, why, best, runner, s, top)


def _still_rising(sizes: np.ndarray, y: np.ndarray, se: np.ndarray) -> bool:
    k = max(2, sizes.size // 8)
    hi, lo = y[-k:].mean(), y[-2 * k : -k].mean()
    return bool(hi - lo > 4 * np.hypot(se[-k:].mean() / np.sqrt(k), se[-2 * k : -k].mean() / np.sqrt(k)))

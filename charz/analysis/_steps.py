"""Steps of peak current over request size (003 §4.1, Fig. 3): N_step and D_step.

003 reads the staircase off a plot.  Here it is a model choice.  Every
candidate staircase — treads ``D`` pages wide, ``N`` free levels, boundaries
at multiples of ``D``, the last level held to the largest size — is fitted to
the per-size median peaks, weighted by their standard errors from the repeats.
Sizes on one tread also differ a little for reasons the repeats cannot show
(how read-modify-write shifts the programs, how the ISPP pulses of different
packages line up), so each candidate's residual scatter sets its own noise
scale, never below the repeats' (a Gaussian fit with unknown variance).

A candidate can win only if it is

* **clean**: every size sits within 45 % of the smallest step of its
  tread's level, and the scatter is small beside the steps;
* **significant**: every step rises ≥ 4 standard errors (on the candidate's scale);
* **confirmed**: at least one size lies past where a further step would start,
  so a sweep that never reaches M_peak says so instead of guessing.

Among those, a BIC score (χ² at one common noise scale + N·ln S) ranks; the margin
to the runner-up is the evidence.  A clean staircase with steps at the noise
level that scores clearly better makes the answer undetermined, as does a flat
line whose flatness the noise could fake.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._saturation import EVEN_HIGH, steps_even

DECISIVE = 10.0  # score margin for a confident answer (≈ e^5 likelihood ratio)
SUGGESTIVE = 6.0
MIN_RISE_Z = 4.0  # a claimed step must rise this many standard errors
SUGGESTIVE_RISE_Z = 2.0  # a clean staircase with steps this weak means structure may hide in the noise
RESOLVE_Z = 3.0  # steps a finer staircase would have must clear this, or the noise could have merged them
CLEAN_OF_RISE = 0.45  # no size may sit farther than this share of the smallest step from its level
RIVAL_OF_RISE = 0.75  # a staircase this close to clean still counts as a rival to the answer
PRIOR_DOF = 4.0  # weight of the repeats' own noise estimate against a candidate's scatter
# A rise at the top smaller than this share of the median rise below it is not a unit's
# packages starting: packages differ by ±15 %, so a unit's step is never half another's.  It
# is the pages of the next units moving over the channels while every package of the top
# programs (cache program: transfer current, not program current).
SMALL_TOP = 0.5
RAMP_EVEN = 0.5  # per-page rises of a one-page staircase lie within this share of their median


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
    clean: bool = True  # every size within CLEAN_OF_RISE of a step from its level


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
    # The tread was read from steps seen inside every tread of a wider staircase (≥ 4 σ):
    # each tread raises the peak, so it is the unit even where the durations pair units up.
    finer_shown: bool = False
    # False when staircases of this tread but another level count fit about as well: programs
    # that overlap only in part blur the top, yet every unit still rose at the same width.
    count_sure: bool = True

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
    grouped = values[order]
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    med = np.empty(sizes.size)
    pairs = []
    # Sizes with the same number of repeats as one (sizes × repeats) block: one median and
    # one set of pair differences per block, not per size (a sweep has one or two blocks).
    for c in np.unique(counts):
        which = np.flatnonzero(counts == c)
        block = grouped[first[which][:, None] + np.arange(c)]
        med[which] = np.median(block, axis=1)
        if c >= 2:
            # σ of one capture from differences between repeats of the same size: unlike the MAD
            # about each size's own median, it is not biased low for a handful of repeats
            # (0.82 σ for five), and it tolerates one odd capture per size.
            i, j = np.triu_indices(c, 1)
            pairs.append(np.abs(block[:, i] - block[:, j]).ravel())
    pairs = np.concatenate(pairs) if pairs else np.empty(0)
    if pairs.size >= 6:
        sigma = np.median(pairs) / (0.6745 * np.sqrt(2))
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


def _fit(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, tread: int, n_levels: int) -> Staircase | None:
    """Fit one candidate; None when it is not even a plausible rival, ``clean=False`` when it
    could be a rival but cannot be the answer."""
    idx = np.minimum((sizes + tread - 1) // tread, n_levels) - 1
    w = 1.0 / se**2
    wsum = np.bincount(idx, weights=w, minlength=n_levels)
    if np.any(wsum == 0):
        return None
    levels = np.bincount(idx, weights=w * y, minlength=n_levels) / wsum
    resid = y - levels[idx]
    rss = float(np.sum(w * resid**2))
    dof = sizes.size - n_levels
    # Noise scale: the repeats' SE, or the scatter if larger.  With few sizes per tread the
    # scatter itself is poorly known, so it is shrunk towards the repeats' scale (PRIOR_DOF).
    scale = max(1.0, np.sqrt((rss + PRIOR_DOF) / (dof + PRIOR_DOF)))
    if n_levels == 1:
        # Flat: judged on the repeats' own noise; with its own scatter as the yardstick a
        # flat line would "explain" any staircase.
        zmin = np.inf
        if np.any(np.abs(resid) > 5 * se):
            return None
    else:
        rises = np.diff(levels)
        smallest = float(rises.min())
        # Sizes at the same place inside their unit differ alike in every tread (how much
        # read-modify-write there is shifts the programs): that shared pattern is the
        # drive's, not a misfit, so cleanliness is judged after taking it out.
        pos = (sizes - 1) % tread
        if tread > 1 and n_levels > 1:
            shared = np.bincount(pos, weights=w * resid, minlength=tread) / np.maximum(np.bincount(pos, weights=w, minlength=tread), 1e-300)
            resid_clean = resid - shared[pos]
        else:
            resid_clean = resid
        worst = float(np.abs(resid_clean).max()) / smallest if smallest > 0 else np.inf
        if worst > RIVAL_OF_RISE:
            return None
        level_se = scale / np.sqrt(wsum)
        zmin = float((rises / np.hypot(level_se[1:], level_se[:-1])).min())
        score = sizes.size * np.log(max(rss / sizes.size, 1.0))
        return Staircase(tread, n_levels, levels, rss, score, zmin, clean=worst <= CLEAN_OF_RISE)
    score = sizes.size * np.log(max(rss / sizes.size, 1.0))
    return Staircase(tread, n_levels, levels, rss, score, zmin)


def fit_steps(size_pages: np.ndarray, peak_a: np.ndarray, *, n_package: int | None = None, idle_a: float | None = None) -> StepResult:
    """Find the staircase of peak current over request size.

    Parameters
    ----------
    size_pages : (m,) ints
        Request size of each capture, in pages (1 = one page).
    peak_a : (m,) floats
        Peak level of each capture (max of the w = 20 average); NaN = unusable capture.
    n_package, idle_a : optional
        With them, "no steps at all" can be told from "steps hidden in the noise"; without
        them a flat result stays undetermined.

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
    y, se = s.median, s.stderr
    largest = int(sizes.max())
    penalty = np.log(sizes.size)  # BIC; spurious splits are kept out by MIN_RISE_Z, not by the penalty
    cands: list[Staircase] = []
    for tread in range(1, largest + 1):
        max_levels = 1 if tread >= largest else (largest - 1) // tread  # a size must lie beyond the last tread's end
        if n_package:
            # A step is one more package busy (a package's dies do not add, 003 §4.1): a
            # staircase of more levels than packages is ripple or overlap, not the drive.
            max_levels = min(max_levels, int(n_package))
        for n_levels in range(1, max_levels + 1):
            if n_levels == 1 and tread != 1:
                continue  # a flat line is one candidate, not one per tread
            c = _fit(sizes, y, se, tread, n_levels)
            if c is not None:  # score here: Gaussian likelihood with the candidate's own scale
                cands.append(Staircase(c.tread_pages, c.n_levels, c.levels, c.chi2, c.score + n_levels * penalty,
                                       c.min_rise_z, c.clean))
    valid = [c for c in cands if c.min_rise_z >= MIN_RISE_Z and c.clean]
    if not valid:
        return _no_valid_staircase(sizes, y, se, s, cands, n_package)
    # One noise scale for the comparison: the smallest any plausible staircase needs (never
    # below the repeats').  A staircase that merges real steps must not get to widen the
    # yardstick it is measured with; and a noisy flat line cannot hide behind its own scatter.
    plausible = [c for c in cands if c.min_rise_z >= SUGGESTIVE_RISE_Z and c.clean]
    scale2 = min(max(1.0, (c.chi2 + PRIOR_DOF) / (sizes.size - c.n_levels + PRIOR_DOF)) for c in plausible)
    cands = sorted(
        (Staircase(c.tread_pages, c.n_levels, c.levels, c.chi2, c.chi2 / scale2 + c.n_levels * penalty, c.min_rise_z, c.clean)
         for c in cands),
        key=lambda c: c.score,
    )
    valid = [c for c in cands if c.min_rise_z >= MIN_RISE_Z and c.clean]
    if valid[0].n_levels > 1 and _last_tread_rises(sizes, y, valid[0]):
        why = "the peak is still rising at the largest size: the sweep never reaches M_peak; extend it"
        # A ramp of one-page steps shows its tread all the same (each page one more package);
        # only its count waits for the top.
        ramp = _as_ramp(why, s, n_package, valid[0], None, tuple(valid[:6]))
        if ramp is not None:
            # ... unless the ramp reached the packages: there are no more to start
            return replace(ramp, count_sure=ramp.n_step == n_package)
        if n_package and valid[0].n_levels == n_package:
            return _top_at_every_package(_decide(sizes, y, se, s, cands, valid, n_package, idle_a), valid[0], why)
        return StepResult(None, None, UNDETERMINED, why, valid[0], None, s, tuple(valid[:6]))
    return _decide(sizes, y, se, s, cands, valid, n_package, idle_a)


def _top_at_every_package(r: StepResult, stair: Staircase, why: str) -> StepResult:
    """A staircase of as many levels as packages whose last tread still rises: every package
    has its step (a step is one more package busy, never more levels than packages), so the
    top is reached and the rise past it is no package's — cache program moves the next
    unit's pages over the channels while every package programs, and their transfer current
    lifts the peak.  Medium at most (the top's level is blurred by that lift); where the
    staircase the data decide on is another one, the sweep's rising end stands (``why``)."""
    if r.n_step != stair.n_levels or r.step_pages != stair.tread_pages:
        return StepResult(None, None, UNDETERMINED, why, stair, None, r.sizes, r.candidates)
    note = (f"; the last tread still rises, but {stair.n_levels} levels are one per package: every package is busy "
            "at the top, and the rise past it is the next unit's transfers while they program")
    return replace(r, confidence=MEDIUM if r.confidence == HIGH else r.confidence, reason=r.reason + note)


def _decide(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, s: SizeLevels, cands: list, valid: list,
            n_package: int | None, idle_a: float | None) -> StepResult:
    """The staircase the valid candidates (clean, significant steps; best first) decide on,
    or why none: rivals, finer steps, a flat line the noise could fake, small top rises."""
    best = valid[0]
    runner, margin, no_units = _runner_up(cands, best, se)
    top = tuple(valid[:6])
    hidden = next((c for c in cands if SUGGESTIVE_RISE_Z <= c.min_rise_z < MIN_RISE_Z and c.clean), None)
    if hidden is not None and hidden.score < best.score - SUGGESTIVE:
        return _weak_rival_fits_better(hidden, best, runner, cands, s, top, n_package)
    if best.n_levels == 1:
        # "No steps" is a strong claim (003 Fig. 3c: one unit spans every package); make it only
        # when a step of the smallest plausible height would have stood out of the noise.
        rise_floor = _smallest_plausible_step(y - (idle_a or 0.0), n_package)
        scatter = float(np.abs(y - best.levels[0]).max())
        if rise_floor is None or rise_floor < MIN_RISE_Z * np.sqrt(2) * float(se.max()) or scatter > rise_floor / 2:
            why = "the peaks look flat, but the noise could hide steps of one package; add repeats or reduce noise"
            return StepResult(None, None, UNDETERMINED, why, best, runner, s, top)
    if best.n_levels > 1 and best.tread_pages > 1:
        # Could this be a staircase of narrower treads whose steps the noise merged in pairs
        # (or threes)?  If so, each tread's first narrow sub-tread would sit a finer step
        # below the next one.  Test that directly on every tread, with the spread of those
        # differences across treads as the yardstick, so per-size quirks do not count as noise.
        ruled_out, detail, shown = _finer_ruled_out(sizes, y, se, best)
        finer = _finer_candidate(cands, best)
        wider = best
        while not ruled_out and shown >= MIN_RISE_Z and finer is not None:
            # The narrower steps are not merely possible, they are there — in every tread, well
            # out of the noise; the wider staircase only won because per-package spread made
            # the narrow steps uneven (003's drives differ by ±15 % per package).  The narrower
            # staircase must then pass the same test in its turn.
            why = (f"{finer.n_levels} levels, boundaries every {finer.tread_pages} pages: {detail}, "
                   f"{shown:.0f} σ in every tread, so each {wider.tread_pages}-page tread is "
                   f"{wider.tread_pages // finer.tread_pages} steps")
            if finer.tread_pages == 1:
                return StepResult(finer.n_levels, finer.tread_pages, MEDIUM, why, finer, best, s, top, finer_shown=True)
            wider = finer
            ruled_out, detail, shown = _finer_ruled_out(sizes, y, se, wider)
            finer = _finer_candidate(cands, wider)
            if ruled_out:
                return StepResult(wider.n_levels, wider.tread_pages, MEDIUM, why, wider, best, s, top, finer_shown=True)
        if not ruled_out and finer is None:
            # No clean staircase of the finer steps is among the candidates (more levels than
            # packages were allowed, or the top creeps): a ramp of equal per-page rises is the
            # one-page staircase's own shape.
            ramp = _as_ramp(f"{best.n_levels} steps of {best.tread_pages} pages fit, but {detail}", s, n_package,
                            best, runner, top)
            if ramp is not None:
                return ramp
        if not ruled_out:
            why = f"{best.n_levels} steps of {best.tread_pages} pages fit, but {detail}; add repeats or reduce noise"
            return StepResult(None, None, UNDETERMINED, why, best, runner, s, top)
    rival = "no other staircase fits" if runner is None else f"next best ({runner.n_levels} × {runner.tread_pages}) scores {margin:.0f} worse"
    if margin < 0:
        why = (
            f"{runner.n_levels} steps of {runner.tread_pages} pages fit the peaks better than {best.n_levels} × "
            f"{best.tread_pages}, though some sizes sit far from its levels; add repeats or sizes"
        )
        return _count_unsure(why, best, runner, s, top, cands, n_package)
    if margin < SUGGESTIVE:
        why = (
            f"{best.n_levels} steps of {best.tread_pages} pages and {runner.n_levels} steps of "
            f"{runner.tread_pages} pages fit almost equally well (margin {margin:.1f}); add repeats or reduce noise"
        )
        return _count_unsure(why, best, runner, s, top, cands, n_package)
    # A better-scoring rival set aside by physics, not by the data's margin: medium at most.
    conf = HIGH if margin >= DECISIVE and not no_units else MEDIUM
    trimmed = _without_small_top(best, cands)
    if trimmed is not None:
        # The tread is as sure as its margin over staircases of other treads; the count rests
        # on the trimming alone, which the caller weighs (the top's check, the rise).
        other = next((c for c in cands if c.tread_pages != best.tread_pages and c.min_rise_z >= MIN_RISE_Z), None)
        tread_margin = np.inf if other is None else other.score - best.score
        why = (f"{trimmed.n_levels} levels, boundaries every {trimmed.tread_pages} pages; {_small_top_why(best, trimmed)}; "
               + ("no staircase of another tread fits" if other is None else
                  f"the best of another tread ({other.n_levels} × {other.tread_pages}) scores {tread_margin:.0f} worse"))
        return StepResult(trimmed.n_levels, trimmed.tread_pages, HIGH if tread_margin >= DECISIVE else MEDIUM, why,
                          trimmed, best, s, top)
    if best.n_levels == 1:
        why = "flat: no size raises the peak above the first; " + rival
    else:
        why = f"{best.n_levels} levels, boundaries every {best.tread_pages} pages; smallest rise {best.min_rise_z:.0f} σ; {rival}"
    if no_units:
        why = f"{why}; {no_units}"
    return StepResult(best.n_levels, best.tread_pages, conf, why, best, runner, s, top)


def _runner_up(cands: list, best: Staircase, se: np.ndarray) -> tuple[Staircase | None, float, str]:
    """The best's rival (any other staircase with significant steps: a narrowly unclean one
    may be the truth with one odd size), its score margin, and why a better-scoring unclean
    rival was set aside as no staircase of units (:func:`_not_units`), or ""."""
    runner = next((c for c in cands if c is not best and c.min_rise_z >= MIN_RISE_Z), None)
    margin = np.inf if runner is None else runner.score - best.score
    no_units = ""
    if margin < 0 and not runner.clean and best.n_levels > 1:
        no_units = _not_units(runner, se)
        if no_units:
            runner = next((c for c in cands if c is not best and c.min_rise_z >= MIN_RISE_Z
                           and (c.clean or not _not_units(c, se))), None)
            margin = np.inf if runner is None else runner.score - best.score
    return runner, margin, no_units


def _not_units(c: Staircase, se: np.ndarray) -> str:
    """Why an unclean staircase ``c`` is no staircase of units, or "".

    Each of a unit staircase's steps is one more unit's packages starting to program; packages
    differ by ±15 %, and units that overlap only in part make the LATER steps smaller, never
    larger.  A rise followed by one more than :data:`~charz.analysis._saturation.EVEN_HIGH`
    times it (by :data:`RESOLVE_Z` standard errors) is therefore no unit's packages: it is
    current inside a unit — the host link or channel transfers of the next pages while the
    first packages program — which the staircase cut at a size between two real steps.
    """
    rises = np.diff(np.asarray(c.levels, dtype=np.float64))
    # standard error of one level: the sizes' own, pooled over a tread
    se_level = float(np.median(se)) / np.sqrt(max(c.tread_pages, 1))
    for j in range(1, rises.size):
        i = int(np.argmin(rises[:j]))
        excess = rises[j] - EVEN_HIGH * rises[i]
        if excess > RESOLVE_Z * se_level * np.sqrt(2.0 * (1.0 + EVEN_HIGH**2)):
            return (f"{c.n_levels} steps of {c.tread_pages} pages fit the peaks better, but rise "
                    f"{rises[i] * 1e3:.0f} mA before {rises[j] * 1e3:.0f} mA: a step that small before a "
                    "larger one is current inside a unit (host or channel transfers), not a unit's packages")
    return ""


def _weak_rival_fits_better(hidden: Staircase, best: Staircase, runner, cands: list, s: SizeLevels,
                            top: tuple, n_package: int | None) -> StepResult:
    """A staircase whose smallest step is only suggestive fits better than the best clear one."""
    why = (
        f"{hidden.n_levels} steps of {hidden.tread_pages} pages fit better than {best.n_levels} × "
        f"{best.tread_pages}, but its smallest step is only {hidden.min_rise_z:.1f} σ; add repeats or reduce noise"
    )
    if hidden.tread_pages == best.tread_pages and best.n_levels > 1:
        if hidden.n_levels > best.n_levels and _without_small_top(hidden, cands) is best:
            # The weak staircase only adds small rises at the top (each under half a unit's
            # step): transfers while every package of the top programs, not more units.
            why = (f"{best.n_levels} levels, boundaries every {best.tread_pages} pages; "
                   f"{_small_top_why(hidden, best)}; smallest rise {best.min_rise_z:.0f} σ")
            return StepResult(best.n_levels, best.tread_pages, MEDIUM, why, best, runner, s, top)
        return _tread_stands(f"{why}; both rise every {best.tread_pages} pages", best, runner, s, top)
    # A weak staircase of another tread: the peaks may still be a ramp of one-page steps
    # whose top creeps (the one-page staircase then has a weak last step).
    return _as_ramp(why, s, n_package, best, runner, top) or StepResult(None, None, UNDETERMINED, why, best,
                                                                        runner, s, top)


def _no_valid_staircase(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, s: SizeLevels, cands: list,
                        n_package: int | None) -> StepResult:
    """No clean staircase with significant steps: why not — or a ramp of one-page steps,
    which no staircase candidate may be (:func:`_as_ramp`)."""
    cands.sort(key=lambda c: c.score)
    unclean = next((c for c in cands if c.min_rise_z >= MIN_RISE_Z), None)
    if _still_rising(sizes, y, se):
        why = "the peak is still rising at the largest size: the sweep never reaches M_peak; extend it"
    elif unclean is not None:
        why = (f"the closest staircase ({unclean.n_levels} × {unclean.tread_pages} pages) leaves some sizes far "
               "from its levels: the peaks do not follow equal-width steps cleanly")
    elif cands:
        why = f"no staircase with significant steps (best: {cands[0].n_levels} × {cands[0].tread_pages} pages, smallest step {cands[0].min_rise_z:.1f} σ); add repeats or reduce noise"
    else:
        why = "no staircase of equal-width steps explains the peaks"
    # A sweep that never reaches M_peak says so, ramp or not, unless the ramp reached every
    # package given (a one-page step each: no package is left to raise the peak further, so
    # what rises past them is the next pages' transfers); a ramp decides only where the
    # staircases are merely unclean.
    ramp = _as_ramp(why, s, n_package, cands[0] if cands else None, None, tuple(cands[:6]))
    if ramp is not None and ramp.n_step != n_package and _still_rising(sizes, y, se):
        ramp = None
    return ramp or StepResult(None, None, UNDETERMINED, why, cands[0] if cands else None, None, s, tuple(cands[:6]))


def _count_unsure(why: str, best: Staircase, runner: Staircase, s: SizeLevels, top, cands,
                  n_package: int | None = None) -> StepResult:
    """Undetermined, unless every close rival has the same tread: then the tread stands (each
    unit rose at it) and only the level count is in doubt."""
    close = [c for c in cands if c is not best and c.min_rise_z >= MIN_RISE_Z and c.score - best.score < SUGGESTIVE]
    if best.n_levels > 1 and close and all(c.tread_pages == best.tread_pages for c in close):
        # Every close rival is the same staircase with more levels, each extra one a small
        # top rise (transfers, not packages) and the best of them trims to this one: the count stands.
        base = _without_small_top(best, cands) or best
        if all(c.n_levels > base.n_levels and _without_small_top(c, cands) is base for c in close if c is not base):
            why = (f"{base.n_levels} levels, boundaries every {base.tread_pages} pages; "
                   + "; ".join(_small_top_why(c, base) for c in close if c is not base))
            return StepResult(base.n_levels, base.tread_pages, MEDIUM, why, base, runner, s, top)
        return _tread_stands(f"{why}; every close fit rises every {best.tread_pages} pages", best, runner, s, top)
    # Staircases of wider treads may compete only because the top creeps (transfers while
    # every package programs); the peaks themselves may rise by one package with every page.
    return _as_ramp(why, s, n_package, best, runner, top) or StepResult(None, None, UNDETERMINED, why, best, runner, s, top)


def _as_ramp(why: str, s: SizeLevels, n_package: int | None, best, runner, top) -> StepResult | None:
    """The one-page staircase, where the peaks are a ramp of one-page steps
    (:func:`_one_page_ramp`) and the staircase fit could not decide (``why``); None otherwise.
    The count stands only where the ramp's end is its top (:func:`_flat_after`)."""
    ramp = _one_page_ramp(s.size_pages.astype(np.int64), s.median, s.stderr, n_package)
    if ramp is None:
        return None
    k, rise = ramp
    flat = _flat_after(s.median, k, rise)
    every = bool(n_package) and k == n_package
    if every:
        # One-page steps up to the packages given: every package has its step (there are no
        # more to start), so the count stands whatever the peak does past it.
        text = (f"the peak rises {rise * 1e3:.0f} mA with every page up to the {k} packages given: one-page "
                f"steps, each one more package, to every package busy; what it does past {k} pages is no "
                "package's (the next pages' transfers while every package programs)")
    else:
        text = (f"the peak rises {rise * 1e3:.0f} mA with every page up to {k} pages, then "
                + ("by less than half that per page: one-page steps, each one more package" if flat else
                   "still by steps or unmeasured: one-page steps, their count unsure"))
    text += f" (the staircase fit: {why})"
    return StepResult(k, 1, MEDIUM, text, _ramp_staircase(s.median, k), best, s, top, finer_shown=True,
                      count_sure=flat or every)


def _ramp_staircase(y: np.ndarray, pages: int) -> Staircase:
    """The one-page staircase a ramp is: a level per page, the last held to the largest size."""
    y = np.asarray(y, dtype=np.float64)
    levels = np.r_[y[: pages - 1], np.median(y[pages - 1:])]
    return Staircase(1, pages, levels, float("nan"), float("nan"), float("nan"), clean=False)


def _flat_after(y: np.ndarray, pages: int, rise: float) -> bool:
    """No rise past the first ``pages`` sizes (a sweep from 1 page in steps of one) is as
    much as :data:`SMALL_TOP` of a one-page step: the ramp's end is its top."""
    after = np.diff(np.asarray(y, dtype=np.float64)[pages - 1:])
    return bool(after.size >= 2 and np.all(after < SMALL_TOP * rise))


def _small_top_count(levels: np.ndarray) -> int:
    """How many rises at the top are each less than :data:`SMALL_TOP` of the median rise
    below them (at least one rise stays below to compare with)."""
    rises = np.diff(np.asarray(levels, dtype=np.float64))
    n = 0
    while rises.size - n >= 2:
        body = rises[: rises.size - n - 1]
        med = float(np.median(body))
        if not (med > 0 and rises[rises.size - n - 1] < SMALL_TOP * med):
            break
        n += 1
    return n


def _without_small_top(best: Staircase, cands) -> Staircase | None:
    """The same staircase without its small top rises (:data:`SMALL_TOP`), if it is among the
    candidates with significant steps; None when there is nothing to trim."""
    cut = _small_top_count(best.levels) if best.n_levels >= 3 else 0
    if not cut:
        return None
    return next((c for c in cands if c.tread_pages == best.tread_pages and c.n_levels == best.n_levels - cut
                 and c.min_rise_z >= MIN_RISE_Z and bool(np.all(np.diff(c.levels) > 0))), None)


def _small_top_why(best: Staircase, trimmed: Staircase) -> str:
    rises = np.diff(best.levels)
    small = rises[trimmed.n_levels - 1:]
    return (f"the top {'rise' if small.size == 1 else 'rises'} of "
            + ", ".join(f"{r * 1e3:.0f}" for r in small)
            + f" mA after {trimmed.n_levels} levels {'is' if small.size == 1 else 'are'} less than half the "
              f"{float(np.median(rises[:trimmed.n_levels - 1])) * 1e3:.0f} mA of each step below: transfers "
              "while every package of the top programs, not another unit's packages")


def _one_page_ramp(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, n_package: int | None) -> tuple[int, float] | None:
    """(pages, rise per page) of a staircase of one-page steps from the first size: the peak
    rises by about the same amount (within :data:`RAMP_EVEN`) at every page, each rise
    ≥ 4 standard errors, odd and even pages alike (two-page treads would alternate), at
    least four pages.  A ramp longer than the packages is cut at them where every rise past
    them is smaller than its typical one (then ``pages == n_package``).  None when the peaks
    are not that.

    Example
    -------
    Five packages, 20 mA a page, then the next pages' transfers lift 12 mA and 11 mA (over half
    a step each, so they pass as ramp steps until cut at the packages):

    >>> y = np.array([100.0, 120, 140, 160, 180, 192, 203]) * 1e-3
    >>> pages, rise = _one_page_ramp(np.arange(1, 8), y, np.full(7, 1e-3), 5)
    >>> pages, round(rise * 1e3)
    (5, 20)
    """
    gaps = np.flatnonzero(sizes != sizes[0] + np.arange(sizes.size))  # the ramp needs every page size
    last = int(gaps[0]) if gaps.size else sizes.size
    if sizes[0] != 1 or last < 5:
        return None
    d = np.diff(y[:last])
    noise = MIN_RISE_Z * np.hypot(se[1:last], se[: last - 1])
    k = 0
    while k < d.size and d[k] > noise[k]:
        k += 1
    while k >= 4:
        run = d[:k]
        med = float(np.median(run))
        if np.all(np.abs(run - med) <= RAMP_EVEN * med):
            break
        k -= 1
    if k < 4:
        return None
    if n_package and k + 1 > n_package:
        # More pages rise than there are packages: one-page steps stop at every package busy
        # (a step is one more package, 003 §4.1), so the rises past the packages are no
        # package's — cache program moves the next pages over the channels while every
        # package programs, and their transfer current lifts the peak by part of a step.  The
        # ramp is its first ``n_package`` pages, which must be a ramp on their own, and every
        # rise past them must be smaller than the ramp's typical one (a transfer draws 30–60 %
        # of a package's program current; equal rises on and on would be no packages at all).
        k = int(n_package) - 1
        if k < 4 or not _ramp_alike(d[:k]) or np.any(d[k:] >= float(np.median(d[:k]))):
            return None
    elif not _ramp_alike(d[:k]):
        return None
    return k + 1, float(np.median(d[:k]))


def _ramp_alike(run: np.ndarray) -> bool:
    """Rises alike (within :data:`RAMP_EVEN` of their median) and odd and even pages alike
    (two-page treads would alternate a step and nothing)."""
    med = float(np.median(run))
    return bool(med > 0 and np.all(np.abs(run - med) <= RAMP_EVEN * med)
                and abs(float(run[0::2].mean()) - float(run[1::2].mean())) <= 0.25 * med)


def _tread_stands(why: str, best: Staircase, runner: Staircase, s: SizeLevels, top) -> StepResult:
    """The tread stands (each unit rose at it), the level count is in doubt: medium."""
    return StepResult(best.n_levels, best.tread_pages, MEDIUM, f"{why}, so the tread stands", best, runner, s, top,
                      count_sure=False)


def _finer_ruled_out(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, best: Staircase) -> tuple[bool, str, float]:
    """Whether narrower treads are ruled out, why, and how many standard errors the
    narrower steps the data do show stand above zero (every tread's, pooled)."""
    tread = best.tread_pages
    p = _smallest_prime_factor(tread)
    d = tread // p
    finer_rise = float(np.diff(best.levels).min()) / p
    level_of = dict(zip(sizes.tolist(), y.tolist()))
    diffs, treads = [], []
    for j in range(best.n_levels):
        lo = [level_of.get(j * tread + i) for i in range(1, d + 1)]
        hi = [level_of.get(j * tread + d + i) for i in range(1, d + 1)]
        if None in lo or None in hi:
            continue
        diffs.append(np.mean(hi) - np.mean(lo))
        treads.append(j)
    if not diffs:
        return False, "no tread is measured densely enough to rule out narrower steps", 0.0
    diffs = np.asarray(diffs)
    se_tread = float(np.median(se)) * np.sqrt(2.0 / d)
    se_repeat = se_tread / np.sqrt(diffs.size)
    se_spread = float(np.std(diffs, ddof=1)) / np.sqrt(diffs.size) if diffs.size >= 3 else 0.0
    se_mean = max(se_repeat, se_spread)
    gap = (finer_rise - float(diffs.mean())) / se_mean
    detail = (
        f"steps of {d} pages ({finer_rise * 1e3:.1f} mA each) would show inside each tread; "
        f"the data put them at {diffs.mean() * 1e3:.1f} ± {se_mean * 1e3:.1f} mA"
    )
    shown = float(diffs.mean()) / se_mean if bool(np.all(diffs > 0)) else 0.0
    if gap >= RESOLVE_Z:
        return True, detail, shown
    absent = _finer_absent_in_a_tread(best, diffs, treads, se_tread, p)
    if absent:
        return True, f"{detail}, but {absent}", shown
    return False, detail, shown


def _finer_absent_in_a_tread(best: Staircase, diffs: np.ndarray, treads: list[int], se_tread: float, p: int) -> str:
    """Why one tread alone rules the finer steps out, or "".

    Where every step of the staircase is alike (:func:`~charz.analysis._saturation.steps_even`:
    each is a unit's packages starting), a finer staircase would put a step of about
    1/p of the rise out of each tread inside it — at least half that, as packages differ by
    ±20 %.  A tread below the top (one the peak rises out of) whose inside rise stays under
    half of it by :data:`RESOLVE_Z` standard errors has no such step.  The pooled test can
    miss it when one tread rises inside for another reason: the host link's DMA current
    (the request's data still crossing it while the first unit's packages program) lifts
    the first tread's larger sizes only.  The top tread is not used (the finer staircase's
    own top may lie inside it), nor uneven staircases (a rise that is no unit's: host or
    transfer current)."""
    if best.n_levels < 3 or not steps_even(best.levels)[0]:
        return ""
    rises = np.diff(best.levels)
    for dj, j in zip(diffs.tolist(), treads):
        if j < best.n_levels - 1 and dj + RESOLVE_Z * se_tread < 0.5 * float(rises[j]) / p:
            lo, hi = j * best.tread_pages + 1, (j + 1) * best.tread_pages
            return (f"tread {j + 1} ({lo}–{hi} pages) rises {dj * 1e3:.1f} ± {se_tread * 1e3:.1f} mA inside, where "
                    f"they would add about {float(rises[j]) / p * 1e3:.0f} mA (1/{p} of the {float(rises[j]) * 1e3:.0f} mA "
                    "it rises by)")
    return ""


def _finer_step_above_first_tread(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, best: Staircase) -> str:
    """Why a finer unit's step shows inside every tread above the first, or "".

    A staircase's treads are units only if a write of part of a unit draws what the whole
    unit draws (it is padded, or reads the pages it lacks and rewrites the whole unit): 003
    reads the unit off the peaks on that premise, and :func:`_finer_ruled_out` tests it.  Its
    pooled test needs a finer staircase that fits every size, and the first tread cannot
    always give one: writes of less than one unit show no program level (on a drive that
    reads before it writes, the array-read current sets their peak, above or below the
    unit's).  Above the first tread every write holds whole units programming, so there a
    finer unit ``d`` (the tread over its smallest prime factor ``p``) shows as a rise between
    the tread's first ``d`` pages and the rest.  Where every tread above the first rises so
    by at least half the finer step (1/p of the rise into that tread) plus
    :data:`RESOLVE_Z` standard errors, and by :data:`MIN_RISE_Z` of them, the tread holds two
    units (datasheet dev seeds 740, 886: 2 treads of 8 pages read for 4 of 4, the top tread's
    last 4 pages 28–40 mA above its first 4 at σ ≈ 1 mA).  Abstains ("") with one level,
    a tread of one page, or a tread above the first not measured on both sides."""
    tread, n = best.tread_pages, best.n_levels
    if n < 2 or tread < 2:
        return ""
    p = _smallest_prime_factor(tread)
    d = tread // p
    rises = np.diff(best.levels)
    se_tread = float(np.median(se)) * np.sqrt(2.0 / d)
    shown = []
    for j in range(1, n):
        base = j * tread
        lo = (sizes > base) & (sizes <= base + d)
        hi = (sizes > base + d) & (sizes <= base + tread)
        if not lo.any() or not hi.any():
            return ""
        rise = float(y[hi].mean() - y[lo].mean())
        if rise < 0.5 * float(rises[j - 1]) / p + RESOLVE_Z * se_tread or rise < MIN_RISE_Z * se_tread:
            return ""
        shown.append(f"{rise * 1e3:.0f} mA past {base + d} pages")
    return (f"every tread above the first rises inside by a step of {d}-page units ({', '.join(shown)}; "
            f"±{se_tread * 1e3:.1f} mA, where a partial unit would draw the whole one's): each holds {p} units")


def _finer_candidate(cands, best: Staircase) -> Staircase | None:
    """The staircase with the next narrower treads and as many more levels, if it has real steps."""
    p = _smallest_prime_factor(best.tread_pages)
    tread, at_least = best.tread_pages // p, best.n_levels * p
    # best-scoring first (cands are sorted); the narrower staircase may go on past the wider
    # one's top, which partial overlap had flattened
    return next((c for c in cands if c.tread_pages == tread and c.n_levels >= at_least
                 and c.min_rise_z >= SUGGESTIVE_RISE_Z and bool(np.all(np.diff(c.levels) > 0))), None)


def _smallest_prime_factor(n: int) -> int:
    f = 2
    while f * f <= n:
        if n % f == 0:
            return f
        f += 1
    return n


# The packages' least share of the peak above idle (the controller's share is unknown): a
# cautious floor under one package's, or one unit's, step.
PACKAGES_LEAST_SHARE = 1.0 / 6.0


def _smallest_plausible_step(y: np.ndarray, n_package: int | None) -> float | None:
    """A cautious guess at one package's share of the peak: a sixth of the peak above idle,
    divided among the packages (the controller's share of it is unknown)."""
    if not n_package:
        return None
    return float(np.median(y)) * PACKAGES_LEAST_SHARE / n_package


def _least_unit_step(stair: Staircase) -> float:
    """The least a step of ``stair`` can rise if it is one more unit of packages programming.

    The top level (above idle) holds every unit's program current and the controller's
    share; the packages draw at least :data:`PACKAGES_LEAST_SHARE` of it (a sixth),
    and the ``N`` levels' units draw it in equal parts (each unit is as many packages), so
    each step is at least ``top / (6 N)``.  A host link still sending (8–10 mA) or one
    channel's transfer beside a unit of a dozen programming packages is far less.

    Example
    -------
    >>> s = Staircase(16, 2, np.array([0.444, 0.451]), 0.0, 0.0, 9.0, True)
    >>> round(_least_unit_step(s) * 1e3, 1)
    37.6
    """
    return float(stair.levels[-1]) * PACKAGES_LEAST_SHARE / stair.n_levels


def _last_tread_rises(sizes: np.ndarray, y: np.ndarray, stair: Staircase) -> bool:
    """M_peak means the last tread is flat: a trend across it of half a step says the sweep
    stopped on the way up (the within-unit pattern repeats, so whole units are compared)."""
    d = stair.tread_pages
    first = (stair.n_levels - 1) * d + 1
    tail = sizes >= first
    if np.count_nonzero(tail) < 2:
        return False
    unit_index = (sizes[tail] - first) // d
    if unit_index.max() == 0:  # less than a unit past the last boundary: compare its ends
        x, v = sizes[tail].astype(float), y[tail]
    else:
        x = np.unique(unit_index).astype(float)
        v = np.array([y[tail][unit_index == u].mean() for u in np.unique(unit_index)])
        if x.size < 2:
            return False
    slope = np.polyfit(x, v, 1)[0]
    step = float(np.diff(stair.levels).min())
    # A sweep stopped on the way up rises by steps; a slow creep of a few mA over many
    # units (ripple phase, programs overlapping a little longer) is not another step.
    per_tread = slope * (d if unit_index.max() == 0 else 1.0)
    return bool(slope * (x.max() - x.min()) > 0.5 * step and per_tread > 0.25 * step)


def _still_rising(sizes: np.ndarray, y: np.ndarray, se: np.ndarray, min_rise: float = 0.0) -> bool:
    """The largest sizes' peaks stand clearly above the ones before (by ``min_rise`` too, if given)."""
    k = max(2, sizes.size // 8)
    hi, lo = y[-k:].mean(), y[-2 * k : -k].mean()
    noise = 4 * np.hypot(se[-k:].mean() / np.sqrt(k), se[-2 * k : -k].mean() / np.sqrt(k))
    return bool(hi - lo > max(noise, min_rise))


def fit_steps_to_top(size_pages: np.ndarray, peak_a: np.ndarray, top_pages: int, *,
                     n_package: int | None = None, min_sizes: int = 3) -> StepResult:
    """The staircase up to a top the request durations show (:func:`~charz.analysis._units.durations_top`).

    Past the top every package programs, yet the peak may still move: the next pages move over
    the channels while the top's packages program (cache program: transfer current, a creep
    or a partial step), which leaves no clean staircase over the whole sweep.  Below the top
    it is the staircase alone, so only the sizes up to ``top_pages`` are fitted, with
    staircases whose last tread ends there (N × D = top; N ≥ 2, no more levels than
    packages).  The best must be clean with significant steps (as in :func:`fit_steps`), lead
    every other tread by :data:`SUGGESTIVE` (and no clean staircase with steps of 2–4 σ may fit
    clearly better), rule out finer steps and not show them inside every tread where a
    staircase of them fits (the test inside the treads, ≥ 4 σ), and the peak one tread
    past the top must climb less than its smallest step (a further unit would climb a whole
    one; transfers creep).  It is **medium** at most (the peaks' tread, the durations' top).
    Undetermined otherwise, and with fewer than ``min_sizes`` sizes up to the top (two
    suffice only for a top the walk's rounds confirm: :func:`~charz.analysis._units.round_tops`).

    Example
    -------
    Four 2-page steps to a top at 8 pages, then a creep of half a step over 32 more pages:

    >>> u = np.repeat(np.arange(1, 41), 3)
    >>> y = 0.1 + 0.02 * np.minimum((u + 1) // 2, 4) + 0.01 * np.clip(u - 8, 0, 32) / 32
    >>> r = fit_steps_to_top(u, y + np.tile([0.001, 0.0, -0.001], 40), 8, n_package=4)
    >>> r.n_step, r.step_pages, r.confidence
    (4, 2, 'medium')
    """
    size_pages, peak_a = np.asarray(size_pages), np.asarray(peak_a, dtype=np.float64)
    keep = size_pages <= top_pages
    s = summarize_sizes(size_pages[keep], peak_a[keep])
    sizes, y, se = s.size_pages.astype(np.int64), s.median, s.stderr
    none = StepResult(None, None, UNDETERMINED, "", None, None, s)
    if sizes.size < max(2, min_sizes) or int(sizes.max()) != top_pages:
        return replace(none, reason=f"too few sizes up to the durations' top at {top_pages} pages")
    penalty = np.log(sizes.size)
    cands = []
    for tread in range(1, top_pages // 2 + 1):
        n = top_pages // tread
        if top_pages % tread or (n_package and n > n_package):
            continue
        c = _fit(sizes, y, se, tread, n)
        if c is not None:
            cands.append(c)
    if not cands:
        return replace(none, reason=f"no staircase of equal-width steps ends at the durations' top ({top_pages} pages)")
    plausible = [c for c in cands if c.min_rise_z >= SUGGESTIVE_RISE_Z and c.clean] or cands
    scale2 = min(max(1.0, (c.chi2 + PRIOR_DOF) / (sizes.size - c.n_levels + PRIOR_DOF)) for c in plausible)
    cands = sorted((replace(c, score=c.chi2 / scale2 + c.n_levels * penalty) for c in cands), key=lambda c: c.score)
    valid = [c for c in cands if c.min_rise_z >= MIN_RISE_Z and c.clean and bool(np.all(np.diff(c.levels) > 0))]
    top = f"the durations show every package busy from {top_pages} pages on"
    if not valid:
        return replace(none, reason=f"{top}, but no clean staircase with significant steps ends there",
                       best=cands[0], candidates=tuple(cands[:6]))
    best = valid[0]
    hidden = next((c for c in cands if SUGGESTIVE_RISE_Z <= c.min_rise_z < MIN_RISE_Z and c.clean), None)
    if hidden is not None and hidden.score < best.score - SUGGESTIVE:
        return replace(none, reason=(f"{top}; {hidden.n_levels} steps of {hidden.tread_pages} pages fit better than "
                                     f"{best.n_levels} × {best.tread_pages}, but its smallest step is only "
                                     f"{hidden.min_rise_z:.1f} σ"), best=best, candidates=tuple(valid[:6]))
    runner = next((c for c in cands if c is not best and c.min_rise_z >= MIN_RISE_Z), None)
    margin = np.inf if runner is None else runner.score - best.score
    if margin < SUGGESTIVE:
        return replace(none, reason=(f"{top}; {best.n_levels} × {best.tread_pages} and {runner.n_levels} × "
                                     f"{runner.tread_pages} pages fit the peaks up to it almost equally well"),
                       best=best, runner_up=runner, candidates=tuple(valid[:6]))
    past = (size_pages > top_pages) & (size_pages <= top_pages + best.tread_pages)
    step = float(np.diff(best.levels).min())
    unit_share = _least_unit_step(best)
    if step < unit_share:
        # Each step is one more unit of packages programming; steps far smaller than a unit's
        # share of the top are another current (the host link still sending, a transfer).
        return replace(none, reason=(f"{top}; {best.n_levels} steps of {best.tread_pages} pages fit up to it, but "
                                     f"the smallest rises {step * 1e3:.0f} mA, less than a unit of packages draws "
                                     f"(at least {unit_share * 1e3:.0f} mA: a sixth of the top's "
                                     f"{best.levels[-1] * 1e3:.0f} mA shared by {best.n_levels} units): no units"),
                       best=best, runner_up=runner, candidates=tuple(valid[:6]))
    if not past.any():
        return replace(none, reason=f"{top}, but the sweep stops there: nothing shows that the peak stops climbing",
                       best=best, runner_up=runner, candidates=tuple(valid[:6]))
    climb = float(np.median(peak_a[past])) - float(best.levels[-1])
    if climb >= step:
        # A further unit of packages would climb a whole step; transfers creep.
        return replace(none, reason=(f"{top}, but the peak climbs {climb * 1e3:.0f} mA past it, as much as the "
                                     f"smallest step of {best.n_levels} × {best.tread_pages} pages"),
                       best=best, runner_up=runner, candidates=tuple(valid[:6]))
    if best.tread_pages > 1:
        ruled_out, detail, shown = _finer_ruled_out(sizes, y, se, best)
        if not ruled_out or (shown >= MIN_RISE_Z and _finer_candidate(cands, best) is not None):
            # Finer steps possible, or seen inside every tread where a staircase of them fits
            # (a tread that straddles steps), as in fit_steps.
            seen = f", {shown:.0f} σ in every tread" if ruled_out else ""
            return replace(none, reason=f"{top}; {best.n_levels} steps of {best.tread_pages} pages fit up to it, but "
                                        f"{detail}{seen}", best=best, runner_up=runner, candidates=tuple(valid[:6]))
        inside = _finer_step_above_first_tread(sizes, y, se, best)
        if inside:
            return replace(none, reason=f"{top}; {best.n_levels} steps of {best.tread_pages} pages fit up to it, but "
                                        f"{inside}", best=best, runner_up=runner, candidates=tuple(valid[:6]))
    rival = "no other staircase fits" if runner is None else f"next best ({runner.n_levels} × {runner.tread_pages}) scores {margin:.0f} worse"
    why = (f"{best.n_levels} levels, boundaries every {best.tread_pages} pages up to the top the durations show "
           f"({top_pages} pages; what the peak does past it is transfers while every package programs); "
           f"smallest rise {best.min_rise_z:.0f} σ; {rival}")
    return StepResult(best.n_levels, best.tread_pages, MEDIUM, why, best, runner, s, tuple(valid[:6]))

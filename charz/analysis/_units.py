"""The write I/O unit from the duration staircase, where the peaks cannot show it.

When one I/O unit spans every package (003 Fig. 3c) the peak is M_peak from the
first page and there are no steps; but units are then programmed one after
another, so the request duration jumps each time the size crosses a multiple
of the unit, and inside a unit it shrinks as less has to be read for
read-modify-write.  Each candidate unit ``D`` is a linear model

    duration(u) = c0 + c1 · ceil(u / D) + c2 · (ceil(u / D) · D - u)

fitted to the per-size medians; the best BIC wins if it wins clearly and the
per-unit cost ``c1`` is significantly positive.  Where the best candidate leaves more
scatter than the repeats show (units that overlap until every package is busy add little
time each, then a whole program time: no single ``c1`` fits both), every χ² is divided by
its reduced χ² before the margin is taken, so rival treads that fit equally badly do not
look decisive.

Durations step where units *finish in separate batches*: units that parallel packages
program together finish together, so the tread may be a whole number of units (pairs, or
every package's worth).  :func:`peaks_flat_inside` is the condition under which the tread
is the unit itself.
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
    scatter_us: float = 0.0  # rms of the durations about the best tread
    reduced_chi2: float = 1.0  # the best tread's χ² per degree of freedom (1: as the repeats scatter)


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
        resid = y - x @ coef
        chi2 = float(np.sum(w * resid**2))
        cov = np.linalg.pinv((x * w[:, None]).T @ x)
        z = coef[1] / np.sqrt(max(cov[1, 1], 1e-30))
        results.append((chi2 + len(cols) * np.log(u.size), d, coef[1], z, float(np.sqrt(np.mean(resid**2)))))
    results.sort()
    score, d, per_unit, z, scatter = results[0]
    scores = tuple((int(r[1]), float(r[0])) for r in results[:5])
    # The best fit's own misfit is the yardstick: a reduced χ² of hundreds says the model
    # misses what the durations do, and then small differences between candidates are noise.
    n_par = 3 if d > 1 else 2
    scale = max(1.0, (score - n_par * np.log(u.size)) / max(u.size - n_par, 1))
    z /= np.sqrt(scale)
    if z < 5 or per_unit <= 0:
        return UnitFromDurations(None, UNDETERMINED, "durations do not jump at any unit size", scores=scores)
    margin = (results[1][0] - score) / scale if len(results) > 1 else np.inf
    why = (f"duration jumps by {per_unit:.0f} µs every {d} pages; next best unit ({results[1][1]} pages) scores "
           f"{margin:.0f} worse" + (f" (χ² scaled by the best fit's reduced χ² {scale:.0f})" if scale > 1.5 else ""))
    if margin >= DECISIVE:
        return UnitFromDurations(d, HIGH, why, float(per_unit), scores, scatter, float(scale))
    if margin >= SUGGESTIVE:
        return UnitFromDurations(d, MEDIUM, why, float(per_unit), scores, scatter, float(scale))
    return UnitFromDurations(None, UNDETERMINED, why + " — not decisive", float(per_unit), scores, scatter,
                             float(scale))


# A unit beside the first adds its packages' program current: a large share of a one-unit
# write's peak.  Inside a tread the peak may move by this share at most, and not by a clear step.
FLAT_INSIDE = 0.1
FLAT_INSIDE_Z = 6.0


def peaks_flat_inside(size_pages: np.ndarray, peak_a: np.ndarray, unit_pages: int) -> tuple[bool, str]:
    """Whether the duration tread ``unit_pages`` is one unit, not several that run side by side.

    Durations may pair units that parallel packages program together.  A second unit beside
    the first would raise the peak by its packages' program current, so for every proper
    divisor ``d`` of the tread the sizes above ``d`` (up to the tread) must not raise the
    mean peak over the sizes up to ``d`` by :data:`FLAT_INSIDE` of it or more, nor by
    :data:`FLAT_INSIDE_Z` standard errors.  (False, why) otherwise, and when the sweep has
    no size inside the tread to compare.

    Example
    -------
    Peaks flat across an 8-page tread, then a unit beside another one every 2 pages:

    >>> u = np.repeat(np.arange(1, 17), 3)
    >>> flat = 0.2 + np.tile([0.001, 0.0, -0.001], 16)
    >>> peaks_flat_inside(u, flat, 8)[0], peaks_flat_inside(u, flat + 0.05 * ((u - 1) // 2 % 4), 8)[0]
    (True, False)
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(peak_a, dtype=np.float64))
    u, y, se = s.size_pages, s.median, s.stderr
    if unit_pages < 2:
        return True, "a one-page tread has nothing inside it"
    worst = None
    for d in range(1, unit_pages):
        if unit_pages % d:
            continue
        # Without a write of d pages or less (clipped, or not swept), the smallest one stands
        # in: units of d pages side by side would still raise every larger write above it.
        cut = max(d, int(u.min()))
        lo, hi = u <= cut, (u > cut) & (u <= unit_pages)
        if not lo.any() or not hi.any():
            return False, f"no sizes on both sides of {d} pages inside the {unit_pages}-page tread"
        below = float(y[lo].mean())
        rise = float(y[hi].mean()) - below
        se_rise = float(np.hypot(np.sqrt(np.sum(se[hi] ** 2)) / hi.sum(), np.sqrt(np.sum(se[lo] ** 2)) / lo.sum()))
        share, z = rise / below if below > 0 else np.inf, rise / se_rise if se_rise > 0 else np.inf
        if share >= FLAT_INSIDE or z >= FLAT_INSIDE_Z:
            return False, (f"the peak rises {rise * 1e3:.0f} mA ({share:.0%}, {z:.0f} σ) past {d} of the "
                           f"{unit_pages} pages: units of {d} pages may run side by side")
        if worst is None or share > worst[0]:
            worst = (share, d, rise)
    share, d, rise = worst
    return True, (f"the peak moves by {rise * 1e3:+.0f} mA ({share:+.0%}) at most inside the {unit_pages}-page tread "
                  f"(past {d} pages): one unit at a time")


def durations_flat_inside(size_pages: np.ndarray, duration_s: np.ndarray, unit_pages: int, per_unit_us: float,
                          host_page_us: float = 0.0) -> tuple[bool, str]:
    """Whether the request durations stay flat inside the duration tread ``unit_pages``.

    A write of part of a unit is padded, or first reads the pages it lacks: every write
    inside one unit's tread programs the same unit, so its duration is flat, or falls as
    less is left to read — it grows only by the host link's time for the pages it adds
    (``host_page_us`` a page, 0 where the rate is not given).  Units of a proper divisor
    ``d`` that the durations pair (they finish together) still add the second unit's own
    work past ``d`` pages.  So for every ``d`` the sizes past ``d`` inside each tread must not
    take longer than the sizes up to ``d`` of the same tread (pooled over the treads, the
    host link's time taken out) by :data:`FLAT_INSIDE` of the tread's jump and
    :data:`FLAT_INSIDE_Z` standard errors (each size's floored at 2 µs, as in
    :func:`unit_from_durations`, or the treads' own spread if larger).  (False, why) where they
    do.

    Example
    -------
    Two 2-page units that finish together every 4 pages: the second adds 80 µs past 2 pages.

    >>> u = np.repeat(np.arange(1, 21), 3)
    >>> d = (500 + 300 * np.ceil(u / 4) + 80 * ((u - 1) % 4 >= 2)) * 1e-6
    >>> durations_flat_inside(u, d, 4, 380.0)[0], durations_flat_inside(u, d - 80e-6 * ((u - 1) % 4 >= 2), 4, 300.0)[0]
    (False, True)
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(duration_s, dtype=np.float64) * 1e6)
    u, y, se = s.size_pages, s.median, np.maximum(s.stderr, 2.0)
    tread = (u - 1) // unit_pages
    for d in range(unit_pages - 1, 0, -1):  # the widest pairing first: it names the units
        if unit_pages % d:
            continue
        upper = (u - 1) % unit_pages >= d
        rises, var = [], []
        for j in np.unique(tread):
            lo, hi = (tread == j) & ~upper, (tread == j) & upper
            if lo.any() and hi.any():
                host = host_page_us * float(u[hi].mean() - u[lo].mean())
                rises.append(float(y[hi].mean() - y[lo].mean()) - host)
                var.append(float(np.sum(se[hi] ** 2)) / hi.sum() ** 2 + float(np.sum(se[lo] ** 2)) / lo.sum() ** 2)
        if not rises:
            continue
        rise = float(np.mean(rises))
        se_rise = float(np.sqrt(np.sum(var))) / len(rises)
        if len(rises) >= 3:
            se_rise = max(se_rise, float(np.std(rises, ddof=1)) / np.sqrt(len(rises)))
        if rise >= FLAT_INSIDE * per_unit_us and rise >= FLAT_INSIDE_Z * se_rise:
            return False, (f"inside the {unit_pages}-page treads the writes past {d} pages take {rise:.0f} µs longer "
                           f"({rise / se_rise:.0f} σ, {rise / per_unit_us:.0%} of the tread's jump) beyond the host "
                           f"link's time: {d}-page units the durations pair")
    return True, f"the durations add nothing inside the {unit_pages}-page tread beyond the host link's time"


def next_unit_beside(size_pages: np.ndarray, peak_a: np.ndarray, unit_pages: int) -> tuple[bool, str]:
    """Whether the next unit programs beside the first, on other packages: some write of
    more than one unit (up to two) peaks above every write of one unit or less by
    :data:`FLAT_INSIDE` of that peak and :data:`FLAT_INSIDE_Z` standard errors.  A unit that
    spans every package cannot: the next one waits for its packages.  (False, why) when the
    sweep does not show it, which says nothing either way.

    Example
    -------
    >>> u = np.repeat(np.arange(1, 17), 3)
    >>> y = 0.3 + np.tile([0.001, 0.0, -0.001], 16)
    >>> next_unit_beside(u, y, 8)[0], next_unit_beside(u, y + 0.1 * (u == 9), 8)[0]
    (False, True)
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(peak_a, dtype=np.float64))
    u, y, se = s.size_pages, s.median, s.stderr
    first, second = u <= unit_pages, (u > unit_pages) & (u <= 2 * unit_pages)
    if not first.any() or not second.any():
        return False, "no sizes of one and of two units to compare"
    i, j = np.flatnonzero(first)[np.argmax(y[first])], np.flatnonzero(second)[np.argmax(y[second])]
    rise, se_rise = float(y[j] - y[i]), float(np.hypot(se[i], se[j]))
    if y[i] > 0 and rise >= FLAT_INSIDE * y[i] and rise >= FLAT_INSIDE_Z * se_rise:
        return True, (f"a write of {int(u[j])} pages peaks {rise * 1e3:.0f} mA above every write of one unit: the "
                      "next unit programs beside the first")
    return False, f"no write of two units or less peaks clearly above one unit's ({rise * 1e3:+.0f} mA)"


WAIT_SHARE = 0.25  # a wait for a busy package adds at least this share of the smallest request
WAIT_OVER_EARLIER = 3.0  # ... and this many times what any smaller size added (transfers, switches)


# Same physics as _saturation.first_wait, but not one function: sharing would change answers.
# This one runs before any unit is known, per page, where durations that climb by a unit's
# transfers every few pages are no wait, so it asks for 3× the largest earlier per-page rise;
# first_wait knows the unit, pools each unit's band and asks for the excess over the median
# earlier unit's.  On the same inputs they part (two examples at first_wait).
def durations_top(size_pages: np.ndarray, duration_s: np.ndarray) -> int | None:
    """The largest size before the first write that waits for a busy package (003 §5.3): the
    first place where one more page adds at least :data:`WAIT_SHARE` of the smallest
    request's duration, 6 standard errors (a 3 µs floor for edge placement), and
    :data:`WAIT_OVER_EARLIER` times as much as any one page added before it.  Where units
    overlap, each unit before it adds only its transfers; where they do not, it is the first
    unit's end.  None when no size shows such a jump (durations that climb by a host
    transfer per page, or by a unit's transfers every few pages, have none).

    Example
    -------
    Four units of 2 pages side by side (20 µs each), then a program time of 900 µs:

    >>> u = np.repeat(np.arange(1, 13), 3)
    >>> d = (1000 + 20 * np.minimum((u + 1) // 2, 4) + 900 * (u > 8)) * 1e-6
    >>> durations_top(u, d + np.tile([1e-6, 0, -1e-6], 12))
    8
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(duration_s, dtype=np.float64) * 1e6)
    if s.size_pages.size < 2:
        return None
    se = np.hypot(s.stderr, 3.0)
    jump = np.diff(s.median)
    before = np.maximum.accumulate(np.r_[0.0, np.maximum(jump[:-1], 0.0)])
    big = ((jump >= WAIT_SHARE * s.median[0]) & (jump >= 6 * np.hypot(se[1:], se[:-1]))
           & (jump >= WAIT_OVER_EARLIER * before))
    return int(s.size_pages[np.flatnonzero(big)[0]]) if big.any() else None


def round_tops(size_pages: np.ndarray, duration_s: np.ndarray, n_package: int) -> list[int]:
    """Whole rounds of the package walk after which the durations show the first wait.

    A unit of ``p`` packages × ``d`` dies takes ``p · d`` pages; the walk has put a page on
    every die of every package after ``N/p`` units, i.e. after ``N · d`` pages (``N`` the
    packages), whatever ``p``.  The first write that waits for a busy package is therefore
    ``N · d + 1`` pages for some whole ``d`` (003 §5.3).  A top ``T = N · d`` qualifies when
    one more page adds at least :data:`WAIT_SHARE` of the smallest request's duration and
    6 standard errors (3 µs floor) more than **every** page added before it — page types
    (lower/upper program times differing by up to ±45 % of tPROG) make single pages below the
    top add a good part of a program time, which the ratio test of :func:`durations_top`
    mistakes for a wait or lets hide the real one.  A later round may qualify too (its first
    page waits for a program that itself started late), and so may a page-type jump right
    after a round: the caller takes the first top the peaks climb to in even steps.  Returned
    in increasing order (empty when no multiple of ``n_package`` with a size after it shows
    such a jump).  A first page after the round of a fast page type can end before the
    slowest page below the top: then that round shows no wait.

    Example
    -------
    Four packages of one-page units; the second page of each is an upper page (+500 µs),
    then the fifth page waits 1200 µs:

    >>> u = np.repeat(np.arange(1, 13), 3)
    >>> d = (2000 + 500 * (u >= 2) + 1200 * (u >= 5) + 1200 * (u >= 9)) * 1e-6
    >>> round_tops(u, d + np.tile([1e-6, 0, -1e-6], 12), 4)
    [4]
    """
    s = summarize_sizes(np.asarray(size_pages), np.asarray(duration_s, dtype=np.float64) * 1e6)
    sizes = s.size_pages.astype(np.int64)
    if n_package < 1 or sizes.size < 2:
        return []
    se = np.hypot(s.stderr, 3.0)
    where = {int(x): i for i, x in enumerate(sizes)}
    tops = []
    for top in range(n_package, int(sizes.max()), n_package):
        i, j = where.get(top), where.get(top + 1)
        if i is None or j is None or i == 0:
            continue
        earlier = float(np.max(np.r_[0.0, np.diff(s.median[: i + 1])]))
        need = max(WAIT_SHARE * float(s.median[0]), 6 * float(np.hypot(se[i], se[j])))
        if float(s.median[j] - s.median[i]) - earlier >= need:
            tops.append(top)
    return tops

"""The read I/O unit (003 §4.1, §5.2–5.5): one burst of flash activity per unit read.

After sensing one read unit the controller lets the flash power drop while the
data moves to the host, so a read of ``n`` units draws ``n`` bursts and takes
``n`` times as long, plus the host transfer.  Three views of the same fact:

* **durations**: each candidate unit ``R`` (whole pages, or at least every read
  tried) is a linear model ``duration = c0 + c1·ceil(size / R) + c2·size`` fitted
  to the per-size median durations; the best BIC wins when it wins clearly;
* **bursts**: the peaks of a moving average of each read's active window,
  counted with scipy's ``find_peaks`` (prominence ≥ 35 % of the window's range);
  they must agree with ``ceil(size / R)`` for the answer to be confident;
* **busy time**: the time each read's average spends above half-way from its floor to its
  95th percentile, all bursts together — it steps once per array read even where the reads
  run together (cache read), so it decides alone (medium) where neither view above does,
  and a decisive busy time that names another unit leaves the answer undetermined.

003 smooths read patterns with w = 100 samples at 4 µs; a burst shorter than
that window would vanish, so the window here is 100 samples or an eighth of a
one-unit read, whichever is smaller (stated in the result).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np
from scipy.signal import find_peaks, peak_prominences

from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._ripple import RippleView
from charz.analysis._smooth import W_PATTERN
from charz.analysis._steps import summarize_sizes

DECISIVE = 10.0
SUGGESTIVE = 6.0
PROMINENCE_SHARE = 0.35
SPIKE_MEDIAN = 5  # samples; longer than a spike, shorter than a burst (_median5)
# Below this share of sizes fitted by any unit, the burst counts are noise, not a view.
BURSTS_UNREADABLE = 0.5
# A largest read's bursts lasting more than this many times a one-unit read's are array reads
# run together (the one-unit read's burst is one tR; a transfer shoulder or noise stretches a
# burst by well under this).
RUN_TOGETHER = 3.0
# One burst at every size reads as one array read (a unit at least every read) only while
# that burst lasts as long at the largest read as at the smallest: one array read is one tR
# at every size.  Lasting this many times longer, it is array reads back to back (cache read
# starts the next as soon as the last ends), and one burst is no count of them.
ONE_BURST_GROWS = 1.5
# The largest read holds the most units: its count must be within this share (or one burst)
# of what the bursts' best unit predicts, or the small reads' counts are no evidence of it.
LARGEST_TOLERANCE = 0.1
# The largest read's count is a reading only where at least this share of its repeats give it
# (within the tolerance above): one repeat in four or five that lost its bursts (a background
# erase, a window cut short) is an outlier; two in five, or one in three, is noise near the
# prominence threshold.
LARGEST_REPEATS_AGREE = 0.75
# Above this share of the sizes that show bursts at all, repeats that disagree (by more than
# the tolerance above) make the counts noise: an array read happens on every repeat.
REPEATS_DISAGREE = 0.5
# The array's busy time (time above half-way, every burst of a read together) decides alone
# only this clearly (BIC), and, where the durations rise at the host rate, only while it grows
# by less than this share of the durations' time per page: the flash then finishes before
# the host link does, so what is busy is the flash, not the host DMA.
BUSY_FLASH_SHARE = 0.8
# Repeats of one read within this share of each other are the same read (tR varies by ±3 %,
# a window's edges by a sample or two): see _whole_windows.
REPEATS_SAME = 0.08


@dataclass(frozen=True)
class ReadUnitResult:
    unit_bytes: int | None
    # Set when every read tried is one unit: the unit is at least the largest read (a unit of
    # exactly the largest read and a larger one both read every size in one array read).
    at_least_bytes: int | None
    confidence: str
    reason: str
    window_samples: int = 0
    sizes_bytes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    duration_us: np.ndarray = field(default_factory=lambda: np.empty(0))
    bursts: np.ndarray = field(default_factory=lambda: np.empty(0))


def pattern_window(one_unit_duration_s: float, sample_interval_s: float) -> int:
    """003's w = 100, or an eighth of a one-unit read if that is shorter (at least 3 samples).

    Example
    -------
    >>> pattern_window(1e-3, 4e-6), pattern_window(132e-6, 4e-6)
    (31, 4)
    """
    eighth = int(one_unit_duration_s / sample_interval_s / 8)
    return int(max(3, min(W_PATTERN, eighth)))


def one_unit_duration(sizes_bytes: np.ndarray, durations_s: np.ndarray) -> float:
    """The one-unit read time: the median duration of the smallest read, or of one of the
    next two sizes where that is shorter.  A read of more data takes no less time, so a
    smallest read slower than a larger one was slowed by background work (a block erase
    lasts milliseconds): two slowed repeats out of four once made the averaging window four
    times too long to count any read below 160 KiB.

    >>> s = np.array([4096] * 4 + [8192] * 4 + [12288] * 4)
    >>> d = np.array([272, 3236, 1140, 1088, 274, 272, 274, 1440, 270, 272, 270, 272]) * 1e-6
    >>> round(one_unit_duration(s, d) * 1e6)
    271
    """
    sizes_bytes = np.asarray(sizes_bytes)
    d = np.asarray(durations_s, dtype=np.float64)
    ok = np.isfinite(d)
    smallest = np.unique(sizes_bytes[ok])[:3]
    if smallest.size == 0:
        return float("nan")
    return float(min(np.median(d[ok & (sizes_bytes == v)]) for v in smallest))


def _median5(a, b, c, d, e):
    """Element-wise median of five arrays (a sorting network: the median of e and of the two
    middle values of the pairs' minima and maxima).

    >>> _median5(*np.array([[5, 0], [1, 0], [4, 9], [2, 9], [3, 1]])).tolist()
    [3, 1]
    """
    f = np.maximum(np.minimum(a, b), np.minimum(c, d))
    g = np.minimum(np.maximum(a, b), np.maximum(c, d))
    return np.maximum(np.minimum(e, f), np.minimum(np.maximum(e, f), g))


def count_bursts(values: np.ndarray, window: int, noise: float = 0.0, min_distance: int = 1) -> int:
    """Bursts in one read's active window (float samples), by peak prominence.

    Example
    -------
    >>> t = np.arange(600)
    >>> x = 0.1 + 0.05 * ((t // 50) % 3 == 0)          # a burst every 150 samples
    >>> count_bursts(x, 5)
    4
    """
    return int(count_bursts_many([values], window, [noise], min_distance)[0])


@dataclass(frozen=True)
class BurstWindows:
    """Every read's window smoothed as :func:`count_bursts` smooths it, laid end to end."""

    n_seg: int
    window: int
    use: np.ndarray  # the windows long enough to count in (3 averaging windows or more)
    ma: np.ndarray  # their moving averages, end to end
    m: np.ndarray  # samples of each average
    m_starts: np.ndarray
    m_seg: np.ndarray
    lo: np.ndarray  # each window's floor (5th percentile of its average)
    hi: np.ndarray  # and top
    high: np.ndarray  # samples of each read's average above half-way from floor to top (NaN: not counted)
    busy: np.ndarray  # samples above half-way from floor to the 95th percentile (NaN: not counted)


def count_bursts_many(segments, window: int, noise=None, min_distance: int = 1, scale=None) -> np.ndarray:
    """:func:`count_bursts` of many reads' windows at once (one pass over all their samples).

    ``segments`` are 1-D arrays (one read's active window each); with ``scale`` =
    (mult, offset, zero) per segment they are ADC codes and ``(code - offset) * mult + zero``
    is the current — then the median and the moving sums work on the codes, exactly.

    Per window, as 003 reads a burst: a 5-sample median (``nearest`` at the window's ends),
    a ``window``-sample moving average rounded to 1 nA, the 5th percentile as the floor,
    peaks padded with the floor at both ends, at least ``max(window, min_distance)`` apart,
    with a prominence of 35 % of the range (or six noise σ of the average).  All windows
    are laid end to end with a gap of a level above every sample between them: find_peaks'
    distance rule and its prominence bases stop at the gap as at an array's end, so each
    window is counted as if alone, in one call instead of one per read.

    Example
    -------
    >>> t = np.arange(600)
    >>> x = 0.1 + 0.05 * ((t // 50) % 3 == 0)
    >>> count_bursts_many([x, x[:300], x[:20]], 5).tolist()
    [4, 2, 1]
    """
    return count_peaks(burst_windows(segments, window, scale), noise, min_distance)


def burst_windows(segments, window: int, scale=None) -> BurstWindows:
    """The smoothing half of :func:`count_bursts_many` (median, moving average, floor, top)."""
    n_seg = len(segments)
    lengths = np.array([np.size(s) for s in segments], dtype=np.int64)
    use = np.flatnonzero(lengths >= 3 * window)
    if use.size == 0:
        e = np.empty(0)
        return BurstWindows(n_seg, window, use, e, e.astype(np.int64), e.astype(np.int64), e.astype(np.int64), e, e,
                            np.full(n_seg, np.nan), np.full(n_seg, np.nan))
    n = lengths[use]
    x = np.concatenate([np.ravel(segments[i]) for i in use])
    if not (np.issubdtype(x.dtype, np.integer) or x.dtype == np.float64):
        x = x.astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    ends = starts + n
    # Rare spikes (a sample or two, 50-150 mA on a real bench) would set the range the
    # prominence is measured against; a 5-sample median removes them and keeps every burst.
    # Its neighbours by shifting all windows at once, then each window's ends repeated
    # (scipy's mode "nearest") where a shift reached into the next window.
    shifted = []
    for k in (-2, -1, 1, 2):
        y = np.empty_like(x)
        if k > 0:
            y[:-k], y[-k:] = x[k:], x[-1]
            for j in range(1, k + 1):
                y[ends - j] = x[ends - 1]
        else:
            y[-k:], y[:-k] = x[:k], x[0]
            for j in range(-k):
                y[starts + j] = x[starts]
        shifted.append(y)
    med = _median5(shifted[0], shifted[1], x, shifted[2], shifted[3])
    # Moving sums of each window from one running sum (exact for codes: integers below 2**53).
    csum = np.concatenate([[0.0], np.cumsum(med, dtype=np.float64)])
    m = n - window + 1
    m_starts = np.concatenate([[0], np.cumsum(m)[:-1]])
    m_seg = np.repeat(np.arange(use.size), m)
    at = starts[m_seg] + np.arange(m.sum()) - m_starts[m_seg]
    ma = (csum[at + window] - csum[at]) / float(window)
    if scale is not None:
        mult, off, zero = (np.asarray(v, dtype=np.float64).reshape(n_seg)[use][m_seg] for v in scale)
        ma = (ma - off) * mult + zero
    # A burst's top is often flat (ADC steps survive the median); rounding off the sums'
    # float error lets find_peaks see it as one plateau and place its peak mid-way, so the
    # distance between neighbours is measured centre to centre.
    ma = np.round(ma, 9)
    # The floor: each window's 5th percentile (numpy's linear rule), and a top for the busy
    # time, the 95th, from one partial sort of each window.
    v = 0.05 * (m - 1)
    below = np.floor(v).astype(np.int64)
    above = np.minimum(below + 1, m - 1)
    gamma = v - below
    v95 = 0.95 * (m - 1)
    below95 = np.floor(v95).astype(np.int64)
    above95 = np.minimum(below95 + 1, m - 1)
    gamma95 = v95 - below95
    a, b, a95, b95 = (np.empty(use.size) for _ in range(4))
    for j, (o, mj, lo_k, hi_k, lo95, hi95) in enumerate(zip(m_starts.tolist(), m.tolist(), below.tolist(), above.tolist(),
                                                             below95.tolist(), above95.tolist())):
        part = np.partition(ma[o:o + mj], (lo_k, hi_k, lo95, hi95))  # one C call per read, not a sort of all
        a[j], b[j], a95[j], b95[j] = part[lo_k], part[hi_k], part[lo95], part[hi95]
    lo = np.where(gamma >= 0.5, b - (b - a) * (1 - gamma), a + (b - a) * gamma)
    top95 = a95 + (b95 - a95) * gamma95
    hi = np.maximum.reduceat(ma, m_starts)
    high = np.full(n_seg, np.nan)
    high[use] = np.add.reduceat((ma > (lo + hi)[m_seg] / 2).astype(np.int64), m_starts)
    # The busy time's half-way is taken to the 95th percentile, not the maximum: the maximum
    # is one extreme of the noise and moves the threshold from repeat to repeat, which
    # scattered the busy times of noisy 8-bit records by a page's worth.
    busy = np.full(n_seg, np.nan)
    busy[use] = np.add.reduceat((ma > (lo + top95)[m_seg] / 2).astype(np.int64), m_starts)
    return BurstWindows(n_seg, window, use, ma, m, m_starts, m_seg, lo, hi, high, busy)


def count_peaks(bw: BurstWindows, noise=None, min_distance: int = 1) -> np.ndarray:
    """The counting half of :func:`count_bursts_many`: peaks of each smoothed window."""
    # Imported here: scipy.signal takes 0.65 s to import, and only sessions with reads need it.

    counts = np.ones(bw.n_seg, dtype=np.int64)
    if bw.use.size == 0:
        return counts
    use, ma, m, m_starts, m_seg, lo, hi, window = bw.use, bw.ma, bw.m, bw.m_starts, bw.m_seg, bw.lo, bw.hi, bw.window
    noise = np.zeros(bw.n_seg) if noise is None else np.asarray(noise, dtype=np.float64).reshape(bw.n_seg)
    prominence = np.maximum(PROMINENCE_SHARE * (hi - lo), 6 * noise[use] / np.sqrt(window))
    distance = max(1, window, int(min_distance))
    # Each window padded with its floor (so a burst at either edge is a peak too), then a gap
    # above every sample, long enough that the gap's own peak is farther than ``distance``
    # from any window's peak.
    gap = 2 * distance + 2
    span = m + 2 + gap
    offs = np.concatenate([[0], np.cumsum(span)[:-1]])
    top = float(hi.max()) + 1.0 + abs(float(hi.max()))
    padded = np.full(int(span.sum()), top)
    padded[offs] = lo
    padded[offs + m + 1] = lo
    padded[offs[m_seg] + 1 + np.arange(m.sum()) - m_starts[m_seg]] = ma
    peaks, _ = find_peaks(padded, distance=distance)
    k = np.searchsorted(offs, peaks, side="right") - 1
    rel = peaks - offs[k]
    inside = (rel >= 1) & (rel <= m[k])
    peaks, k = peaks[inside], k[inside]
    if peaks.size:
        prom = peak_prominences(padded, peaks)[0]
        found = np.bincount(k[prom >= prominence[k]], minlength=use.size)
        counts[use] = np.where(prominence > 0, np.maximum(1, found), 1)
    return counts


def repeats_disagree(size_bytes: np.ndarray, counts: np.ndarray) -> float:
    """The share of the sizes showing more than one burst on some repeat whose repeats do not
    all give the same count (each within a tenth, or one burst, of their median).

    >>> repeats_disagree(np.repeat([1, 2, 3, 4], 3), np.array([1, 1, 1, 2, 2, 3, 5, 1, 1, 4, 4, 4]))
    0.3333333333333333
    """
    size_bytes, counts = np.asarray(size_bytes), np.asarray(counts, dtype=np.float64)
    if counts.size == 0:
        return 0.0
    # Every size's median at once: sort by size then count, take each group's middle.
    order = np.lexsort((counts, size_bytes))
    sz, c = size_bytes[order], counts[order]
    _, first, n = np.unique(sz, return_index=True, return_counts=True)
    med = 0.5 * (c[first + (n - 1) // 2] + c[first + n // 2])
    group = np.repeat(np.arange(first.size), n)
    off = np.abs(c - med[group]) > np.maximum(1.0, LARGEST_TOLERANCE * med[group])
    shown = np.maximum.reduceat(c, first) >= 2
    bad = np.logical_or.reduceat(off, first) & shown
    return float(bad.sum() / shown.sum()) if shown.any() else 0.0


def repeats_agree(counts: np.ndarray, share: float = 1.0) -> bool:
    """Whether the repeats of one read count the same bursts: at least ``share`` of them
    within a tenth, or one burst, of their median (an array read happens on every repeat;
    fewer than two repeats cannot disagree).

    >>> repeats_agree(np.array([30, 30, 29])), repeats_agree(np.array([9, 10, 3]))
    (True, False)
    >>> repeats_agree(np.array([31, 31, 8, 32])), repeats_agree(np.array([31, 31, 8, 32]), 0.75)
    (False, True)
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.size < 2:
        return True
    m = float(np.median(counts))
    return bool(np.mean(np.abs(counts - m) <= max(1.0, LARGEST_TOLERANCE * m)) >= share)


def largest_read_unit(counts: np.ndarray, largest_bytes: int, page_size_bytes: int):
    """The unit the largest read's burst count names on its own, or None.

    Each whole-page unit ``R`` predicts ``ceil(largest / R)`` bursts.  The count is a
    reading only where every repeat gives it (each within a tenth, or one burst, of their
    median: an array read happens on every repeat) and exactly one unit predicts it within
    that tolerance (a count of 2 or 3 fits many units and names none).

    >>> largest_read_unit(np.array([30, 30, 30, 29]), 524288, 16384)
    (16384, array([30, 30, 30, 29]))
    >>> largest_read_unit(np.array([9, 10, 5]), 524288, 16384)[0] is None   # repeats disagree
    True
    >>> largest_read_unit(np.array([2, 2, 2]), 524288, 16384)[0] is None    # fits many units
    True
    """
    counts = np.asarray(counts)
    if counts.size < 2 or not repeats_agree(counts):
        return None, counts
    m = float(np.median(counts))
    units = np.arange(page_size_bytes, largest_bytes, page_size_bytes)
    pred = np.ceil(largest_bytes / units)
    fits = units[np.abs(m - pred) <= np.maximum(1.0, LARGEST_TOLERANCE * pred)]
    return (int(fits[0]) if fits.size == 1 else None), counts


@dataclass(frozen=True)
class BusyView:
    """The read unit as the array's busy time names it (see :func:`busy_time_unit`)."""

    unit_bytes: int | None  # None: no unit ahead (or the busy time does not grow)
    margin: float  # BIC of the next candidate minus the best's
    per_page_us: float  # the best unit's busy time per unit, per page of it


def busy_time_unit(size_bytes: np.ndarray, busy_us: np.ndarray, page_size_bytes: int) -> BusyView:
    """The unit whose array reads the busy time counts: ``busy = a + b·ceil(size / R)``.

    Each array read keeps the flash busy for tR (and its transfer), whether or not reads
    run together: a read of ``n`` units is busy ``n`` times as long, so the busy time steps
    once per unit — by the same step per page for a one-page unit.  Every whole-page ``R``
    below the largest read and "no step" (``a`` alone) are fitted to the per-size medians by
    weighted least squares (closed form, all candidates at once); the χ² are measured in
    the best's scatter where it exceeds the repeats' (as the durations are).

    >>> s = np.repeat(np.arange(1, 11) * 16384, 3)
    >>> b = 20 + 48 * np.ceil(s / 16384) + np.tile([-1.0, 0.0, 1.0], 10)
    >>> v = busy_time_unit(s, b, 16384)
    >>> v.unit_bytes, round(v.per_page_us)
    (16384, 48)
    """
    ok = np.isfinite(busy_us)
    size_bytes, busy_us = np.asarray(size_bytes)[ok], np.asarray(busy_us, dtype=np.float64)[ok]
    if np.unique(size_bytes).size < 3:
        return BusyView(None, 0.0, float("nan"))
    s = summarize_sizes(size_bytes, busy_us)
    sizes, y = s.size_pages.astype(np.float64), s.median
    w = 1.0 / np.maximum(s.stderr, 1.0) ** 2
    n = sizes.size
    units = np.arange(page_size_bytes, int(sizes.max()), page_size_bytes, dtype=np.float64)
    if units.size == 0:
        return BusyView(None, 0.0, float("nan"))
    x = np.ceil(sizes[None, :] / units[:, None])
    sw, sy = w.sum(), (w * y).sum()
    sx, sxx, sxy = (w * x).sum(axis=1), (w * x * x).sum(axis=1), (w * x * y).sum(axis=1)
    den = sw * sxx - sx ** 2
    b = np.where(den > 0, (sw * sxy - sx * sy) / np.where(den > 0, den, 1.0), 0.0)
    a = (sy - b * sx) / sw
    chi = np.sum(w * (y[None, :] - a[:, None] - b[:, None] * x) ** 2, axis=1)
    chi = np.where((b > 0) & (den > 0), chi, np.inf)
    chi0 = float(np.sum(w * (y - sy / sw) ** 2))  # no step: a alone
    bic = np.r_[chi + 2 * np.log(n), chi0 + np.log(n)]
    k = np.r_[np.full(units.size, 2), 1]
    best = int(np.argmin(bic))
    over = max(1.0, float(np.r_[chi, chi0][best]) / max(1, n - int(k[best])))
    bic = np.r_[chi / over + 2 * np.log(n), chi0 / over + np.log(n)]
    order = np.argsort(bic)
    best, margin = int(order[0]), float(bic[order[1]] - bic[order[0]])
    if best == units.size or not np.isfinite(margin):
        return BusyView(None, margin if np.isfinite(margin) else 0.0, float("nan"))
    return BusyView(int(units[best]), margin, float(b[best] * page_size_bytes / units[best]))


def _whole_windows(size_bytes: np.ndarray, duration_us: np.ndarray):
    """Per size, the repeats that agree with each other, where some do (see REPEATS_SAME).

    A read's time is its array reads and transfers, the same on every repeat within a few
    per cent (tR varies by ±3 %).  A window that ended where the current first dipped into
    the noise (between two bursts, on a noisy record) is shorter than its repeats, and one
    slowed by a background erase longer; neither agrees with the others.  Two such windows
    in five moved a size's median by a page's worth on 4 µs records at ×2 noise.  Where at
    least two repeats lie within REPEATS_SAME of each other, the largest such group (the
    longer on a tie: windows are cut short more often than slowed) stands for the size;
    where none do, every repeat stays (the median decides).

    >>> s = np.repeat([1, 2], 5)
    >>> _whole_windows(s, np.array([160, 156, 88, 168, 150, 476, 760, 556, 136, 804.0]))[1].tolist()
    [160.0, 156.0, 168.0, 150.0, 760.0, 804.0]
    """
    order = np.argsort(size_bytes, kind="stable")
    size_bytes, duration_us = size_bytes[order], duration_us[order]
    _, first, counts = np.unique(size_bytes, return_index=True, return_counts=True)
    keep = np.ones(size_bytes.size, dtype=bool)
    for a, n in zip(first.tolist(), counts.tolist()):
        d = duration_us[a:a + n]
        near = np.abs(d[:, None] - d[None, :]) <= REPEATS_SAME * np.maximum(d[:, None], d[None, :])
        size = near.sum(axis=1)
        if size.max() < 2:
            continue
        best = np.flatnonzero(size == size.max())
        centre = best[np.argmax(d[best])]
        keep[a:a + n] = near[centre]
    return size_bytes[keep], duration_us[keep]


def _duration_scores(sizes, median_us, stderr_us, units, host_rate_bytes_per_s):
    """BIC of every candidate unit on the per-size median durations, and the sizes left out.

    Each candidate ``R`` is ``c0 + c1·ceil(size / R)`` fitted to the durations with the host
    transfer taken out at the given rate (``+ c2·size`` when no rate is given) and, with a
    rate, also to the durations as measured (flat treads: whole units to the host); the
    better of the two counts.  "Larger than every read" (``None``) is ``c0`` alone.
    """
    y = median_us - (sizes / host_rate_bytes_per_s * 1e6 if host_rate_bytes_per_s else 0.0)
    w0 = 1.0 / np.hypot(stderr_us, 2.0) ** 2
    is_none = np.array([r is None for r in units])
    # Every candidate's weighted least squares at once: columns 1, ceil(size / R) and, without
    # a given host rate, size.  "Larger than every read" has no step column (zeros: the
    # minimum-norm solution leaves it out, as a fit without it would).
    unit_b = np.array([r or 0 for r in units], dtype=np.float64)
    steps = np.where(unit_b[:, None] > 0, np.ceil(sizes[None, :] / np.where(unit_b > 0, unit_b, 1.0)[:, None]), 0.0)
    cols = [np.ones_like(steps), steps] + ([] if host_rate_bytes_per_s else [np.broadcast_to(sizes, steps.shape)])
    x = np.stack(cols, axis=2)
    n_cols = len(cols) - is_none
    targets = [y] + ([median_us] if host_rate_bytes_per_s else [])

    def score(w):
        sw = np.sqrt(w)
        a = x * sw[None, :, None]
        pinv = np.linalg.pinv(a, rcond=np.finfo(np.float64).eps * max(a.shape[1:]))
        chi2, resid, positive = None, None, None
        for k, t in enumerate(targets):
            coef = pinv @ (t * sw)[:, None]
            r = (t - (x @ coef)[..., 0]) * sw
            c = np.sum(r ** 2, axis=1)
            pos = is_none | (coef[:, 1, 0] > 0)
            if k == 0:
                chi2, resid, positive = c, r, pos
            else:
                # Treads: where the durations stay flat across each unit and jump between
                # units, the host moves whole units (or hides behind the array reads) and no
                # per-byte host time is to be taken out.
                better = (c < chi2) & pos & ~is_none
                chi2 = np.where(better, c, chi2)
                resid = np.where(better[:, None], r, resid)
                positive = positive | better
        n = int(np.count_nonzero(w))
        first = np.where(positive, chi2 + n_cols * np.log(n), np.inf)
        best = int(np.argmin(first))
        # Where even the best candidate leaves more scatter than the repeats show (a reduced
        # χ² above 1: durations that wander with something no candidate has), every χ² is
        # measured in that scatter instead: otherwise a misfit of hundreds of σ makes small
        # differences between two wrong candidates look decisive.
        over = max(1.0, float(chi2[best]) / max(1, n - int(n_cols[best])))
        return np.where(positive, chi2 / over + n_cols * np.log(n), np.inf), resid[best]

    bic, z = score(w0)
    # One size far off every candidate (a background block erase inside those reads, or a
    # window end found late on a noisy record) would otherwise decide the unit by itself:
    # the best candidate's sizes more than 10 σ and 6 median deviations off are left out (at
    # most a tenth of the sizes), then every candidate is fitted again.  A one-page unit was
    # read as 20 KiB on a drive whose 11-page reads took 4.8 ms longer than the line.
    dev = np.abs(z)
    far = (dev > 10.0) & (dev > 6.0 * np.median(dev))
    dropped = np.flatnonzero(far)
    if 0 < dropped.size <= max(1, sizes.size // 10) and sizes.size - dropped.size >= 3:
        bic, _ = score(np.where(far, 0.0, w0))
    else:
        dropped = dropped[:0]
    return bic, dropped


class _BurstView(NamedTuple):
    median: np.ndarray  # bursts per size
    best: int | None  # the unit whose counts fit most sizes (None: at least every read)
    agree: float  # the share of sizes it fits
    clear: bool
    predicted: float  # its count for the largest read
    largest_off: bool  # ... which the largest read misses
    disagree: float  # share of sizes whose repeats count differently
    rate_unit: int | None  # the unit the largest read's count alone fits
    rate_counts: tuple
    merged: float  # the largest read's burst width over the smallest's
    largest_agree: bool  # the largest read's repeats count the same (LARGEST_REPEATS_AGREE of them)


def _burst_view(size_bytes, bursts, burst_width, sizes, units, per_unit, largest, page_size_bytes) -> _BurstView:
    """The burst counts' reading of the unit (see :func:`fit_read_unit`)."""
    b = summarize_sizes(size_bytes, bursts)
    # A burst is one array read (tR, the same at every size).  Where the largest reads'
    # bursts last several times as long as a one-unit read's, they are several array
    # reads run together (cache reads start the next while this one's data moves out):
    # the counts then say nothing of the unit, and the burst view abstains.
    merged = 0.0
    if burst_width is not None:
        fin = np.isfinite(burst_width)
        if np.unique(size_bytes[fin]).size >= 2:
            ws = summarize_sizes(size_bytes[fin], burst_width[fin])
            merged = ws.median[-1] / max(ws.median[0], 1.0)
    miss = np.sum(np.abs(b.median[None, :] - per_unit) >= 0.5, axis=1)
    mismatch = dict(zip(units, miss.tolist()))
    order = sorted(units, key=lambda r: (mismatch[r], r is None, r or 0))
    best = order[0]
    agree = 1.0 - mismatch[best] / sizes.size
    # Ties (e.g. R and R+page both fit when no size lies between) go to the smaller unit.
    clear = agree >= 0.8 and mismatch[order[1]] > mismatch[best]
    # The largest read holds the most units, so its count is the burst rate over a long
    # read; the small reads' one or two bursts cannot tell a large unit from bursts that
    # ran into a transfer shoulder or the host DMA.  A unit whose prediction misses the
    # largest read's count by more than a tenth (and more than one burst) is no reading
    # of the bursts: the view abstains.
    predicted = float(per_unit[units.index(best), -1])
    largest_off = bool(abs(b.median[-1] - predicted) > max(1.0, LARGEST_TOLERANCE * predicted))
    disagree = repeats_disagree(size_bytes, bursts)
    rate_unit, rate_counts = largest_read_unit(bursts[size_bytes == largest], largest, page_size_bytes)
    return _BurstView(b.median, best, agree, clear, predicted, largest_off, disagree, rate_unit, tuple(rate_counts),
                      merged, repeats_agree(rate_counts, LARGEST_REPEATS_AGREE))


def _bursts_no_reading(v: _BurstView, name) -> str | None:
    """Why the counts are no reading of the unit on their own evidence, or None."""
    if v.merged <= RUN_TOGETHER:
        if v.disagree > REPEATS_DISAGREE:
            return f"repeats of one read count differently on {v.disagree:.0%} of the sizes with bursts: noise"
        if v.largest_off:
            return f"the largest read shows {v.median[-1]:g}, not the {v.predicted:.0f} {name(v.best)} predicts"
        if not v.largest_agree:
            # The largest read's count is the burst rate over the most units, and an array read
            # happens on every repeat: repeats that count differently there are noise near the
            # prominence threshold, so the fit of the small reads' few bursts is no reading.
            return (f"the largest read counts {'/'.join(f'{c:g}' for c in v.rate_counts)} on its repeats: "
                    "no reading")
        if v.best is None and v.merged > ONE_BURST_GROWS:
            return (f"one at every size, but the largest read's lasts {v.merged:.1f}× the smallest's: array reads "
                    "back to back, not one")
        return None
    # the counts are kept as evidence, but they are not a view
    return f"run together: a largest read's lasts {v.merged:.0f}× a one-unit read's"


def _bursts_run_together(v: _BurstView, busy, busy_decides, dur_best, dur_decides, dur_margin) -> str | None:
    """Why counts that other views explain as array reads run together are no view, or None."""
    if busy is None or not dur_decides or busy.unit_bytes != dur_best or v.best == dur_best:
        return None
    if busy_decides and (v.best is None or busy.unit_bytes < v.best):
        # Fewer bursts than the array reads the busy time counts: bursts that ran together
        # (running together only ever lowers a count).  The durations name the busy time's
        # unit, so the counts are the odd reading out.
        return "fewer than the array reads the busy time and the durations count: run together"
    if not v.clear and dur_margin >= DECISIVE and (v.best is None or v.best >= 2 * dur_best):
        # Counts that fit (not clearly) a unit of twice the durations' or more: such a unit
        # would leave out every other step the durations decide on, so it is not the unit;
        # bursts that ran together (cache read, a transfer shoulder as high as the burst)
        # lower a count, never raise it, and the busy time, which counts the array reads
        # even where they run together, leans to the durations' unit.
        return "at most half the array reads that the durations and the busy time count: run together"
    return None


def _busy_view(size_bytes, busy_us, page_size_bytes, name, hidden, sizes, median_us):
    """The array's busy time as a view of the unit: (its reading, whether it decides, evidence)."""
    busy = busy_time_unit(size_bytes, busy_us, page_size_bytes)
    decides = busy.unit_bytes is not None and busy.margin >= DECISIVE
    why = (f"; busy time: {name(busy.unit_bytes)} ({busy.per_page_us:.0f} µs per page) by a margin of "
           f"{busy.margin:.0f}" if busy.unit_bytes is not None else "; busy time: no step")
    if decides and hidden:
        # Durations at the host rate: the busy time must be the flash's, which ends before
        # the host link does, not the host DMA's (which grows as the durations do).
        host_per_page = float(np.polyfit(sizes / page_size_bytes, median_us, 1)[0])
        if not busy.per_page_us < BUSY_FLASH_SHARE * host_per_page:
            decides = False
            why += f" (as long per page as the host link's {host_per_page:.0f} µs: maybe the host DMA, no view)"
    return busy, decides, why


def _open_unit(disputed: bool, busy, busy_decides: bool, ripple, why: str, base: dict) -> ReadUnitResult:
    """Where neither the counts nor the durations decide: the busy time, then the ripple,
    alone at medium — or undetermined."""
    # The ripple is measured only here, where the other views leave the unit open (it is
    # passed as a callable: its lock-in pass over the largest reads costs as much as the counting).
    ripple = ripple() if ripple is not None else None
    rip = ripple if ripple is not None and ripple.unit_bytes is not None else None
    why += "" if ripple is None else "; " + ripple.reason
    if not disputed and busy is not None and busy_decides:
        # Bursts run together, durations at the host rate: the busy time counts the array
        # reads on its own — unless the ripple's cycles count other array reads.
        if rip is not None and rip.unit_bytes != busy.unit_bytes:
            return ReadUnitResult(None, None, UNDETERMINED, why + " — the two do not agree", **base)
        return ReadUnitResult(int(busy.unit_bytes), None, MEDIUM, why + "; that view decides", **base)
    if not disputed and rip is not None and busy is not None and busy.unit_bytes not in (None, rip.unit_bytes) \
            and busy.margin >= DECISIVE:
        # The busy time names another unit clearly but cannot decide, its time per page as
        # long as the host link's: either it is the array's (then the ripple's cycles count
        # something else) or the host link paces every page (then the pattern the ripple
        # repeats may be the host's, at its pace: datasheet dev seed 784, 47 µs a cycle and
        # 47 µs a page of busy time, 16 KiB counted for 8 KiB).  Neither reading leaves the
        # ripple alone to decide.
        return ReadUnitResult(None, None, UNDETERMINED, why + f" — the busy time names {busy.unit_bytes} B, "
                              "and where the host link may pace every page the ripple does not decide alone", **base)
    if not disputed and rip is not None:
        # The bursts' peaks are lost (run together, or small against a host transfer's
        # level) and the durations hide the unit, but the largest read still repeats one
        # pattern per array read: its cycles count them.
        return ReadUnitResult(int(rip.unit_bytes), None, MEDIUM, why + "; that view decides", **base)
    tail = " — the two views do not agree" if disputed else " — neither view decides"
    return ReadUnitResult(None, None, UNDETERMINED, why + tail, **base)


def fit_read_unit(
    size_bytes: np.ndarray,
    duration_s: np.ndarray,
    bursts: np.ndarray | None,
    page_size_bytes: int,
    host_rate_bytes_per_s: float | None = None,
    burst_width: np.ndarray | None = None,
    busy_us: np.ndarray | None = None,
    ripple: Callable[[], RippleView] | None = None,
) -> ReadUnitResult:
    """Choose the read unit from burst counts and read durations.

    The bursts decide: each candidate unit ``R`` (whole pages, or at least the largest
    read tried) predicts ``ceil(size / R)`` bursts, and the best must beat the next
    clearly.  The durations must agree: with the host transfer taken out at the given
    link rate (or fitted), the time must rise in steps of ``R``.  Agreement gives a
    confident answer; either view alone, a medium one; disagreement, none.  ``busy_us``
    (the array's busy time per read) and ``ripple`` (a callable giving the largest read's
    cycles, :mod:`charz.analysis._ripple`, called only where the other views leave the unit
    open) are the third and fourth views (docs/analysis.md §5).

    Example
    -------
    A drive with a 32 KB read unit, reads of 4 KB to 128 KB, two repeats:

    >>> s = np.repeat(np.arange(1, 33) * 4096, 2)
    >>> d = (40 + 220 * np.ceil(s / 32768) + s / 300) * 1e-6
    >>> r = fit_read_unit(s, d + np.tile([1e-6, -1e-6], 32), np.ceil(s / 32768), 4096, 300e6)
    >>> r.unit_bytes, r.confidence
    (32768, 'high')
    """
    size_bytes = np.asarray(size_bytes, dtype=np.int64)
    duration_us = np.asarray(duration_s, dtype=np.float64) * 1e6
    ok = np.isfinite(duration_us)
    if np.count_nonzero(ok) < 4:
        return ReadUnitResult(None, None, UNDETERMINED, "fewer than four usable read captures")
    s = summarize_sizes(*_whole_windows(size_bytes[ok], duration_us[ok]))
    sizes = s.size_pages.astype(np.float64)  # bytes here
    if sizes.size < 3:
        return ReadUnitResult(None, None, UNDETERMINED, "reads of fewer than three sizes")
    largest = int(sizes.max())
    # None stands for every unit at least as large as the largest read: they all predict one burst.
    units: list[int | None] = list(range(page_size_bytes, largest, page_size_bytes)) + [None]

    bic, dropped = _duration_scores(sizes, s.median, s.stderr, units, host_rate_bytes_per_s)
    unit_b = np.array([r or 0 for r in units], dtype=np.float64)
    per_unit = np.where(unit_b[:, None] > 0, np.ceil(sizes[None, :] / np.where(unit_b > 0, unit_b, 1.0)[:, None]), 1.0)
    dur_scores = dict(zip(units, bic.tolist()))
    dur_order = sorted(units, key=lambda r: dur_scores[r])
    dur_best = dur_order[0]
    dur_margin = dur_scores[dur_order[1]] - dur_scores[dur_best]
    # A unit the sweep cannot tell from its own step (R = the size step) only shows in bursts.
    # "Larger than every read" is no unit for the durations to decide: durations that rise no
    # faster than the host link are also what small units look like when their array reads
    # and transfers hide behind the host transfer (host-bound reads, cache reads).
    hidden = dur_best is None
    dur_decides = dur_margin >= SUGGESTIVE and np.isfinite(dur_scores[dur_best]) and not hidden

    base = dict(sizes_bytes=s.size_pages.astype(np.int64), duration_us=s.median)
    burst_best, rate_unit, rate_counts, agree, merged, burst_clear = None, None, (), 0.0, 0.0, False
    uncounted = ""
    if bursts is not None:
        # Reads whose bursts were not counted (NaN: clipped at the ADC's rail) are timed only;
        # the counts are a view where the counted reads still cover every size.
        counted = ok & np.isfinite(np.asarray(bursts, dtype=np.float64))
        if np.unique(size_bytes[counted]).size < sizes.size:
            bursts, uncounted = None, "bursts: too few reads counted (clipped), no view; "
    if bursts is not None:
        v = _burst_view(size_bytes[counted], np.asarray(bursts, dtype=np.float64)[counted],
                        None if burst_width is None else np.asarray(burst_width, dtype=np.float64)[counted],
                        sizes, units, per_unit, largest, page_size_bytes)
        base["bursts"] = v.median
        burst_best, agree, burst_clear, rate_unit, rate_counts, merged = v.best, v.agree, v.clear, v.rate_unit, v.rate_counts, v.merged

    def name(r):
        return f"at least {largest} B" if r is None else f"{r} B"

    busy, busy_decides, busy_why = None, False, ""
    if busy_us is not None:
        busy, busy_decides, busy_why = _busy_view(size_bytes[ok], np.asarray(busy_us, dtype=np.float64)[ok],
                                                  page_size_bytes, name, hidden, sizes, s.median)

    why = uncounted + (f"bursts: {name(burst_best)} fits {agree:.0%} of sizes; " if burst_best is not None or bursts is not None else "") + (
        f"durations: {name(dur_best)}" + (f" by a margin of {dur_margin:.0f}" if np.isfinite(dur_margin) else ""))
    if dropped.size:
        why += " (left out: " + ", ".join(f"{int(sizes[i])} B" for i in dropped) + ", far off every unit)"
    if hidden:
        why += " (no step beyond the host transfer: the array reads hide behind it, that view abstains)"
    if bursts is not None:
        own = _bursts_no_reading(v, name)
        if own is None:
            own = _bursts_run_together(v, busy, busy_decides, dur_best, dur_decides, dur_margin)
        if own is not None:
            why = why.replace("bursts: ", f"bursts ({own}, that view abstains): ", 1)
            bursts = None
            if v.disagree > REPEATS_DISAGREE and v.merged <= RUN_TOGETHER:
                rate_unit = None
    if bursts is not None and burst_clear and dur_decides and burst_best == dur_best:
        unit, conf = burst_best, HIGH
    elif bursts is not None and burst_clear and (not dur_decides or dur_scores[burst_best] - dur_scores[dur_best] < DECISIVE):
        # Clear counts (most sizes, the largest read, every repeat) are overruled only by
        # durations that decide against them; a lean is named, not followed.
        unit, conf = burst_best, MEDIUM
        if dur_decides and dur_best != burst_best:
            why += f" (the durations' lean to {name(dur_best)} is not decisive)"
    elif dur_decides and bursts is not None and burst_best == dur_best:
        # the bursts lean the same way without deciding: the durations decide, one view
        unit, conf = dur_best, MEDIUM
    elif dur_decides and (bursts is None or agree < BURSTS_UNREADABLE):
        # Bursts that fit no unit at all (below half the sizes) were not counted: a host-transfer
        # shoulder after each burst, or bursts closer than the averaging, leave nothing to count,
        # and the view abstains.  Bursts that fit one unit well but not clearly are a view that
        # does not agree: then the durations alone are not enough (they mistook 112 KiB for
        # 128 KiB on drives the simulator did not draw).
        unit, conf = dur_best, MEDIUM
        why += " (the bursts are not countable: that view abstains)" if bursts is not None else ""
    elif hidden and rate_unit is not None and merged <= RUN_TOGETHER:
        # Host-bound reads hide the unit in the durations, not in the array reads: the
        # largest read's bursts, the same on every repeat, fit one unit only.
        unit, conf = rate_unit, MEDIUM
        why += (f"; the largest read shows {'/'.join(str(int(c)) for c in rate_counts)} bursts "
                f"(every repeat), which only {name(rate_unit)} predicts")
    else:
        decided = (bursts is not None and burst_clear) + dur_decides
        disputed = decided == 2 or (bursts is not None and agree >= BURSTS_UNREADABLE and dur_decides)
        return _open_unit(disputed, busy, busy_decides, ripple, why + busy_why, base)
    if busy is not None and busy_decides and unit != busy.unit_bytes:
        # the busy time counts other array reads than the answer: views that disagree
        return ReadUnitResult(None, None, UNDETERMINED, why + busy_why + f" — it does not agree with {name(unit)}", **base)
    if busy is not None and busy.unit_bytes is not None and busy_decides:
        why += busy_why
    if unit is None:
        # Every read one unit: the unit holds the largest read, and may be exactly it.
        return ReadUnitResult(None, largest, conf, why, **base)
    return ReadUnitResult(int(unit), None, conf, why, **base)

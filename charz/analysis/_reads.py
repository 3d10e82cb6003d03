"""The read I/O unit (003 §4.1, §5.2–5.5): one burst of flash activity per unit read.

After sensing one read unit the controller lets the flash power drop while the
data moves to the host, so a read of ``n`` units draws ``n`` bursts and takes
``n`` times as long, plus the host transfer.  Two views of the same fact:

* **durations**: each candidate unit ``R`` (whole pages, or larger than every read
  tried) is a linear model ``duration = c0 + c1·ceil(size / R) + c2·size`` fitted
  to the per-size median durations; the best BIC wins when it wins clearly;
* **bursts**: the peaks of a moving average of each read's active window,
  counted with scipy's ``find_peaks`` (prominence ≥ 35 % of the window's range);
  they must agree with ``ceil(size / R)`` for the answer to be confident.

003 smooths read patterns with w = 100 samples at 4 µs; a burst shorter than
that window would vanish, so the window here is 100 samples or an eighth of a
one-unit read, whichever is smaller (stated in the result).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.ndimage import median_filter
from scipy.signal import find_peaks

from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._smooth import W_PATTERN, moving_average
from charz.analysis._steps import summarize_sizes

DECISIVE = 10.0
SUGGESTIVE = 6.0
PROMINENCE_SHARE = 0.35
SPIKE_MEDIAN = 5  # samples; longer than a spike, shorter than a burst
# Below this share of sizes fitted by any unit, the burst counts are noise, not a view.
BURSTS_UNREADABLE = 0.5


@dataclass(frozen=True)
class ReadUnitResult:
    unit_bytes: int | None
    more_than_bytes: int | None  # set when every read tried is one unit
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


def count_bursts(values: np.ndarray, window: int, noise: float = 0.0, min_distance: int = 1) -> int:
    """Bursts in one read's active window (float samples), by peak prominence.

    Example
    -------
    >>> t = np.arange(600)
    >>> x = 0.1 + 0.05 * ((t // 50) % 3 == 0)          # a burst every 150 samples
    >>> count_bursts(x, 5)
    4
    """
    # Imported here: scipy.signal takes 0.65 s to import, and only sessions with reads need it.

    x = np.asarray(values, dtype=np.float64)
    if x.size < 3 * window:
        return 1
    # Rare spikes (a sample or two, 50-150 mA on a real bench) would set the range the
    # prominence is measured against; a 5-sample median removes them and keeps every burst.
    ma = moving_average(median_filter(x, size=SPIKE_MEDIAN, mode="nearest"), window)
    # A burst's top is often flat (ADC steps survive the median); rounding off the sums'
    # float error lets find_peaks see it as one plateau and place its peak mid-way, so the
    # distance between neighbours is measured centre to centre.
    ma = np.round(ma, 9)
    lo, hi = np.percentile(ma, 5), ma.max()
    prominence = max(PROMINENCE_SHARE * (hi - lo), 6 * noise / np.sqrt(window))
    if prominence <= 0:
        return 1
    # Pad with the floor so a burst at either edge of the window is a peak too.
    padded = np.concatenate([[lo], ma, [lo]])
    peaks, _ = find_peaks(padded, prominence=prominence, distance=max(1, window, min_distance))
    return max(1, int(peaks.size))


def fit_read_unit(
    size_bytes: np.ndarray,
    duration_s: np.ndarray,
    bursts: np.ndarray | None,
    page_size_bytes: int,
    host_rate_bytes_per_s: float | None = None,
) -> ReadUnitResult:
    """Choose the read unit from burst counts and read durations.

    The bursts decide: each candidate unit ``R`` (whole pages, or larger than every
    read tried) predicts ``ceil(size / R)`` bursts, and the best must beat the next
    clearly.  The durations must agree: with the host transfer taken out at the given
    link rate (or fitted), the time must rise in steps of ``R``.  Agreement gives a
    confident answer; either view alone, a medium one; disagreement, none.

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
    s = summarize_sizes(size_bytes[ok], duration_us[ok])
    sizes = s.size_pages.astype(np.float64)  # bytes here
    if sizes.size < 3:
        return ReadUnitResult(None, None, UNDETERMINED, "reads of fewer than three sizes")
    largest = int(sizes.max())
    # None stands for every unit at least as large as the largest read: they all predict one burst.
    units: list[int | None] = list(range(page_size_bytes, largest, page_size_bytes)) + [None]

    def predicted(r):
        return np.ones_like(sizes) if r is None else np.ceil(sizes / r)

    # Durations: host transfer out at the given rate (it grows with every byte, not in steps).
    y = s.median - (sizes / host_rate_bytes_per_s * 1e6 if host_rate_bytes_per_s else 0.0)
    w = 1.0 / np.hypot(s.stderr, 2.0) ** 2
    sw = np.sqrt(w)
    dur_scores = {}
    for r in units:
        cols = [np.ones_like(sizes)] + ([predicted(r)] if r is not None else [])
        if not host_rate_bytes_per_s:
            cols.append(sizes)
        x = np.stack(cols, axis=1)
        coef, *_ = np.linalg.lstsq(x * sw[:, None], y * sw, rcond=None)
        positive = r is None or coef[1] > 0
        chi2 = float(np.sum(w * (y - x @ coef) ** 2))
        dur_scores[r] = (chi2 + len(cols) * np.log(sizes.size)) if positive else np.inf
    dur_order = sorted(units, key=lambda r: dur_scores[r])
    dur_best = dur_order[0]
    dur_margin = dur_scores[dur_order[1]] - dur_scores[dur_best]
    # A unit the sweep cannot tell from its own step (R = the size step) only shows in bursts.
    dur_decides = dur_margin >= SUGGESTIVE and np.isfinite(dur_scores[dur_best])

    base = dict(sizes_bytes=s.size_pages.astype(np.int64), duration_us=s.median)
    burst_best = None
    agree = 0.0
    if bursts is not None:
        b = summarize_sizes(size_bytes[ok], np.asarray(bursts, dtype=np.float64)[ok])
        base["bursts"] = b.median
        mismatch = {r: int(np.sum(np.abs(b.median - predicted(r)) >= 0.5)) for r in units}
        order = sorted(units, key=lambda r: (mismatch[r], r is None, r or 0))
        burst_best = order[0]
        agree = 1.0 - mismatch[burst_best] / sizes.size
        # Ties (e.g. R and R+page both fit when no size lies between) go to the smaller unit.
        burst_clear = agree >= 0.8 and mismatch[order[1]] > mismatch[burst_best]

    def name(r):
        return f"larger than {largest} B" if r is None else f"{r} B"

    why = (f"bursts: {name(burst_best)} fits {agree:.0%} of sizes; " if burst_best is not None or bursts is not None else "") + (
        f"durations: {name(dur_best)}" + (f" by a margin of {dur_margin:.0f}" if np.isfinite(dur_margin) else ""))
    if bursts is not None and burst_clear and dur_decides and burst_best == dur_best:
        unit, conf = burst_best, HIGH
    elif bursts is not None and burst_clear and (not dur_decides or dur_scores[burst_best] - dur_scores[dur_best] < SUGGESTIVE):
        unit, conf = burst_best, MEDIUM
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
    else:
        return ReadUnitResult(None, None, UNDETERMINED, why + " — the two views do not agree", **base)
    if unit is None:
        return ReadUnitResult(None, largest, conf, why, **base)
    return ReadUnitResult(int(unit), None, conf, why, **base)

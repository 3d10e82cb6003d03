"""Array reads counted as the cycles of a long read's ripple (003 §5.2, a bench's lock-in).

A long read repeats one pattern per read unit: the array read (tR at the sense current),
then the unit's pages over the channels.  Where the host link is slower than the flash the
pattern rides on the host transfer's level, where reads are back to back its bursts touch:
then the bursts' peaks are no count (their prominence is lost against the window's range),
but the pattern's period still is.  A person at the bench reads it as they would with a
lock-in amplifier:

* the **period** ``P``: the first autocorrelation peak (at least 85 % of the highest) of the
  read's current, median-filtered and with its slow level (a moving average over a sixth
  of the read) taken out; lags shorter than 15 µs are no array read (the fastest SLC tR in
  a datasheet is 25 µs) and the search stops at a sixth of the read (six cycles at least);
* the **cycles**: the read's current demodulated at ``1/P`` (in-phase and quadrature, each
  averaged over ``2P``) gives the ripple's envelope; the time it spends above half its 90th
  percentile, divided by ``P``, is the number of array reads — the pattern ends where the
  flash does, even where the host transfer goes on.

The strength (the autocorrelation at ``P``) says how clearly the read repeats; a view built
on it states the threshold it uses (:func:`ripple_unit`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft
from scipy.ndimage import median_filter, uniform_filter1d
from scipy.signal import find_peaks

MIN_PERIOD_S = 15e-6
FUNDAMENTAL = 0.85
# The view: more than half of the repeats (two at least) must repeat this clearly ...
MIN_STRENGTH = 0.2
# ... with periods within a tenth of their median; the unit's count must be within this
# share of the cycles, from at least this many units (six cycles at least measure a period;
# a few more keep the envelope's two ends, half a cycle each, a small share).
CYCLES_TOLERANCE = 0.15
MIN_UNITS = 8


@dataclass(frozen=True)
class Ripple:
    """One read's ripple: its period (s; NaN where none), strength and cycles."""

    period_s: float
    strength: float
    cycles: float


NO_RIPPLE = Ripple(float("nan"), 0.0, float("nan"))


def read_ripple(values: np.ndarray, sample_interval_s: float) -> Ripple:
    """The period and cycle count of one read's current (its active window, float samples).

    Example
    -------
    Twenty array reads of 40 µs at +20 mA, each followed by 50 µs of transfer at +8 mA, on
    a 2 µs grid:

    >>> t = np.arange(1000) * 2.0
    >>> x = 0.1 + np.where(t % 90 < 40, 0.020, 0.008) * (t < 1800)
    >>> r = read_ripple(x, 2e-6)
    >>> round(r.period_s * 1e6), abs(r.cycles - 20) < 1
    (90, True)
    """
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    lo = max(3, int(np.ceil(MIN_PERIOD_S / sample_interval_s)))
    hi = n // 6
    if hi <= lo + 2:
        return NO_RIPPLE
    x = median_filter(x, 5, mode="nearest")
    r = x - uniform_filter1d(x, size=hi, mode="nearest")
    r = r - r.mean()
    m = next_fast_len(2 * n, real=True)  # zero-padded past 2n: no lag wraps around
    f = rfft(r, m)
    ac = irfft(f * np.conj(f), m)[:n]
    if not ac[0] > 0:
        return NO_RIPPLE
    ac = ac / ac[0] / (1.0 - np.arange(n) / n)  # unbiased: each lag over the samples it has
    peaks, _ = find_peaks(ac[:hi])
    peaks = peaks[peaks >= lo]
    if peaks.size == 0 or not ac[peaks].max() > 0:
        return NO_RIPPLE
    # The fundamental, not a multiple of it: the first peak nearly as high as the highest.
    k = int(peaks[np.flatnonzero(ac[peaks] >= FUNDAMENTAL * ac[peaks].max())[0]])
    phase = 2.0 * np.pi * np.arange(n) / k
    i = uniform_filter1d(r * np.cos(phase), size=2 * k, mode="nearest")
    q = uniform_filter1d(r * np.sin(phase), size=2 * k, mode="nearest")
    env = np.hypot(i, q)
    span = np.count_nonzero(env > 0.5 * np.percentile(env, 90))
    return Ripple(k * sample_interval_s, float(ac[k]), span / k)


@dataclass(frozen=True)
class RippleView:
    unit_bytes: int | None
    reason: str


def ripple_unit(ripples: list[Ripple], largest_bytes: int, page_size_bytes: int) -> RippleView:
    """The unit the largest read's ripple names: its cycles are its array reads.

    More than half of the repeats (two at least) must repeat clearly (strength ≥ 0.2) with
    the same period (within a tenth): one repeat in three lost in the noise is an outlier; their median cycle count is then read against
    units of 2^k pages (a controller stripes a unit over a power of two of pages), each
    predicting ``ceil(largest / R)`` array reads: exactly one, of at least eight reads, must
    lie within 15 % of the count.  A count between two units (a ripple lost in part of the
    read, or a pattern of two periods) names none.

    >>> r = [Ripple(92e-6, 0.55, 31.0), Ripple(93e-6, 0.6, 33.5), Ripple(92e-6, 0.5, 32.4)]
    >>> ripple_unit(r, 524288, 16384).unit_bytes
    16384
    >>> ripple_unit(r[:2] + [NO_RIPPLE], 524288, 16384).unit_bytes     # two of three
    16384
    >>> ripple_unit(r[:1] + [NO_RIPPLE, NO_RIPPLE], 524288, 16384).unit_bytes is None
    True
    """
    n = len(ripples)
    clear = [r for r in ripples if r.strength >= MIN_STRENGTH and np.isfinite(r.period_s)]
    need = max(2, n // 2 + 1)
    if len(clear) < need:
        return RippleView(None, f"ripple: {len(clear)} of {n} largest reads repeat clearly, no view")
    period = np.array([r.period_s for r in clear])
    p = float(np.median(period))
    same = [r for r in clear if abs(r.period_s - p) <= 0.1 * p]
    if len(same) < need:
        return RippleView(None, f"ripple: the largest reads' periods differ ({', '.join(f'{x * 1e6:.0f}' for x in period)} µs), "
                                "no view")
    cycles = float(np.median([r.cycles for r in same]))
    pages = largest_bytes / page_size_bytes
    units = page_size_bytes * 2 ** np.arange(0, max(1, int(np.floor(np.log2(max(pages, 1.0))))))
    pred = np.ceil(largest_bytes / units)
    fit = units[(np.abs(pred - cycles) <= CYCLES_TOLERANCE * pred) & (pred >= MIN_UNITS)]
    head = f"ripple: {cycles:.1f} cycles of {p * 1e6:.0f} µs in the largest read"
    if fit.size != 1:
        return RippleView(None, head + " (no unit of 2^k pages predicts that many, no view)")
    return RippleView(int(fit[0]), head + f", the {int(pred[units == fit[0]][0])} array reads of {int(fit[0])} B")


__all__ = ["Ripple", "RippleView", "NO_RIPPLE", "read_ripple", "ripple_unit"]

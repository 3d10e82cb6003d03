"""Summaries of values grouped by a key (a request size), for every group at once."""

from __future__ import annotations

import numpy as np


def medians_by(group: np.ndarray, counts: np.ndarray, x: np.ndarray, median) -> np.ndarray:
    """``median(x[group == g])`` for every group g (``counts`` of each), from one sort instead
    of a median call per request size.  numpy's median of n sorted values is the middle one,
    or the two middle ones' mean ((a + b) / 2, as here): the same bits.  A group holding a
    NaN (sorted last within it) keeps ``median`` itself, whose NaN rules differ, and so does a
    group whose middle is a zero (which of 0.0 and -0.0 numpy's partition picks, a sort need not)."""
    v = x[np.lexsort((x, group))]
    first = np.cumsum(counts) - counts
    lo, hi = first + (counts - 1) // 2, first + counts // 2
    out = np.where(lo == hi, v[lo], (v[lo] + v[hi]) / 2)
    for g in np.flatnonzero(np.isnan(v[first + counts - 1]) | (v[lo] == 0) | (v[hi] == 0)):
        out[g] = median(x[group == g])
    return out


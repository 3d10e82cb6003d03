"""Summaries of values grouped by a key (a request size), for every group at once."""

from __future__ import annotations

import numpy as np


def medians_by(group: np.ndarray, counts: np.ndarray, x: np.ndarray, median=np.median) -> np.ndarray:
    """``median(x[group == g])`` for every group g (``counts`` of each), one call per distinct
    count instead of one per request size: groups with the same number of repeats form one
    (groups × repeats) block, and ``median(block, axis=1)`` is numpy's own median of each row
    (the same technique as ``summarize_sizes``; a sweep has one or two distinct counts)."""
    v = np.asarray(x)[np.argsort(group, kind="stable")]
    first = np.cumsum(counts) - counts
    out = np.empty(counts.size)
    for c in np.unique(counts):
        which = np.flatnonzero(counts == c)
        out[which] = median(v[first[which][:, None] + np.arange(c)], axis=1)
    return out

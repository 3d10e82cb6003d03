"""Moving averages, as 003 §5.1.3 uses them.

Window alignment (the one convention charz uses everywhere): the average
assigned to sample ``i`` covers ``x[i - w//2 : i - w//2 + w]``, i.e. for the
paper's w = 20 the samples ``i-10 … i+9``.  :func:`moving_average` returns only
the fully covered positions, ``len(x) - w + 1`` values, the first belonging to
sample ``w//2``.  Sums are accumulated exactly (int64 for integer codes) or in
float64, never in float32.
"""

from __future__ import annotations

import numpy as np

W_PEAK = 20  # 003: window for peak levels (internal parallelism)
W_PATTERN = 100  # 003: window for patterns (I/O unit, read bursts)


def _arg_window(w: int, n: int) -> int:
    w = int(w)
    if w < 1:
        raise ValueError(f"window must be >= 1, got {w}")
    if w > n:
        raise ValueError(f"window {w} is longer than the data ({n} samples)")
    return w


def _accumulator(dtype: np.dtype, run: int) -> type:
    """Exact and fast: int32 for 8/16-bit codes while ``run`` of them cannot overflow it —
    a long prefix sum may wrap, but a difference over ``run`` samples is still exact
    (modular arithmetic); int64 for wider integers, float64 for floats."""
    if not np.issubdtype(dtype, np.integer):
        return np.float64
    return np.int32 if np.dtype(dtype).itemsize <= 2 and run < 32768 else np.int64


def moving_average(x: np.ndarray, w: int, *, axis: int = -1) -> np.ndarray:
    """Mean of every run of ``w`` consecutive samples along ``axis`` (float64).

    Example
    -------
    >>> moving_average(np.array([0, 0, 3, 3], dtype=np.int8), 2).tolist()
    [0.0, 1.5, 3.0]
    """
    x = np.asarray(x)
    x = np.moveaxis(x, axis, -1)
    w = _arg_window(w, x.shape[-1])
    acc = _accumulator(x.dtype, w)
    c = np.zeros(x.shape[:-1] + (x.shape[-1] + 1,), dtype=acc)
    np.cumsum(x, axis=-1, dtype=acc, out=c[..., 1:])
    out = (c[..., w:] - c[..., :-w]) / float(w)
    return np.moveaxis(out, -1, axis)


def block_means(x: np.ndarray, block: int) -> np.ndarray:
    """Means of consecutive non-overlapping blocks along the last axis (a trailing partial block is dropped).

    One pass over the data: a coarse look at a whole record without a sliding
    window over every sample (autoset's idle record; the window kernel forms the
    same means inside its per-capture loop).

    Example
    -------
    >>> block_means(np.arange(7), 3).tolist()
    [1.0, 4.0]
    """
    x = np.asarray(x)
    n_blocks = x.shape[-1] // block
    if n_blocks == 0:
        raise ValueError(f"a record of {x.shape[-1]} samples holds no block of {block}")
    acc = _accumulator(x.dtype, block)
    sums = x[..., : n_blocks * block].reshape(x.shape[:-1] + (n_blocks, block)).sum(axis=-1, dtype=acc)
    return sums / float(block)

"""From captures in memory to what the figures draw: per-capture peaks, chosen sizes, smoothed curves.

Pure: the archive has been read and measured before anything here runs.  The
peaks are taken exactly as the analysis takes them (max of the w = 20 average
minus the idle level just before the request), so the dots of figure 1 are the
numbers whose medians the profile's ``steps`` table holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from charz.analysis import moving_average
from charz.archive import Capture
from charz.report._curve import Curve
from charz.report._numbers import size_label

__all__ = [
    "Measured",
    "representative_captures",
    "select_read_sizes",
    "select_write_pages",
    "smoothed_curve",
    "time_span_s",
    "write_peaks",
]


@dataclass(frozen=True)
class Measured:
    """The per-capture measurements the report draws, one array entry per capture.

    A narrow copy of :class:`charz.analysis.CaptureTable`: the report depends on these
    columns only, so the analysis may grow its table without breaking the report.
    """

    op: np.ndarray
    size_bytes: np.ndarray
    repeat: np.ndarray
    index: np.ndarray
    local_baseline_a: np.ndarray
    end_s: np.ndarray
    peak_a: np.ndarray
    usable: np.ndarray

    __hash__ = None  # type: ignore[assignment]  # holds arrays

    @classmethod
    def of(cls, **columns: Any) -> "Measured":
        """Build from arrays; the ones not given are filled with neutral values (for tests and examples).

        Examples
        --------
        >>> Measured.of(op=["write"], size_bytes=[4096]).usable.tolist()
        [True]
        """
        op = np.asarray(columns.pop("op"))
        n = op.size
        defaults = {"size_bytes": np.zeros(n, np.int64), "repeat": np.zeros(n, np.int64), "index": np.arange(n),
                    "local_baseline_a": np.zeros(n), "end_s": np.full(n, np.nan), "peak_a": np.full(n, np.nan),
                    "usable": np.ones(n, bool)}
        arrays = {k: np.asarray(columns.pop(k, v)) for k, v in defaults.items()}
        if columns:
            raise TypeError(f"unknown columns {sorted(columns)}")
        return cls(op=op, **arrays)

    @classmethod
    def from_table(cls, table: Any) -> "Measured":
        """The columns of an analysis ``CaptureTable`` (anything with those attributes)."""
        return cls(op=np.asarray(table.op), size_bytes=np.asarray(table.size_bytes), repeat=np.asarray(table.repeat),
                   index=np.asarray(table.index), local_baseline_a=np.asarray(table.local_baseline_a),
                   end_s=np.asarray(table.end_s), peak_a=np.asarray(table.peak_a), usable=np.asarray(table.usable))


def write_peaks(table: Measured, page_size_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """Size in pages and peak above the local idle level of every usable whole-page write.

    Examples
    --------
    >>> t = Measured.of(op=["write", "write", "read"], size_bytes=[4096, 6000, 4096],
    ...                 local_baseline_a=[0.01] * 3, peak_a=[0.2, 0.3, 0.4])
    >>> pages, peaks = write_peaks(t, 4096)
    >>> pages.tolist(), np.round(peaks, 3).tolist()
    ([1], [0.19])
    """
    if page_size_bytes <= 0:
        raise ValueError(f"page size must be positive, got {page_size_bytes}")
    keep = (table.op == "write") & table.usable & (table.size_bytes % page_size_bytes == 0)
    return table.size_bytes[keep] // page_size_bytes, table.peak_a[keep] - table.local_baseline_a[keep]


def _spread(values: Sequence[int], n: int) -> list[int]:
    """At most ``n`` of ``values`` evenly spaced by position, first and last kept."""
    values = list(values)
    if len(values) <= n:
        return values
    picks = np.unique(np.round(np.linspace(0, len(values) - 1, n)).astype(int))
    return [values[i] for i in picks]


def select_write_pages(available_pages: Iterable[int], rises_after_pages: Sequence[int], *, max_n: int = 6) -> list[int]:
    """Write sizes worth overlaying: one page, the last size of each step, the first size of the top step.

    These are the sizes 003's write figures contrast: the peak climbs only at the step
    boundaries, while the duration grows with every unit.  Without a staircase the
    sizes are spread evenly over the sweep.

    Examples
    --------
    >>> select_write_pages(range(1, 41), [8, 16, 24])
    [1, 8, 16, 24, 25, 40]
    >>> select_write_pages(range(1, 41), [])
    [1, 9, 17, 24, 32, 40]
    >>> select_write_pages(range(1, 41), [1, 2, 3, 4, 5, 6, 7])
    [1, 2, 4, 7, 8, 40]
    """
    available = sorted(set(int(p) for p in available_pages))
    if not available:
        return []
    if not rises_after_pages:
        return _spread(available, max_n)
    top = int(max(rises_after_pages)) + 1  # the first size that keeps every package busy
    essential = {p for p in (available[0], top, available[-1]) if p in available}
    rises = [p for p in available if p in {int(r) for r in rises_after_pages} and p not in essential]
    # Many narrow steps (X-25M, 840): keep the ends and the top step, thin the risers between.
    rises = _spread(rises, max(0, max_n - len(essential)))
    return sorted(essential | set(rises))


def select_read_sizes(available_bytes: Iterable[int], *, unit_bytes: int | None, page_bytes: int | None,
                      max_n: int = 4) -> list[int]:
    """Read sizes that show the read unit: one page, one unit, one unit and a page, the largest.

    The same choice as 003 Fig. 15 (MXP: 4, 32, 36 and 512 KB): a read within one unit
    draws one burst, one page more draws two, and the largest read shows the repetition.
    Each wanted size is replaced by the nearest size the session has.

    Examples
    --------
    >>> sizes = [4096 * k for k in range(1, 41)] + [524288]
    >>> [s // 1024 for s in select_read_sizes(sizes, unit_bytes=32768, page_bytes=4096)]
    [4, 32, 36, 512]
    >>> [s // 1024 for s in select_read_sizes([4096, 8192], unit_bytes=None, page_bytes=None)]
    [4, 8]
    """
    available = np.array(sorted(set(int(s) for s in available_bytes)), dtype=np.int64)
    if available.size == 0:
        return []
    if unit_bytes:
        wanted = [page_bytes or available[0], unit_bytes, unit_bytes + (page_bytes or unit_bytes), available[-1]]
        picks = sorted({int(available[np.argmin(np.abs(available - w))]) for w in wanted})
        return _spread(picks, max_n)
    return _spread([int(s) for s in available], max_n)


def representative_captures(table: Measured, op: str, sizes_bytes: Iterable[int]) -> dict[int, int]:
    """For each size, the archive index of its first usable capture (lowest repeat); sizes without one are left out.

    Examples
    --------
    >>> t = Measured.of(op=["write"] * 3, size_bytes=[4096, 4096, 8192], repeat=[1, 0, 0], index=[10, 11, 12],
    ...                 usable=[True, True, False])
    >>> representative_captures(t, "write", [4096, 8192])
    {4096: 11}
    """
    chosen = {}
    for size in sizes_bytes:
        hit = np.flatnonzero((table.op == op) & (table.size_bytes == size) & table.usable)
        if hit.size:
            chosen[int(size)] = int(table.index[hit[np.argmin(table.repeat[hit])]])
    return chosen


def time_span_s(table: Measured, indices: Iterable[int], *, margin: float = 0.15) -> tuple[float, float] | None:
    """A time range holding the active windows of these captures, with a margin either side.

    Examples
    --------
    >>> t = Measured.of(op=["write"] * 2, end_s=[1e-3, 2e-3])
    >>> [round(v * 1e6) for v in time_span_s(t, [0, 1])]
    [-300, 2300]
    """
    rows = np.isin(table.index, list(indices))
    ends = table.end_s[rows]
    ends = ends[np.isfinite(ends)]
    if ends.size == 0:
        return None
    last = float(ends.max())
    # Start a little before the request, to show the idle level the peaks are measured from.
    return (-margin * last, (1 + margin) * last) if last > 0 else None


def smoothed_curve(capture: Capture, window_samples: int, *, channel: str = "current") -> Curve:
    """One capture's current averaged over ``window_samples``, on its own time axis.

    The moving average assigned to sample ``i`` covers samples ``i - w//2 …`` (the
    convention of :func:`charz.analysis.moving_average`), so the k-th average belongs
    to sample ``w//2 + k`` and the curve is not shifted in time.

    Examples
    --------
    >>> from charz.archive import Capture, Channel
    >>> from charz.waveform import Waveform
    >>> w = Waveform(np.array([0, 0, 10, 10], dtype=np.int8), 0.01, 0, 0.0, 1e-6, 0.0, unit="A",
    ...              source="CH1", code_min=-128, code_max=127)
    >>> cap = Capture(step=0, op="write", size_bytes=4096, offset_bytes=0, repeat=0,
    ...               time_reference="request", channels=[Channel("current", w)])
    >>> c = smoothed_curve(cap, 2)
    >>> (c.t_s * 1e6).round(3).tolist(), c.current_a.round(3).tolist()
    ([1.0, 2.0, 3.0], [0.0, 0.05, 0.1])
    """
    current_a = capture.channel(channel).waveform.values()
    averaged = moving_average(current_a, window_samples)
    first = window_samples // 2
    t_s = capture.t_first_sample_s + (first + np.arange(averaged.size)) * capture.sample_interval_s
    return Curve(size_label(capture.size_bytes), t_s, averaged, size_bytes=capture.size_bytes,
                 capture_index=-1 if capture.index is None else capture.index)

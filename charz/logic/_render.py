"""A die's R/B operations (start, width in µs) → the logic samples an analyser would record.

Used by the mock analyser: the simulated FTL says when die 0 was busy; this turns
it into one byte per sample with R/B on bit 0 (high = ready), which charz then
writes as a sigrok session file for the real ``sigrok-cli`` to read back.

Two liberties, both stated in the result and neither changing a pulse's width:

* a real R/B goes high between two operations for at least the next command's
  cycles (and a program's data transfer); operations the simulator put back to
  back, or overlapping, are moved later so at least ``min_gap_us`` of high lies
  between them — else two pulses would merge into one;
* idle stretches longer than ``max_gap_us`` are shortened to it (R/B stays high
  there, so no pulse is lost; the file just does not carry minutes of nothing).
  Before the first pulse come ``lead_us`` of high, after the last ``tail_us`` (at least ``min_gap_us``)
  (the settle time the stop rule waits for).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = ["RenderedTrain", "place_pulses", "render_chunks"]


@dataclass(frozen=True)
class RenderedTrain:
    """Pulse edges in samples (``starts[i] ≤ t < ends[i]`` is low) and what placing them changed."""

    starts: np.ndarray
    ends: np.ndarray
    total_samples: int
    samplerate_hz: float
    moved: int          # pulses moved later to keep min_gap_us of high before them
    shortened_gaps: int  # idle stretches shortened to max_gap_us

    @property
    def n_pulses(self) -> int:
        return int(self.starts.size)


def place_pulses(start_us, width_us, samplerate_hz: float, *, min_gap_us: float = 5.0,
                 max_gap_us: float = 50_000.0, lead_us: float = 1000.0, tail_us: float = 0.0) -> RenderedTrain:
    """Sample positions of every low pulse, in order, none overlapping (see the module docstring).

    Example
    -------
    >>> t = place_pulses([0.0, 100.0], [900.0, 30.0], 1e6, lead_us=10)
    >>> t.starts.tolist(), t.ends.tolist(), t.moved
    ([10, 915], [910, 945], 1)
    """
    start = np.asarray(start_us, dtype=np.float64)
    width = np.asarray(width_us, dtype=np.float64)
    if start.shape != width.shape or start.ndim != 1:
        raise ValueError("start_us and width_us are 1-D arrays of the same length")
    if not (np.all(np.isfinite(start)) and np.all(width > 0)):
        raise ValueError("pulse starts must be finite and widths > 0")
    if not (0 < min_gap_us < max_gap_us):
        raise ValueError("need 0 < min_gap_us < max_gap_us")
    per_us = samplerate_hz / 1e6
    order = np.argsort(start, kind="stable")
    s = np.rint(start[order] * per_us).astype(np.int64)
    w = np.maximum(np.rint(width[order] * per_us).astype(np.int64), 1)
    g = max(int(np.ceil(min_gap_us * per_us)), 1)
    if s.size:
        # earliest start that keeps g samples of high after every earlier pulse:
        # s'_i = max_{j ≤ i} (s_j + Σ_{k=j}^{i-1} (w_k + g))
        c = np.concatenate(([0], np.cumsum(w + g)[:-1]))
        placed = c + np.maximum.accumulate(s - c)
        moved = int(np.count_nonzero(placed != s))
        # shorten long idle stretches (and the lead) to max_gap / lead
        maxg = int(max_gap_us * per_us)
        gaps = np.diff(placed) - w[:-1]
        excess = np.concatenate(([0], np.maximum(gaps - maxg, 0)))
        lead = max(int(round(lead_us * per_us)), g)  # starts high: the first pulse is whole
        placed = placed - np.cumsum(excess) - placed[0] + lead
        starts, ends = placed, placed + w
        total = int(ends[-1] + max(round(tail_us * per_us), g))  # always ends high: the last pulse is whole
        shortened = int(np.count_nonzero(excess))
    else:
        starts = ends = np.zeros(0, np.int64)
        total, moved, shortened = int(round((lead_us + tail_us) * per_us)), 0, 0
    return RenderedTrain(starts, ends, total, float(samplerate_hz), moved, shortened)


def render_chunks(train: RenderedTrain, chunk_samples: int = 4 << 20) -> Iterator[np.ndarray]:
    """The samples, ``chunk_samples`` at a time: 1 (ready) or 0 (busy) on bit 0."""
    if chunk_samples <= 0:
        raise ValueError("chunk_samples must be > 0")
    for t0 in range(0, train.total_samples, chunk_samples):
        n = min(chunk_samples, train.total_samples - t0)
        i0 = int(np.searchsorted(train.ends, t0, side="right"))
        i1 = int(np.searchsorted(train.starts, t0 + n, side="left"))
        d = np.zeros(n + 1, np.int32)
        np.add.at(d, np.clip(train.starts[i0:i1] - t0, 0, n), -1)
        np.add.at(d, np.clip(train.ends[i0:i1] - t0, 0, n), 1)
        yield (1 + np.cumsum(d[:n])).astype(np.uint8)

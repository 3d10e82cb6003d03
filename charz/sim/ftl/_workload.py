"""Host request streams for the simulated FTL: 000 Table 3's micro-benchmarks as arrays.

A request array is a structured numpy array of ``REQUEST_DTYPE``: ``op`` (0 read,
1 write, 2 trim), ``offset`` and ``length`` in bytes.  The conventions follow fio's
where fio has one, so the mock and the real bench run the same thing:

* random offsets are uniform multiples of the alignment (4 KiB "aligned", 512 B
  "4KiB-no-align", 000 Table 3) with the request inside the user space;
* sequential requests are contiguous from offset 0 (aligned) or 512 (not aligned) and
  wrap at the end of the user space;
* the written volume is ``volume_bytes`` rounded up to whole requests; with
  ``write_fraction`` < 1 reads are mixed in at random positions, in the proportion
  asked for, drawn from the same offset pattern.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from charz.sim.ftl._kernel import OP_READ, OP_TRIM, OP_WRITE
from charz.workload import TABLE3_SIZES, table3_label

REQUEST_DTYPE = np.dtype([("op", np.uint8), ("offset", np.int64), ("length", np.int64)])
SECTOR = 512


@dataclass(frozen=True)
class Workload:
    """One micro-benchmark.  ``hot_space``/``hot_share``: a skewed random workload
    sending ``hot_share`` of the requests to the first ``hot_space`` of the user space
    (e.g. 0.2 / 0.8); ``None`` for uniform.  ``tiers``: more temperatures than two —
    ``(space, share)`` pairs laid out from offset 0, spaces and shares each adding up
    to 1 (002 §6.1's five groups with exponentially growing update frequencies)."""

    write_fraction: float = 1.0
    random: bool = True
    aligned: bool = True
    block_size: int = 4096
    volume_bytes: int = 1 << 30
    seed: int = 1
    hot_space: float | None = None
    hot_share: float | None = None
    align_bytes: int = 4096
    tiers: tuple[tuple[float, float], ...] | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.write_fraction <= 1.0:
            raise ValueError(f"write_fraction must be in (0, 1], got {self.write_fraction}")
        if self.block_size <= 0 or self.block_size % SECTOR:
            raise ValueError(f"block_size must be a positive multiple of {SECTOR} B, got {self.block_size}")
        if self.volume_bytes <= 0:
            raise ValueError(f"volume_bytes must be positive, got {self.volume_bytes}")
        if self.align_bytes <= 0 or self.align_bytes % SECTOR:
            raise ValueError(f"align_bytes must be a positive multiple of {SECTOR} B, got {self.align_bytes}")
        if (self.hot_space is None) != (self.hot_share is None):
            raise ValueError("hot_space and hot_share go together")
        if self.hot_space is not None and not (0.0 < self.hot_space < 1.0 and 0.0 < self.hot_share < 1.0):
            raise ValueError(f"hot_space and hot_share must be in (0, 1), got {self.hot_space}, {self.hot_share}")
        if not self.random and (self.tiers is not None or self.hot_space is not None):
            # a sequential stream has no place for them: they would be ignored silently
            raise ValueError("tiers and hot_space/hot_share pick random offsets: random=True")
        if self.tiers is not None:
            if self.hot_space is not None:
                raise ValueError("tiers replace hot_space/hot_share: give one or the other")
            sp = [t[0] for t in self.tiers]
            sh = [t[1] for t in self.tiers]
            if (len(self.tiers) < 2 or min(sp) <= 0 or min(sh) < 0 or not math.isclose(sum(sp), 1.0)
                    or not math.isclose(sum(sh), 1.0)):
                raise ValueError(f"tiers must be ≥ 2 (space > 0, share ≥ 0) pairs, spaces and shares each adding "
                                 f"up to 1, got {self.tiers}")

    @property
    def name(self) -> str:
        """000 Table 3's label, e.g. ``4K-RD-100%-W-4KiB-align``."""
        return table3_label(self.block_size, self.random, self.write_fraction, self.aligned)


def requests(op, offset, length) -> np.ndarray:
    """A request array from three equal-length sequences (or scalars)."""
    op, offset, length = np.broadcast_arrays(np.asarray(op), np.asarray(offset), np.asarray(length))
    out = np.empty(op.shape[0] if op.ndim else 1, dtype=REQUEST_DTYPE)
    out["op"], out["offset"], out["length"] = op.ravel(), offset.ravel(), length.ravel()
    return out


def make_fill(user_bytes: int, fraction: float = 1.0, block_size: int = 128 * 1024) -> np.ndarray:
    """Sequential writes over the first ``fraction`` of the user space (initial data)."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    total = int(user_bytes * fraction) // SECTOR * SECTOR
    starts = np.arange(0, total, block_size, dtype=np.int64)
    return requests(OP_WRITE, starts, np.minimum(block_size, total - starts))


def make_requests(w: Workload, user_bytes: int) -> np.ndarray:
    """The request array of ``w`` on a drive of ``user_bytes`` (seeded, deterministic)."""
    bs = w.block_size
    if user_bytes < bs + SECTOR:
        raise ValueError(f"user space {user_bytes} B is too small for {bs} B requests")
    rng = np.random.default_rng(w.seed)
    n_w = math.ceil(w.volume_bytes / bs)
    n = n_w if w.write_fraction >= 1.0 else round(n_w / w.write_fraction)
    ops = np.full(n, OP_READ, dtype=np.uint8)
    ops[rng.choice(n, size=n_w, replace=False) if n > n_w else slice(None)] = OP_WRITE
    align = w.align_bytes if w.aligned else SECTOR
    if w.random:
        slots = (user_bytes - bs) // align + 1
        if w.tiers is not None:
            edges = np.round(np.cumsum([0.0] + [t[0] for t in w.tiers]) * slots).astype(np.int64)
            k = rng.choice(len(w.tiers), size=n, p=np.array([t[1] for t in w.tiers]) / sum(t[1] for t in w.tiers))
            lo, hi = edges[k], np.maximum(edges[k + 1], edges[k] + 1)
            idx = np.minimum(lo + (rng.random(n) * (hi - lo)).astype(np.int64), slots - 1)
        elif w.hot_space is None:
            idx = rng.integers(0, slots, size=n, dtype=np.int64)
        else:
            hot = max(1, int(slots * w.hot_space))
            is_hot = rng.random(n) < w.hot_share
            idx = np.where(is_hot, rng.integers(0, hot, size=n, dtype=np.int64),
                           rng.integers(hot, max(hot + 1, slots), size=n, dtype=np.int64))
            idx = np.minimum(idx, slots - 1)
        offsets = idx * align
    else:
        start = 0 if w.aligned else SECTOR
        span = (user_bytes - start) // bs * bs
        offsets = start + (np.arange(n, dtype=np.int64) * bs) % span
    return requests(ops, offsets, np.full(n, bs, dtype=np.int64))


def table3(volume_bytes: int, seed: int = 1) -> list[Workload]:
    """000 Table 3's forty micro-benchmarks: 100 % / 50 % write × sequential / random ×
    4 KiB-aligned / not × 512 B … 32 KiB, each writing ``volume_bytes``."""
    return [Workload(write_fraction=wf, random=rnd, aligned=al, block_size=bs, volume_bytes=volume_bytes, seed=seed)
            for wf in (1.0, 0.5) for rnd in (False, True) for al in (True, False) for bs in TABLE3_SIZES]


__all__ = ["OP_READ", "OP_TRIM", "OP_WRITE", "REQUEST_DTYPE", "Workload", "make_fill", "make_requests", "requests",
           "table3"]

"""Read-modify-write below the write I/O unit (003 §5.5, Fig. 16).

A write smaller than the unit makes the controller first read the rest of the
unit from flash, so the write's waveform starts exactly like a read of the unit;
a whole-unit write starts with transfers and programs instead.  Each write's
head (its first ``head_s`` after the start, on a common 4 µs grid, idle level
removed) is compared with the head of a one-unit read; writes whose heads match
the read far better than whole-unit writes do are read-modify-writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from charz.analysis._groups import medians_by
from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED

GRID_S = 4e-6


@dataclass(frozen=True)
class RmwResult:
    detected: bool | None  # None: cannot tell
    affected_sizes_bytes: tuple[int, ...]
    confidence: str
    reason: str
    sizes_bytes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    head_distance_a: np.ndarray = field(default_factory=lambda: np.empty(0))  # per size, median over repeats


def _head_index(sample_interval_s: float, start_s: float, t_first_s: float, head_s: float) -> np.ndarray:
    """The common grid's times as (fractional) sample indices of the capture."""
    n = int(round(head_s / GRID_S))
    t = start_s + GRID_S * np.arange(n)
    return (t - t_first_s) / sample_interval_s


def head_span(n_samples: int, sample_interval_s: float, start_s: float, t_first_s: float,
              head_s: float) -> tuple[int, int]:
    """The samples ``[lo, hi)`` that :func:`head` interpolates between (each grid time's two
    neighbours, or the end it is clamped to): ``head(values[lo:hi], …, offset=lo)`` is the
    head of the whole capture, bit for bit, converting ~1/20 of a record's samples.  The
    grid's first and last indices are computed as :func:`_head_index` computes them (the
    grid rises, so they are its least and greatest)."""
    n = int(round(head_s / GRID_S))
    first = (start_s + GRID_S * 0 - t_first_s) / sample_interval_s
    last = (start_s + GRID_S * (n - 1) - t_first_s) / sample_interval_s
    if n < 1 or n_samples < 1 or not (math.isfinite(first) and math.isfinite(last)):
        return 0, n_samples
    lo = min(max(0, math.floor(first)), n_samples - 1)
    hi = min(max(lo + 1, math.floor(last) + 2), n_samples)
    return lo, hi


def head(values_a: np.ndarray, sample_interval_s: float, start_s: float, t_first_s: float, baseline_a: float, head_s: float,
         offset: int = 0) -> np.ndarray:
    """The first ``head_s`` of a capture after its start, on the common grid, idle removed.
    ``values_a`` may be the capture's samples from ``offset`` on (:func:`head_span`).

    Example
    -------
    >>> x = np.r_[np.zeros(10), np.ones(40)]
    >>> head(x, 2e-6, 20e-6, 0.0, 0.0, 16e-6).round(2).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    idx = _head_index(sample_interval_s, start_s, t_first_s, head_s)
    # idx - offset is exact (an integer off a float of at most 2^53): the same interpolation
    x = np.interp(idx - offset, np.arange(values_a.size), values_a)
    return x - baseline_a


def detect_rmw(
    write_sizes_bytes: np.ndarray,
    write_heads: np.ndarray,
    read_head: np.ndarray,
    unit_bytes: int | None,
    noise_a: float,
    write_durations_s: np.ndarray | None = None,
    read_s: float | None = None,
    host_rate_bytes_per_s: float | None = None,
) -> RmwResult:
    """Decide from head distances which write sizes start with a read.

    Parameters
    ----------
    write_sizes_bytes : (m,) ints
    write_heads : (m, n) floats
        Heads of the write captures (see :func:`head`).
    read_head : (n,) floats
        The median head of one-unit reads.
    unit_bytes : int or None
        The write I/O unit, if known: sizes that are not a multiple of it are the ones
        that should show read-modify-write.
    noise_a : float
        σ of one grid sample (of the heads' noise), to judge the separation.
    write_durations_s : (m,) floats, optional
        Durations of the same writes: the second view.  A write below the unit that
        reads first takes longer than a whole unit (003 Fig. 16); one that does not
        takes no longer.  A "no" needs this view not to show the read; a "yes" from it
        alone is medium.
    read_s : float, optional
        Duration of the smallest read measured: a read first must cost at least half of it.
    host_rate_bytes_per_s : float, optional
        The host link's rate: a write below the unit moves less data from the host than a
        whole unit, and that saving is added back before the durations are compared.

    Example
    -------
    >>> r = np.full(20, 0.1)
    >>> heads = np.array([r + 0.002, r + 0.001, r + 0.2, r + 0.19])
    >>> detect_rmw(np.array([4096, 8192, 32768, 65536]), heads, r, 32768, 0.005).affected_sizes_bytes
    (4096, 8192)
    """
    sizes = np.asarray(write_sizes_bytes, dtype=np.int64)
    d = np.sqrt(np.mean((np.asarray(write_heads) - read_head[None, :]) ** 2, axis=1))
    u, group, counts = np.unique(sizes, return_inverse=True, return_counts=True)
    per_size = medians_by(group, counts, d, np.median)
    base = dict(sizes_bytes=u, head_distance_a=per_size)
    if unit_bytes is None:
        return RmwResult(None, (), UNDETERMINED, "the write unit is not known, so there is nothing to compare against", **base)
    partial = u % unit_bytes != 0
    if not partial.any():
        return RmwResult(False, (), HIGH, f"every write was a whole number of {unit_bytes} B units: "
                         "read-modify-write cannot occur (none is needed)", **base)
    full = ~partial
    if not full.any():
        return RmwResult(None, (), UNDETERMINED, "no write of a whole number of units to compare with", **base)
    slower, slower_why = _below_unit_slower(sizes, write_durations_s, unit_bytes, read_s, host_rate_bytes_per_s)
    d_part, d_full = float(np.median(per_size[partial])), float(np.median(per_size[full]))
    spread = max(float(np.std(per_size[partial])), noise_a / 2)
    separation = (d_full - d_part) / spread
    looks_like_read = per_size < (d_part + d_full) / 2
    why = (f"heads of writes below the unit differ from a {unit_bytes} B read by {d_part * 1e3:.1f} mA rms, "
           f"whole-unit writes by {d_full * 1e3:.1f} mA rms ({separation:.0f} σ apart)")
    if slower_why:
        why += "; " + slower_why
    if d_part < 0.5 * d_full and separation >= 5:
        if slower is False:
            return RmwResult(None, (), UNDETERMINED, why + " — the heads and the durations disagree", **base)
        affected = tuple(int(s) for s, p, r in zip(u, partial, looks_like_read) if p and r)
        # "high" needs the second view too: the writes below the unit take a read longer
        return RmwResult(True, affected, HIGH if separation >= 10 and slower else MEDIUM, why, **base)
    if slower:
        affected = tuple(int(s) for s, p in zip(u, partial) if p and s < unit_bytes)
        return RmwResult(True, affected, MEDIUM, why, **base)
    if d_part >= 0.8 * d_full and slower is False:
        return RmwResult(False, (), MEDIUM, why + ": no write starts like a read", **base)
    return RmwResult(None, (), UNDETERMINED, why + " — not decisive", **base)


def _below_unit_slower(sizes: np.ndarray, durations_s: np.ndarray | None, unit_bytes: int,
                       read_s: float | None = None, host_rate_bytes_per_s: float | None = None) -> tuple[bool | None, str]:
    """Do writes below one unit take clearly longer than one whole unit (they read first)?

    ``None`` when the durations cannot say (none given, or no write below or at the unit).

    Example
    -------
    >>> s = np.repeat([4096, 8192, 16384], 3)
    >>> _below_unit_slower(s, np.where(s < 16384, 900e-6, 700e-6), 16384, 120e-6)[0]
    True
    >>> _below_unit_slower(s, np.where(s < 16384, 730e-6, 700e-6), 16384, 120e-6)[0] is None  # 30 µs: cannot say
    True
    >>> _below_unit_slower(s, np.where(s < 16384, 705e-6, 700e-6), 16384, 120e-6)[0]
    False
    """
    if durations_s is None:
        return None, ""
    d = np.asarray(durations_s, dtype=np.float64) * 1e6
    # The unit programs whole either way (padded or read first); a smaller write may save the
    # host moving fewer bytes — up to all of that time on a host-bound drive, none where the
    # pipeline hides it.  So a "yes" is judged on the raw durations (the saving can only hide a
    # read), a "no" after adding the largest saving back (it must leave no room for a read).
    saving = (np.clip(unit_bytes - sizes, 0, None) / host_rate_bytes_per_s * 1e6 if host_rate_bytes_per_s
              else np.zeros(sizes.size))
    below, whole = (sizes < unit_bytes) & np.isfinite(d), (sizes == unit_bytes) & np.isfinite(d)
    if below.sum() < 2 or whole.sum() < 2:
        return None, ""
    db, dw = float(np.median(d[below])), float(np.median(d[whole]))
    most_saved = float(np.median(saving[below]))

    def se(x):
        return 1.4826 * float(np.median(np.abs(x - np.median(x)))) / np.sqrt(x.size)

    sigma = float(np.hypot(se(d[below]), se(d[whole])))
    # Reading first costs at least a flash read: tens of µs (000 Table 2), ≥ 20 µs on any NAND.
    # A "yes" from the durations alone needs half the smallest read measured too, since a
    # firmware path a few tens of µs slower for partial units is not a read.
    floor = 20.0
    least = max(floor, 0.5 * read_s * 1e6) if read_s else floor
    if db - dw > max(least, 5 * sigma):
        return True, f"writes below the unit take {db - dw:.0f} µs longer than one whole unit: they read first"
    if db - dw + most_saved + 3 * sigma < floor:  # even the upper bound leaves no room for a flash read
        return False, (f"writes below the unit take {db - dw:+.0f} µs beside one whole unit: too little for a "
                       f"flash read (≥ {floor:.0f} µs)")
    return None, f"writes below the unit take {db - dw:.0f} µs longer than one whole unit, not clearly"


"""Request-duration model of 003 §4.2 / §5.5: the latency recurrence.

A write of ``m`` I/O units visits packages in allocation order.  Each visit
carries one package's share of a unit (one page per die) over the package's
channel.  With a selection cursor that starts at 0:

    start_i  = max(cursor, channel_free[ch_i], package_free[pkg_i], ready_i)
    cursor   = start_i + T_switch
    channel_free[ch_i]  = start_i + T_reg
    package_free[pkg_i] = start_i + T_reg + T_prog
    end      = max_i (start_i + T_reg + T_prog)

``ready_i`` is when the host has delivered the data of visit ``i`` (an extension
of 003's model for links slower than the channel switch; 0 when not modelled).
Because a larger request visits a superset of a smaller one's packages in the
same order, one pass over the longest visit list gives the end time of every
prefix, i.e. of every request size at once.

All functions are vectorised over parameter sets: timing arguments may be
arrays of shape ``(P,)`` and results then carry a leading axis of length ``P``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Layout", "visit_sequence", "prefix_end_us", "request_end_us", "scalar_visits_us", "prefix_end_paths_us"]

CHANNEL_PRIORITY = "channel-priority"
WAY_PRIORITY = "way-priority"
CHANNEL_ONLY = "channel-only"
SCHEMES = (CHANNEL_PRIORITY, WAY_PRIORITY, CHANNEL_ONLY)


@dataclass(frozen=True)
class Layout:
    """How a drive walks its channel × way grid of packages.

    The drive fills a block of ``block_channels × block_ways`` packages in
    ``order`` (channels first, or ways first); successive blocks tile the grid,
    moving across channels first, then across ways, then wrapping around.

    Example
    -------
    >>> Layout(8, 2, 4, 1, "channel-priority").scheme(packages_per_unit=4)
    'channel-only'
    """

    channels: int
    ways: int
    block_channels: int
    block_ways: int
    order: str = CHANNEL_PRIORITY

    def __post_init__(self) -> None:
        if self.order not in (CHANNEL_PRIORITY, WAY_PRIORITY):
            raise ValueError(f"order must be {CHANNEL_PRIORITY!r} or {WAY_PRIORITY!r}, not {self.order!r}")
        for name in ("channels", "ways", "block_channels", "block_ways"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.channels % self.block_channels or self.ways % self.block_ways:
            raise ValueError(
                f"a {self.block_channels}×{self.block_ways} block does not tile "
                f"{self.channels} channels × {self.ways} ways"
            )

    @property
    def packages(self) -> int:
        return self.channels * self.ways

    def scheme(self, packages_per_unit: int, dies_per_package: int = 1) -> str:
        """003's name for this walk, judged from the packages it produces.

        With more than one package per I/O unit, the name describes the unit's
        own packages (003 §5.5: 4 channels × 1 way is *channel-only*); with one
        package per unit it describes the walk across units (003 §5.3: X-25M's
        channels first, then ways, is *channel-priority*).  A drive with one
        package per channel has no ways to walk: it is *channel-only*, unless each
        unit fills the several dies of one package — pages that share a channel
        before the next channel is used — which 003 §5.2 calls *way priority* (Q Pro).
        """
        ch, ways = _walk(self, max(2, packages_per_unit))
        if self.ways == 1:
            return WAY_PRIORITY if packages_per_unit == 1 and dies_per_package > 1 else CHANNEL_ONLY
        if packages_per_unit > 1:
            unit_ch = ch[:packages_per_unit]
            unit_way = ways[:packages_per_unit]
            if len(set(unit_way.tolist())) == 1:
                return CHANNEL_ONLY
            return CHANNEL_PRIORITY if unit_ch[1] != unit_ch[0] else WAY_PRIORITY
        return CHANNEL_PRIORITY if ch[1] != ch[0] else WAY_PRIORITY


def _walk(layout: Layout, n_visits: int) -> tuple[np.ndarray, np.ndarray]:
    c, w = layout.block_channels, layout.block_ways
    i = np.arange(n_visits)
    block, within = np.divmod(i, c * w)
    if layout.order == CHANNEL_PRIORITY:
        way_in, ch_in = np.divmod(within, c)
    else:
        ch_in, way_in = np.divmod(within, w)
    blocks_across = layout.channels // c
    block = block % (blocks_across * (layout.ways // w))
    way_block, ch_block = np.divmod(block, blocks_across)
    return ch_block * c + ch_in, way_block * w + way_in


def visit_sequence(layout: Layout, n_visits: int) -> tuple[np.ndarray, np.ndarray]:
    """Channel and package index of each of the first ``n_visits`` visits.

    Packages are numbered ``channel * ways + way``.

    Example
    -------
    >>> ch, pkg = visit_sequence(Layout(2, 2, 2, 2, "way-priority"), 4)
    >>> ch.tolist(), pkg.tolist()
    ([0, 0, 1, 1], [0, 1, 2, 3])
    """
    ch, way = _walk(layout, int(n_visits))
    return ch, ch * layout.ways + way


def _as_params(*values):
    arrays = [np.asarray(v, dtype=np.float64) for v in values]
    return np.broadcast_arrays(*arrays)


def prefix_end_us(
    channel: np.ndarray,
    package: np.ndarray,
    t_reg_us,
    t_switch_us,
    t_prog_us,
    ready_us=None,
    start_us=0.0,
) -> np.ndarray:
    """End time of the request made of the first ``i + 1`` visits, for every ``i``.

    Parameters
    ----------
    channel, package : (n,) int arrays
        Visit order, as from :func:`visit_sequence`.
    t_reg_us, t_switch_us, t_prog_us : float or (P,) arrays
        Register transfer per visit, channel-switch delay, program time.
    ready_us : None or (n,) or (P, n) array
        Time the host data of each visit is available; ``None`` = at 0.
    start_us : float or (P,) array
        Where the cursor starts: 0, or later when something the controller does first
        (a read-modify-write's read-out) holds back the first visit.

    Returns
    -------
    ndarray, shape ``(n,)`` or ``(P, n)``

    Examples
    --------
    003 §5.5, MXP, 4 channels × 1 way, 8 KB per package:

    >>> ch = np.arange(4); float(prefix_end_us(ch, ch, 164, 33, 900)[-1])
    1163.0
    """
    channel = np.asarray(channel, dtype=np.intp)
    package = np.asarray(package, dtype=np.intp)
    if channel.shape != package.shape or channel.ndim != 1:
        raise ValueError("channel and package must be 1-D arrays of equal length")
    t_reg, t_switch, t_prog, start0 = _as_params(t_reg_us, t_switch_us, t_prog_us, start_us)
    shape = t_reg.shape
    n = channel.size
    ready = None
    if ready_us is not None:
        ready = np.broadcast_to(np.asarray(ready_us, dtype=np.float64), shape + (n,))
    n_ch = int(channel.max(initial=-1)) + 1
    n_pkg = int(package.max(initial=-1)) + 1
    ch_free = np.zeros((n_ch,) + shape)
    pkg_free = np.zeros((n_pkg,) + shape)
    cursor = start0.copy()
    end = np.full(shape, -np.inf)
    out = np.empty(shape + (n,))
    busy = t_reg + t_prog
    for i in range(n):
        c, p = channel[i], package[i]
        start = np.maximum(np.maximum(cursor, ch_free[c]), pkg_free[p])
        if ready is not None:
            start = np.maximum(start, ready[..., i])
        cursor = start + t_switch
        ch_free[c] = start + t_reg
        pkg_free[p] = start + busy
        end = np.maximum(end, pkg_free[p])
        out[..., i] = end
    return out


def request_end_us(channel, package, t_reg_us, t_switch_us, t_prog_us, ready_us=None):
    """End time of the whole request (the last visit's prefix).

    Example
    -------
    003 §5.3: X-25M, 21 pages over 10 channels × 2 ways, channel priority.

    >>> ch, pkg = visit_sequence(Layout(10, 2, 10, 2), 21)
    >>> float(request_end_us(ch, pkg, 82, 33, 900))
    1964.0
    """
    return prefix_end_us(channel, package, t_reg_us, t_switch_us, t_prog_us, ready_us)[..., -1]


def scalar_visits_us(channel: list[int], package: list[int], t_reg_us: float, t_switch_us: float,
                     t_prog_us: float, ready_us: list[float] | None = None) -> tuple[list[float], list[float]]:
    """Start of every visit's register transfer, and :func:`prefix_end_us`, for one scalar
    parameter set in plain floats.

    About 1 µs per visit against numpy's per-call overhead: what a local optimiser calls
    thousands of times.  Its ends agree with :func:`prefix_end_us` exactly (tested).

    Example
    -------
    003 §5.5, MXP, 4 channels × 1 way, 8 KB per package:

    >>> starts, ends = scalar_visits_us([0, 1, 2, 3], [0, 1, 2, 3], 164, 33, 900)
    >>> starts, ends[-1]
    ([0.0, 33.0, 66.0, 99.0], 1163.0)
    """
    ch_free: dict[int, float] = {}
    pkg_free: dict[int, float] = {}
    cursor = 0.0
    end = -float("inf")
    busy = t_reg_us + t_prog_us  # summed first, as prefix_end_us does: the same floats
    starts, ends = [], []
    for i, (c, p) in enumerate(zip(channel, package)):
        start = max(cursor, ch_free.get(c, 0.0), pkg_free.get(p, 0.0))
        if ready_us is not None and ready_us[i] > start:
            start = ready_us[i]
        cursor = start + t_switch_us
        ch_free[c] = start + t_reg_us
        done = start + busy
        pkg_free[p] = done
        if done > end:
            end = done
        starts.append(start)
        ends.append(end)
    return starts, ends


def prefix_end_paths_us(
    channel: np.ndarray,
    package: np.ndarray,
    t_reg_us: np.ndarray,
    t_switch_us: np.ndarray,
    t_prog_us: np.ndarray,
    ready_us: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`prefix_end_us` for ``P`` rows that may each walk their own visit order, with
    the critical path of every end: how many register transfers, switch delays and program
    times add up to it.

    Every time in the recurrence is a ready time (a constant) plus whole multiples of
    the three timing parameters, so each end is linear in them until another path becomes
    the longest.  The counts are that linear piece: what a Gauss-Newton step of a
    duration fit needs, with no finite differences.

    Parameters
    ----------
    channel, package : (P, n) int arrays — each row's visit order.
    t_reg_us, t_switch_us, t_prog_us : (P,) arrays.
    ready_us : None or (n,) array — host data ready times, the same for every row.

    Returns
    -------
    ends : (P, n); counts : (P, n, 3) — the (register, switch, program) counts of each end.

    Example
    -------
    003 §5.5, MXP, 4 channels × 1 way: the end is 1 transfer + 3 switches + 1 program.

    >>> ch = np.arange(4)[None]; e, c = prefix_end_paths_us(ch, ch, [164.0], [33.0], [900.0])
    >>> float(e[0, -1]), c[0, -1].tolist()
    (1163.0, [1.0, 3.0, 1.0])
    """
    channel = np.atleast_2d(np.asarray(channel, dtype=np.intp))
    package = np.atleast_2d(np.asarray(package, dtype=np.intp))
    t_reg = np.asarray(t_reg_us, dtype=np.float64)
    t_sw = np.asarray(t_switch_us, dtype=np.float64)
    t_prog = np.asarray(t_prog_us, dtype=np.float64)
    P, n = channel.shape
    n_ch, n_pkg = int(channel.max(initial=-1)) + 1, int(package.max(initial=-1)) + 1
    # flat state arrays and flat indices: one gather/scatter per visit for all rows
    at_ch = np.arange(P)[:, None] * n_ch + channel
    at_pk = np.arange(P)[:, None] * n_pkg + package
    ch_v, pk_v = np.zeros(P * n_ch), np.zeros(P * n_pkg)
    # the three counts packed in one integer (21 bits each): a path's counts add as its times do
    ch_c, pk_c = np.zeros(P * n_ch, dtype=np.int64), np.zeros(P * n_pkg, dtype=np.int64)
    cur_v, cur_c = np.zeros(P), np.zeros(P, dtype=np.int64)
    end_v, end_c = np.full(P, -np.inf), np.zeros(P, dtype=np.int64)
    busy = t_reg + t_prog  # summed first, as prefix_end_us does: the same floats
    ends, codes = np.empty((P, n)), np.empty((P, n), dtype=np.int64)
    one_reg, one_sw, one_prog = 1, 1 << 21, 1 << 42
    for i in range(n):
        ci, pi = at_ch[:, i], at_pk[:, i]
        v, k = ch_v[ci], ch_c[ci]
        later = v > cur_v
        s_v, s_c = np.where(later, v, cur_v), np.where(later, k, cur_c)
        v, k = pk_v[pi], pk_c[pi]
        later = v > s_v
        s_v, s_c = np.where(later, v, s_v), np.where(later, k, s_c)
        if ready_us is not None:
            later = ready_us[i] > s_v
            s_v, s_c = np.where(later, ready_us[i], s_v), np.where(later, 0, s_c)
        cur_v, cur_c = s_v + t_sw, s_c + one_sw
        ch_v[ci], ch_c[ci] = s_v + t_reg, s_c + one_reg
        done_v, done_c = s_v + busy, s_c + (one_reg + one_prog)
        pk_v[pi], pk_c[pi] = done_v, done_c
        later = done_v > end_v
        end_v, end_c = np.where(later, done_v, end_v), np.where(later, done_c, end_c)
        ends[:, i], codes[:, i] = end_v, end_c
    counts = np.stack([codes & 0x1FFFFF, (codes >> 21) & 0x1FFFFF, codes >> 42], axis=-1).astype(np.float64)
    return ends, counts

"""The page-mapped FTL's inner loop, compiled with numba.

Why compiled: a write-amplification run is tens of millions of page writes, each a
handful of random array reads and writes (map lookup, invalidation, frontier
append) plus garbage collection; as Python it runs at ~1 M pages/s at best, as one
numba loop at memory speed.  Everything the loop touches lives in arrays owned by
:class:`charz.sim.ftl.SimDrive`, so the drive persists between runs (sub-tests).

Layout.  A *pool* is one garbage-collection domain: one die when programs are
multi-plane (its *unit* is a superblock, one block per plane with the same index,
erased together), one plane otherwise (its unit is one block) — or, with *lines*,
the whole drive: a unit is then the block of that index on every plane of every die
(FEMU's and pblk's "line", Kang et al.'s superblock, 000 ref. [29]), filled a program
chunk (``ppo`` pages) at a time on each die in turn, channel first.  Physical page
``ppn = unit * upp + offset``; ``unit = pool * units_per_pool + b``; slot ``offset``
of a unit lies on die ``(pool // ppd) * dpp + (offset // ppo) % dpp``.  Each pool has
two write frontiers (host data, GC copies) so relocated (cold) data is not mixed
with fresh (hot) data — the separation that lets cost-benefit win on skewed
workloads.  A *program op* writes ``ppo`` pages (the planes of a multi-plane
program, or 1) under one R/B low pulse; a stripe still partial when a run ends is
programmed with the pages it has (one pulse, fewer pages).

The kernel is resumable at request granularity: it returns before a request when
the trace buffer is over half full, and the caller grows the buffer and calls
again.  Pure: no random numbers here; pulse widths and start times are drawn by the caller
from the recorded codes.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


OP_READ, OP_WRITE, OP_TRIM = 0, 1, 2
KIND_READ, KIND_PROGRAM, KIND_ERASE = 0, 1, 2
# trace codes: kind = code >> 1; programs carry the lower (even) / upper (odd) page
CODE_READ, CODE_PROG_LOWER, CODE_PROG_UPPER, CODE_ERASE = 0, 2, 3, 4
HOST, GC = 0, 1
FREE, OPEN, CLOSED = 0, 1, 2
GC_GREEDY, GC_COST_BENEFIT = 0, 1

# geometry / policy vector ``g``
# G_PPD pools per die (planes when each plane is a pool); G_DPP dies per pool (all of
# them with lines, else 1); G_CPR program chunks per die in one row of a line (planes
# with single-plane programs, else 1); G_EPU erase pulses per die per collected unit
(G_DIES, G_PPD, G_UPP, G_PPO, G_NPOOLS, G_UNITS_PER_POOL, G_PAGE_SIZE, G_USER_PAGES, G_GC,
 G_CACHE_CAP, G_RESERVE, G_DPP, G_CPR, G_EPU) = range(14)
N_G = 14
# per-run counters ``ctr``
(C_HOST_W_BYTES, C_HOST_R_BYTES, C_HOST_PAGES_W, C_HOST_PROG, C_GC_COPIES, C_ERASES, C_FLASH_READS,
 C_RMW_READS, C_HOST_FLASH_READS, C_COALESCED, C_TRIM_PAGES, C_TRACE_N, C_OVERFLOW, C_ERROR,
 C_CACHE_HITS, C_PROG_OPS) = range(16)
N_C = 16
# persistent state ``pers``
P_RR, P_CLOCK, P_CACHE_HEAD, P_CACHE_COUNT = range(4)
N_P = 4
# per-die counters ``dc[die, k]``
D_PROG_OPS, D_PROG_PAGES, D_READS, D_ERASES = range(4)
N_D = 4

# unit table ``ut[unit, k]`` (int64)
U_VALID, U_STATE, U_CLOSE, U_ERASES, U_NEXT, U_PREV = range(6)
N_U = 6
VICTIM = 3  # being collected: invalidations no longer move it between buckets
# pool table ``pt[pool, k]`` (int64); open unit / pointer / pending pages per stream
Q_FREE_TOP, Q_OPEN_H, Q_OPEN_G, Q_PTR_H, Q_PTR_G, Q_PEND_H, Q_PEND_G, Q_MIN, Q_VALID = range(9)
N_Q = 9

ERR_NO_VICTIM = 1  # no closed unit holds an invalid page: over-provisioning too small
ERR_NO_FREE = 2  # the GC frontier found no free unit (cannot happen with reserve ≥ 1)

# The non-leaf helpers take the whole state as explicit arrays.  Measured: passing it as
# tuples was 5x slower, and passing each helper only the arrays it uses 2x slower (numba
# then stops inlining them); don't "tidy" the signatures without benchmarks/ftl.py.
#   g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code
# ``fstack[pool, i]``: free units (stack); ``bhead[pool, v]``: first closed unit with v
# valid pages, a doubly linked list through U_NEXT/U_PREV — greedy's victim in O(1).


@_jit
def _emit(die, code, ctr, tr_die, tr_code):
    """Record one R/B low pulse of a traced die as a code (``CODE_*``); the caller turns
    codes into widths and start times afterwards, vectorised, off this hot loop."""
    n = ctr[C_TRACE_N]
    if n < tr_code.shape[0]:
        tr_die[n] = die
        tr_code[n] = code
        ctr[C_TRACE_N] = n + 1
    else:
        ctr[C_OVERFLOW] = 1


@_jit
def _pulse(die, code, total, per_die, ctr, dc, traced, tr_die, tr_code):
    """A read or erase pulse: counted drive-wide (``ctr[total]``) and per die."""
    ctr[total] += 1
    dc[die, per_die] += 1
    if traced[die]:
        _emit(die, code, ctr, tr_die, tr_code)


@_jit
def _read_op(die, ctr, dc, traced, tr_die, tr_code):
    _pulse(die, CODE_READ, C_FLASH_READS, D_READS, ctr, dc, traced, tr_die, tr_code)


@_jit
def _erase_op(die, ctr, dc, traced, tr_die, tr_code):
    _pulse(die, CODE_ERASE, C_ERASES, D_ERASES, ctr, dc, traced, tr_die, tr_code)


@_jit
def _program_op(die, pages, page_in_block, ctr, dc, traced, tr_die, tr_code):
    """One program pulse for ``pages`` pages.  MLC: even pages of a block are lower
    pages (fast), odd ones upper (slow) — 000 §4.3's third reason."""
    ctr[C_PROG_OPS] += 1
    dc[die, D_PROG_OPS] += 1
    dc[die, D_PROG_PAGES] += pages
    if traced[die]:
        _emit(die, CODE_PROG_LOWER + (page_in_block & 1), ctr, tr_die, tr_code)


@_jit
def _bucket_insert(un, pool, v, ut, pt, bhead):
    h = bhead[pool, v]
    ut[un, U_NEXT] = h
    ut[un, U_PREV] = -1
    if h >= 0:
        ut[h, U_PREV] = un
    bhead[pool, v] = un
    if v < pt[pool, Q_MIN]:
        pt[pool, Q_MIN] = v


@_jit
def _bucket_remove(un, pool, v, ut, bhead):
    p = ut[un, U_PREV]
    n = ut[un, U_NEXT]
    if p >= 0:
        ut[p, U_NEXT] = n
    else:
        bhead[pool, v] = n
    if n >= 0:
        ut[n, U_PREV] = p


@_jit
def _slot_die(pool, off, g):
    """The die holding slot ``off`` of a unit of ``pool`` (see Layout)."""
    return (pool // g[G_PPD]) * g[G_DPP] + (off // g[G_PPO]) % g[G_DPP]


@_jit
def _slot_page(off, g):
    """The page index inside its block of slot ``off``: MLC lower (even) / upper (odd)."""
    return off // g[G_PPO] // g[G_DPP] // g[G_CPR]


@_jit
def _invalidate(ppn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced):
    """Physical page ``ppn`` no longer holds live data."""
    un = ppn // g[G_UPP]
    p2l[ppn] = -1
    v = ut[un, U_VALID]
    ut[un, U_VALID] = v - 1
    pool = un // g[G_UNITS_PER_POOL]
    pt[pool, Q_VALID] -= 1
    if ut[un, U_STATE] == CLOSED:
        _bucket_remove(un, pool, v, ut, bhead)
        _bucket_insert(un, pool, v - 1, ut, pt, bhead)


@_jit
def _place(pool, stream, lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
    """Append logical page ``lpn`` at the open unit of (pool, stream); the caller has
    made sure there is one."""
    upp = g[G_UPP]
    ppo = g[G_PPO]
    un = pt[pool, Q_OPEN_H + stream]
    off = pt[pool, Q_PTR_H + stream]
    ppn = un * upp + off
    l2p[lpn] = ppn
    p2l[ppn] = lpn
    ut[un, U_VALID] += 1
    pt[pool, Q_VALID] += 1
    pt[pool, Q_PEND_H + stream] += 1
    if (off + 1) % ppo == 0:  # the chunk on this slot's die is full: one program pulse
        _program_op(_slot_die(pool, off, g), pt[pool, Q_PEND_H + stream], _slot_page(off, g), ctr, dc, traced,
                    tr_die, tr_code)
        pt[pool, Q_PEND_H + stream] = 0
    off += 1
    if off == upp:
        ut[un, U_STATE] = CLOSED
        ut[un, U_CLOSE] = pers[P_CLOCK]
        _bucket_insert(un, pool, ut[un, U_VALID], ut, pt, bhead)
        pt[pool, Q_OPEN_H + stream] = -1
        off = 0
    pt[pool, Q_PTR_H + stream] = off


@_jit
def _pop_free(pool, stream, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced):
    t = pt[pool, Q_FREE_TOP]
    if t == 0:
        ctr[C_ERROR] = ERR_NO_FREE
        return False
    t -= 1
    un = fstack[pool, t]
    pt[pool, Q_FREE_TOP] = t
    ut[un, U_STATE] = OPEN
    pt[pool, Q_OPEN_H + stream] = un
    pt[pool, Q_PTR_H + stream] = 0
    return True


@_jit
def _victim(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced):
    """Greedy: a closed unit with the fewest valid pages (the lowest non-empty bucket).
    Cost-benefit (Kawaguchi / Rosenblum): the closed unit maximising age·(1 − u)/(2u),
    u its valid fraction, age the host page writes since it was closed (a scan).
    −1 when no closed unit has an invalid page."""
    upp = g[G_UPP]
    if g[G_GC] == GC_GREEDY:
        v = pt[pool, Q_MIN]
        while v < upp and bhead[pool, v] < 0:
            v += 1
        pt[pool, Q_MIN] = v
        if v >= upp:
            return -1
        return bhead[pool, v]
    n = g[G_UNITS_PER_POOL]
    base = pool * n
    best = -1
    best_s = -1.0
    now = pers[P_CLOCK]
    for b in range(n):
        un = base + b
        if ut[un, U_STATE] == CLOSED:
            v = ut[un, U_VALID]
            if v == 0:
                return un
            if v < upp:
                s = float(now - ut[un, U_CLOSE] + 1) * (upp - v) / (2.0 * v)
                if s > best_s:
                    best_s = s
                    best = un
    return best


@_jit
def _erase_unit(pool, g, ctr, dc, traced, tr_die, tr_code):
    """The erase pulses of one collected unit of ``pool``: a line erases its block(s) on
    every die."""
    d0 = (pool // g[G_PPD]) * g[G_DPP]
    for die in range(d0, d0 + g[G_DPP]):
        for _ in range(g[G_EPU]):
            _erase_op(die, ctr, dc, traced, tr_die, tr_code)


@_jit
def _program_pending(pool, stream, g, pt, ctr, dc, traced, tr_die, tr_code):
    """Program the pages of (pool, stream) still waiting for their chunk to fill — at a
    run's end, or when the unit is closed early."""
    pend = pt[pool, Q_PEND_H + stream]
    if pend > 0:
        last = pt[pool, Q_PTR_H + stream] - 1
        _program_op(_slot_die(pool, last, g), pend, _slot_page(last, g), ctr, dc, traced, tr_die, tr_code)
        pt[pool, Q_PEND_H + stream] = 0


@_jit
def _gc_once(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
    """Reclaim one unit of ``pool``: copy its valid pages to the GC frontier, erase it."""
    un = _victim(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
    if un < 0:
        ctr[C_ERROR] = ERR_NO_VICTIM
        return
    upp = g[G_UPP]
    _bucket_remove(un, pool, ut[un, U_VALID], ut, bhead)
    ut[un, U_STATE] = VICTIM
    base = un * upp
    for i in range(upp):
        lpn = p2l[base + i]
        if lpn >= 0:
            _read_op(_slot_die(pool, i, g), ctr, dc, traced, tr_die, tr_code)
            p2l[base + i] = -1
            ut[un, U_VALID] -= 1
            pt[pool, Q_VALID] -= 1
            if pt[pool, Q_OPEN_G] < 0:
                if not _pop_free(pool, GC, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced):
                    return
            _place(pool, GC, lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
            ctr[C_GC_COPIES] += 1
    ut[un, U_STATE] = FREE
    ut[un, U_ERASES] += 1
    fstack[pool, pt[pool, Q_FREE_TOP]] = un
    pt[pool, Q_FREE_TOP] += 1
    _erase_unit(pool, g, ctr, dc, traced, tr_die, tr_code)


@_jit
def _stripe_slot(lpn, npools):
    """Static allocation: consecutive logical pages fill a stripe of ``npools`` slots (one
    per pool, channel first), each stripe rotated by a hash of its number.  Without the
    rotation (plain lpn mod pools, MQSim's CWDP) a request pattern with a period in
    pages — unaligned sequential writes rewrite every other page — lands on the same
    dies every stripe, and one die's count misses the drive's by up to 57 %."""
    stripe = np.uint64(lpn // npools)
    h = (stripe * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (lpn + np.int64(h % np.uint64(npools))) % npools


@_jit
def _write_flash(lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
    """Program one host page out of place in its pool — fixed by the logical page
    (``_stripe_slot``) — collecting garbage there first if the pool's free units are
    down to the reserve the GC frontier needs.

    Why static: Eq. 7 counts one die and multiplies, so every die must do the same
    work whatever the pattern.  Round-robin by write order does not: read-modify-write
    rewrites a page a fixed number of times, so every page's last copy lands on the
    same die (which fills, or alone pays the GC), and under random writes the dies'
    valid counts drift a few tenths of a per cent — ±3 % in one die's program count at
    OP 7 %.  With a fixed logical share per die, neither can happen.  With lines there
    is one pool: a page goes wherever the frontier is (FEMU's write pointer), and no die
    can fill or pay the GC alone, since free space and victims are the whole drive's."""
    old = l2p[lpn]
    if old >= 0:  # invalidate first: a victim chosen below then need not copy it
        _invalidate(old, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
        l2p[lpn] = -1
    k = _stripe_slot(lpn, g[G_NPOOLS])
    dies = g[G_DIES]
    pool = (k % dies) * g[G_PPD] + (k // dies) % g[G_PPD]
    if pt[pool, Q_OPEN_H] < 0:
        while pt[pool, Q_FREE_TOP] <= g[G_RESERVE]:
            _gc_once(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
            if ctr[C_ERROR] != 0:
                return
        _pop_free(pool, HOST, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
    _place(pool, HOST, lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
    ctr[C_HOST_PROG] += 1


@_jit
def _request(ops, offs, lens, r, ps):
    """Request ``r`` as (op, offset, length, end, first page, last page) — every
    block manager's request loop starts so."""
    off = offs[r]
    end = off + lens[r]
    return ops[r], off, lens[r], end, off // ps, (end - 1) // ps


@_jit
def _die_of(ppn, g):
    return _slot_die((ppn // g[G_UPP]) // g[G_UNITS_PER_POOL], ppn % g[G_UPP], g)


@_jit
def _evict_one(cache_ring, cache_slot, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
    """Flush the oldest cached page (FIFO); stale ring entries (trimmed) are skipped."""
    cap = g[G_CACHE_CAP]
    while pers[P_CACHE_COUNT] > 0:
        h = pers[P_CACHE_HEAD]
        lpn = cache_ring[h]
        pers[P_CACHE_HEAD] = (h + 1) % cap
        pers[P_CACHE_COUNT] -= 1
        if cache_slot[lpn] == h + 1:
            cache_slot[lpn] = 0
            _write_flash(lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
            return


@_jit
def run_kernel(ops, offs, lens, r0, finish, cache_ring, cache_slot, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr,
               dc, traced, tr_die, tr_code):
    """Serve requests ``r0 …``; when ``finish``, then flush the cache and the partial
    stripes.  Returns the next request index, ``len(ops) + 1`` when all is done, or
    stops early (same convention) when the trace buffer passes half full or an error is set."""
    ps = g[G_PAGE_SIZE]
    cap = g[G_CACHE_CAP]
    half = tr_code.shape[0] // 2
    n = ops.shape[0]
    for r in range(r0, n):
        if ctr[C_TRACE_N] > half or ctr[C_ERROR] != 0:
            return r
        op, off, ln, end, first, last = _request(ops, offs, lens, r, ps)
        if op == OP_WRITE:
            ctr[C_HOST_W_BYTES] += ln
            for p in range(first, last + 1):
                pstart = p * ps
                partial = off > pstart or end < pstart + ps
                ctr[C_HOST_PAGES_W] += 1
                pers[P_CLOCK] += 1
                if cap > 0 and cache_slot[p] > 0:  # merged into the cached copy: no flash work
                    ctr[C_COALESCED] += 1
                    continue
                if partial and l2p[p] >= 0:  # read-modify-write fills the rest of the page
                    _read_op(_die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[C_RMW_READS] += 1
                if cap > 0:
                    if pers[P_CACHE_COUNT] == cap:
                        _evict_one(cache_ring, cache_slot, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc,
                                   traced, tr_die, tr_code)
                    i = (pers[P_CACHE_HEAD] + pers[P_CACHE_COUNT]) % cap
                    cache_ring[i] = p
                    cache_slot[p] = i + 1
                    pers[P_CACHE_COUNT] += 1
                else:
                    _write_flash(p, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
                if ctr[C_ERROR] != 0:
                    return r
        elif op == OP_READ:
            ctr[C_HOST_R_BYTES] += ln
            for p in range(first, last + 1):
                if cap > 0 and cache_slot[p] > 0:
                    ctr[C_CACHE_HITS] += 1
                elif l2p[p] >= 0:
                    _read_op(_die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[C_HOST_FLASH_READS] += 1
        else:  # TRIM: only whole pages are unmapped; a partial page keeps its data
            for p in range(first, last + 1):
                pstart = p * ps
                if off > pstart or end < pstart + ps:
                    continue
                if cap > 0:
                    cache_slot[p] = 0
                old = l2p[p]
                if old >= 0:
                    _invalidate(old, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
                    l2p[p] = -1
                    ctr[C_TRIM_PAGES] += 1
    if not finish:
        return n + 1
    while cap > 0 and pers[P_CACHE_COUNT] > 0:
        if ctr[C_TRACE_N] > half or ctr[C_ERROR] != 0:
            return n
        _evict_one(cache_ring, cache_slot, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
    for pool in range(g[G_NPOOLS]):
        for s in range(2):  # a unit that closed did so at a stripe end, with nothing pending
            _program_pending(pool, s, g, pt, ctr, dc, traced, tr_die, tr_code)
    return n + 1

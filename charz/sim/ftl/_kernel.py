"""The page-mapped FTL's inner loop, compiled with numba.

Why compiled: a write-amplification run is tens of millions of page writes, each a
handful of random array reads and writes (map lookup, invalidation, frontier
append) plus garbage collection; as Python it runs at ~1 M pages/s at best, as one
numba loop at memory speed.  Everything the loop touches lives in arrays owned by
:class:`charz.sim.ftl.SimDrive`, so the drive persists between runs (sub-tests).

Layout.  A *pool* is one garbage-collection domain: one die when programs are
multi-plane (its *unit* is a superblock, one block per plane with the same index,
erased together), one plane otherwise (its unit is one block).  Physical page
``ppn = unit * upp + offset``; ``unit = pool * units_per_pool + b``.  Each pool has
two write frontiers (host data, GC copies) so relocated (cold) data is not mixed
with fresh (hot) data — the separation that lets cost-benefit win on skewed
workloads.  A *program op* writes ``ppo`` pages (the planes of a multi-plane
program, or 1) under one R/B low pulse; a stripe still partial when a run ends is
programmed with the pages it has (one pulse, fewer pages).

The kernel is resumable at request granularity: it returns before a request when
the trace buffer is over half full, and the caller grows the buffer and calls
again.  Pure apart from numba's own random stream, seeded per run by the caller.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")

OP_READ, OP_WRITE, OP_TRIM = 0, 1, 2
KIND_READ, KIND_PROGRAM, KIND_ERASE = 0, 1, 2
HOST, GC = 0, 1
FREE, OPEN, CLOSED = 0, 1, 2
GC_GREEDY, GC_COST_BENEFIT = 0, 1

# geometry / policy vector ``g``
(G_DIES, G_PPD, G_UPP, G_PPO, G_NPOOLS, G_UNITS_PER_POOL, G_PAGE_SIZE, G_USER_PAGES, G_GC,
 G_CACHE_CAP, G_RESERVE) = range(11)
N_G = 11
# timing vector ``tm`` (µs)
(T_PROG_LO_A, T_PROG_LO_B, T_PROG_HI_A, T_PROG_HI_B, T_READ_A, T_READ_B, T_ERASE_A, T_ERASE_B,
 T_GAP) = range(9)
N_T = 9
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

ERR_NO_VICTIM = 1  # no closed unit holds an invalid page: over-provisioning too small
ERR_NO_FREE = 2  # the GC frontier found no free unit (cannot happen with reserve ≥ 1)


@_jit
def seed(s):
    np.random.seed(s)


@_jit
def _emit(die, kind, width, tr_die, tr_start, tr_width, tr_kind, ctr, clocks, tm):
    """Append one R/B low pulse of a traced die.  The die is busy for ``width`` after a
    gap (command and data transfer) that keeps consecutive pulses apart."""
    start = clocks[die] + tm[T_GAP] * (1.0 + np.random.random())
    clocks[die] = start + width
    n = ctr[C_TRACE_N]
    if n < tr_start.shape[0]:
        tr_die[n] = die
        tr_start[n] = start
        tr_width[n] = width
        tr_kind[n] = kind
        ctr[C_TRACE_N] = n + 1
    else:
        ctr[C_OVERFLOW] = 1


@_jit
def _uniform(a, b):
    return a + (b - a) * np.random.random()


@_jit
def _read_op(die, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    ctr[C_FLASH_READS] += 1
    dc[die, D_READS] += 1
    if traced[die]:
        _emit(die, KIND_READ, _uniform(tm[T_READ_A], tm[T_READ_B]), tr_die, tr_start, tr_width, tr_kind, ctr,
              clocks, tm)


@_jit
def _erase_op(die, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    ctr[C_ERASES] += 1
    dc[die, D_ERASES] += 1
    if traced[die]:
        _emit(die, KIND_ERASE, _uniform(tm[T_ERASE_A], tm[T_ERASE_B]), tr_die, tr_start, tr_width, tr_kind, ctr,
              clocks, tm)


@_jit
def _program_op(die, pages, page_in_block, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    """One program pulse for ``pages`` pages.  MLC: even pages of a block are lower
    pages (fast), odd ones upper (slow) — 000 §4.3's third reason; SLC has one range."""
    ctr[C_PROG_OPS] += 1
    dc[die, D_PROG_OPS] += 1
    dc[die, D_PROG_PAGES] += pages
    if traced[die]:
        if page_in_block % 2 == 0:
            w = _uniform(tm[T_PROG_LO_A], tm[T_PROG_LO_B])
        else:
            w = _uniform(tm[T_PROG_HI_A], tm[T_PROG_HI_B])
        _emit(die, KIND_PROGRAM, w, tr_die, tr_start, tr_width, tr_kind, ctr, clocks, tm)


@_jit
def _place(pool, stream, lpn, g, l2p, p2l, valid, ustate, uclose, open_unit, open_ptr, pend, pers,
           ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    """Append logical page ``lpn`` at the open unit of (pool, stream); the caller has
    made sure there is one."""
    upp = g[G_UPP]
    ppo = g[G_PPO]
    un = open_unit[pool, stream]
    off = open_ptr[pool, stream]
    ppn = un * upp + off
    l2p[lpn] = ppn
    p2l[ppn] = lpn
    valid[un] += 1
    off += 1
    pend[pool, stream] += 1
    if off % ppo == 0:
        die = pool // g[G_PPD]
        _program_op(die, pend[pool, stream], (off - 1) // ppo, ctr, dc, traced, clocks, tm, tr_die, tr_start,
                    tr_width, tr_kind)
        pend[pool, stream] = 0
    if off == upp:
        ustate[un] = CLOSED
        uclose[un] = pers[P_CLOCK]
        open_unit[pool, stream] = -1
        off = 0
    open_ptr[pool, stream] = off


@_jit
def _pop_free(pool, stream, free_stack, free_top, ustate, open_unit, open_ptr, ctr):
    t = free_top[pool]
    if t == 0:
        ctr[C_ERROR] = ERR_NO_FREE
        return False
    t -= 1
    un = free_stack[pool, t]
    free_top[pool] = t
    ustate[un] = OPEN
    open_unit[pool, stream] = un
    open_ptr[pool, stream] = 0
    return True


@_jit
def _victim(pool, g, valid, ustate, uclose, pers):
    """Greedy: the closed unit with the fewest valid pages.  Cost-benefit (Kawaguchi /
    Rosenblum): the closed unit maximising age·(1 − u)/(2u), u its valid fraction, age
    the host page writes since it was closed.  −1 when no closed unit has an invalid page."""
    upp = g[G_UPP]
    n = g[G_UNITS_PER_POOL]
    base = pool * n
    best = -1
    if g[G_GC] == GC_GREEDY:
        best_v = upp
        for b in range(n):
            un = base + b
            if ustate[un] == CLOSED and valid[un] < best_v:
                best_v = valid[un]
                best = un
                if best_v == 0:
                    break
    else:
        best_s = -1.0
        now = pers[P_CLOCK]
        for b in range(n):
            un = base + b
            if ustate[un] == CLOSED:
                v = valid[un]
                if v == 0:
                    return un
                if v < upp:
                    age = float(now - uclose[un] + 1)
                    s = age * (upp - v) / (2.0 * v)
                    if s > best_s:
                        best_s = s
                        best = un
    return best


@_jit
def _gc_once(pool, g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr, pend,
             pers, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    """Reclaim one unit of ``pool``: copy its valid pages to the GC frontier, erase it."""
    un = _victim(pool, g, valid, ustate, uclose, pers)
    if un < 0:
        ctr[C_ERROR] = ERR_NO_VICTIM
        return
    upp = g[G_UPP]
    die = pool // g[G_PPD]
    base = un * upp
    for i in range(upp):
        lpn = p2l[base + i]
        if lpn >= 0:
            _read_op(die, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
            p2l[base + i] = -1
            valid[un] -= 1
            if open_unit[pool, GC] < 0:
                if not _pop_free(pool, GC, free_stack, free_top, ustate, open_unit, open_ptr, ctr):
                    return
            _place(pool, GC, lpn, g, l2p, p2l, valid, ustate, uclose, open_unit, open_ptr, pend, pers, ctr, dc,
                   traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
            ctr[C_GC_COPIES] += 1
    ustate[un] = FREE
    uerase[un] += 1
    free_stack[pool, free_top[pool]] = un
    free_top[pool] += 1
    _erase_op(die, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)


@_jit
def _write_flash(lpn, g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr, pend,
                 pers, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    """Program one host page out of place on the next pool in round-robin (channel
    first, then way, die, plane), collecting garbage there first if its free units
    are down to the reserve the GC frontier needs."""
    upp = g[G_UPP]
    old = l2p[lpn]
    if old >= 0:  # invalidate first: a victim chosen below then need not copy it
        p2l[old] = -1
        valid[old // upp] -= 1
        l2p[lpn] = -1
    k = pers[P_RR]
    pers[P_RR] = (k + 1) % g[G_NPOOLS]
    dies = g[G_DIES]
    pool = (k % dies) * g[G_PPD] + (k // dies) % g[G_PPD]
    if open_unit[pool, HOST] < 0:
        while free_top[pool] <= g[G_RESERVE]:
            _gc_once(pool, g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr,
                     pend, pers, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
            if ctr[C_ERROR] != 0:
                return
        _pop_free(pool, HOST, free_stack, free_top, ustate, open_unit, open_ptr, ctr)
    _place(pool, HOST, lpn, g, l2p, p2l, valid, ustate, uclose, open_unit, open_ptr, pend, pers, ctr, dc, traced,
           clocks, tm, tr_die, tr_start, tr_width, tr_kind)
    ctr[C_HOST_PROG] += 1


@_jit
def _die_of(ppn, g):
    return (ppn // g[G_UPP]) // g[G_UNITS_PER_POOL] // g[G_PPD]


@_jit
def _evict_one(g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr, pend, pers,
               cache_ring, cache_slot, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind):
    """Flush the oldest cached page (FIFO); stale ring entries (trimmed) are skipped."""
    cap = g[G_CACHE_CAP]
    while pers[P_CACHE_COUNT] > 0:
        h = pers[P_CACHE_HEAD]
        lpn = cache_ring[h]
        pers[P_CACHE_HEAD] = (h + 1) % cap
        pers[P_CACHE_COUNT] -= 1
        if cache_slot[lpn] == h + 1:
            cache_slot[lpn] = 0
            _write_flash(lpn, g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr,
                         pend, pers, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
            return


@_jit
def run_kernel(ops, offs, lens, r0, finish, g, tm, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top,
               open_unit, open_ptr, pend, pers, cache_ring, cache_slot, ctr, dc, traced, clocks, tr_die, tr_start,
               tr_width, tr_kind):
    """Serve requests ``r0 …``; when ``finish``, then flush the cache and the partial
    stripes.  Returns the next request index, ``len(ops) + 1`` when all is done, or
    stops early (same convention) when the trace buffer passes half full or an error is set."""
    ps = g[G_PAGE_SIZE]
    cap = g[G_CACHE_CAP]
    half = tr_start.shape[0] // 2
    n = ops.shape[0]
    for r in range(r0, n):
        if ctr[C_TRACE_N] > half or ctr[C_ERROR] != 0:
            return r
        op = ops[r]
        off = offs[r]
        ln = lens[r]
        end = off + ln
        first = off // ps
        last = (end - 1) // ps
        if op == OP_WRITE:
            ctr[C_HOST_W_BYTES] += ln
            for p in range(first, last + 1):
                pstart = p * ps
                partial = off > pstart or end < pstart + ps
                ctr[C_HOST_PAGES_W] += 1
                pers[P_CLOCK] += 1
                if cap > 0:
                    if cache_slot[p] > 0:  # merged into the cached copy: no flash work
                        ctr[C_COALESCED] += 1
                        continue
                    if partial and l2p[p] >= 0:  # read-modify-write fills the rest of the page
                        _read_op(_die_of(l2p[p], g), ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width,
                                 tr_kind)
                        ctr[C_RMW_READS] += 1
                    if pers[P_CACHE_COUNT] == cap:
                        _evict_one(g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit,
                                   open_ptr, pend, pers, cache_ring, cache_slot, ctr, dc, traced, clocks, tm, tr_die,
                                   tr_start, tr_width, tr_kind)
                    i = (pers[P_CACHE_HEAD] + pers[P_CACHE_COUNT]) % cap
                    cache_ring[i] = p
                    cache_slot[p] = i + 1
                    pers[P_CACHE_COUNT] += 1
                else:
                    if partial and l2p[p] >= 0:
                        _read_op(_die_of(l2p[p], g), ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width,
                                 tr_kind)
                        ctr[C_RMW_READS] += 1
                    _write_flash(p, g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit,
                                 open_ptr, pend, pers, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width,
                                 tr_kind)
                if ctr[C_ERROR] != 0:
                    return r
        elif op == OP_READ:
            ctr[C_HOST_R_BYTES] += ln
            for p in range(first, last + 1):
                if cap > 0 and cache_slot[p] > 0:
                    ctr[C_CACHE_HITS] += 1
                elif l2p[p] >= 0:
                    _read_op(_die_of(l2p[p], g), ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
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
                    p2l[old] = -1
                    valid[old // g[G_UPP]] -= 1
                    l2p[p] = -1
                    ctr[C_TRIM_PAGES] += 1
    if not finish:
        return n + 1
    while cap > 0 and pers[P_CACHE_COUNT] > 0:
        if ctr[C_TRACE_N] > half or ctr[C_ERROR] != 0:
            return n
        _evict_one(g, l2p, p2l, valid, ustate, uclose, uerase, free_stack, free_top, open_unit, open_ptr, pend, pers,
                   cache_ring, cache_slot, ctr, dc, traced, clocks, tm, tr_die, tr_start, tr_width, tr_kind)
    ppo = g[G_PPO]
    for pool in range(g[G_NPOOLS]):
        for s in range(2):
            if pend[pool, s] > 0:
                off = open_ptr[pool, s]
                if open_unit[pool, s] < 0:  # unit closed right at a stripe end: pend is already 0
                    off = g[G_UPP]
                _program_op(pool // g[G_PPD], pend[pool, s], (off - 1) // ppo, ctr, dc, traced, clocks, tm, tr_die,
                            tr_start, tr_width, tr_kind)
                pend[pool, s] = 0
    return n + 1

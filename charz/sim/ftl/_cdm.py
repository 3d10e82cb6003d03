"""An NVM cache in front of the FTL, with or without Cooperative Data Management
(Lee, Kim, Bahn, Noh, paper 004 §III).

The cache holds pages (4 KiB units in 004; a flash page here), LRU replacement, and
caches reads as well as writes (004 §IV).  Each cached page is *clean* (same data as
its flash copy) or *dirty* (newer).  Being non-volatile, the cache needs no periodic
flush; a dirty page goes to flash when it is evicted, a clean one is dropped.

* ``nvm`` (004's NVM-basic): the flash copy of a cached page stays valid until the
  page is evicted — garbage collection copies it out like any valid page, even when
  the cache already holds a newer version.
* ``cdm``: 004 Fig. 3's states.  A page that becomes dirty in the cache invalidates
  its flash copy at once (S1/S0 → S2): the cache must write it back anyway.  A flash
  copy whose page is cached clean is *removable* (S1): garbage collection does not copy
  it out but drops it, and the cached copy becomes the only one — write-protected,
  written to flash when evicted (S3).  When a clean page leaves the cache before that,
  its flash copy is simply valid again (S0).

004 §III.B's consistency states (commit, checkpoint, out-of-date copies) concern crash
recovery, not which pages are written, and are not modelled.  A run ends by writing
back every page flash does not hold (dirty and sole copies), so a run's counts are
complete; clean pages stay cached into the next run, as they would in NVM.

Reuses the plain kernel (``_kernel``) for everything but the garbage collector (which
must skip removable pages) and the host paths through the cache.
"""

from __future__ import annotations

import numpy as np

from charz.sim.ftl import _kernel as K
from charz.sim.ftl._kernel import _jit

# cache scalars ``cs``: MRU head, LRU tail, pages cached, capacity, cooperative (0/1)
CS_HEAD, CS_TAIL, CS_COUNT, CS_CAP, CS_COOP = range(5)
N_CS = 5
# per-page cache state ``cst``
NOT_CACHED, CLEAN, DIRTY, SOLE = 0, 1, 2, 3  # SOLE: GC dropped the flash copy (004's S3)
# CDM counters ``cx``
CX_REMOVED, CX_EARLY_INVALID, CX_DIRTY_EVICTS, CX_CLEAN_DROPS, CX_READ_FILLS = range(5)
N_CX = 5


@_jit
def _unlink(p, nxt, prv, cs):
    a = prv[p]
    b = nxt[p]
    if a >= 0:
        nxt[a] = b
    else:
        cs[CS_HEAD] = b
    if b >= 0:
        prv[b] = a
    else:
        cs[CS_TAIL] = a
    cs[CS_COUNT] -= 1


@_jit
def _push_mru(p, nxt, prv, cs):
    h = cs[CS_HEAD]
    prv[p] = -1
    nxt[p] = h
    if h >= 0:
        prv[h] = p
    else:
        cs[CS_TAIL] = p
    cs[CS_HEAD] = p
    cs[CS_COUNT] += 1


@_jit
def _cdm_gc(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, cst, cs, cx):
    """``_kernel._gc_once`` with 004's change: a removable page (cached clean, CDM) is
    dropped, not copied out; its cached copy becomes the only one."""
    un = K._victim(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
    if un < 0:
        ctr[K.C_ERROR] = K.ERR_NO_VICTIM
        return
    upp = g[K.G_UPP]
    one_die = g[K.G_DPP] == 1  # not on lines: every slot is on the pool's die
    die = pool // g[K.G_PPD]
    coop = cs[CS_COOP] != 0
    K._bucket_remove(un, pool, ut[un, K.U_VALID], ut, bhead)
    ut[un, K.U_STATE] = K.VICTIM
    base = un * upp
    for i in range(upp):
        lpn = p2l[base + i]
        if lpn >= 0:
            p2l[base + i] = -1
            ut[un, K.U_VALID] -= 1
            pt[pool, K.Q_VALID] -= 1
            if coop and cst[lpn] == CLEAN:
                l2p[lpn] = -1
                cst[lpn] = SOLE
                cx[CX_REMOVED] += 1
                continue
            K._read_op(die if one_die else K._slot_die(pool, i, g), ctr, dc, traced, tr_die, tr_code)
            if pt[pool, K.Q_OPEN_G] < 0:
                if not K._pop_free(pool, K.GC, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced):
                    return
            K._place(pool, K.GC, lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
            ctr[K.C_GC_COPIES] += 1
    ut[un, K.U_STATE] = K.FREE
    ut[un, K.U_ERASES] += 1
    fstack[pool, pt[pool, K.Q_FREE_TOP]] = un
    pt[pool, K.Q_FREE_TOP] += 1
    K._erase_unit(pool, g, ctr, dc, traced, tr_die, tr_code)


@_jit
def _cdm_write_flash(lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, cst, cs, cx):
    """``_kernel._write_flash`` with the CDM garbage collector."""
    old = l2p[lpn]
    if old >= 0:
        K._invalidate(old, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
        l2p[lpn] = -1
    k = K._stripe_slot(lpn, g[K.G_NPOOLS])
    dies = g[K.G_DIES]
    pool = (k % dies) * g[K.G_PPD] + (k // dies) % g[K.G_PPD]
    if pt[pool, K.Q_OPEN_H] < 0:
        while pt[pool, K.Q_FREE_TOP] <= g[K.G_RESERVE]:
            _cdm_gc(pool, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, cst, cs, cx)
            if ctr[K.C_ERROR] != 0:
                return
        K._pop_free(pool, K.HOST, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
    K._place(pool, K.HOST, lpn, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code)
    ctr[K.C_HOST_PROG] += 1


@_jit
def _evict(g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, nxt, prv, cst, cs, cx, t=-1):
    """Page ``t`` (default the LRU one) leaves: dirty or sole copies are written to
    flash, clean ones dropped."""
    if t < 0:
        t = cs[CS_TAIL]
    _unlink(t, nxt, prv, cs)
    st = cst[t]
    cst[t] = NOT_CACHED
    if st == CLEAN:
        cx[CX_CLEAN_DROPS] += 1
    else:
        cx[CX_DIRTY_EVICTS] += 1
        _cdm_write_flash(t, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, cst, cs, cx)


@_jit
def _make_dirty(p, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, cst, cs, cx):
    cst[p] = DIRTY
    if cs[CS_COOP] != 0 and l2p[p] >= 0:  # 004: the storage copy is invalid at once (S2)
        K._invalidate(l2p[p], g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
        l2p[p] = -1
        cx[CX_EARLY_INVALID] += 1


@_jit
def run_cdm(ops, offs, lens, r0, finish, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code,
            nxt, prv, cst, cs, cx):
    """The plain kernel's request loop through an LRU NVM cache of ``cs[CS_CAP]`` pages
    (0: straight to flash, the plain FTL without a cache); same return convention."""
    ps = g[K.G_PAGE_SIZE]
    cap = cs[CS_CAP]
    half = tr_code.shape[0] // 2
    n = ops.shape[0]
    for r in range(r0, n):
        if ctr[K.C_TRACE_N] > half or ctr[K.C_ERROR] != 0:
            return r
        op, off, ln, end, first, last = K._request(ops, offs, lens, r, ps)
        if op == K.OP_WRITE:
            ctr[K.C_HOST_W_BYTES] += ln
            for p in range(first, last + 1):
                pstart = p * ps
                ctr[K.C_HOST_PAGES_W] += 1
                pers[K.P_CLOCK] += 1
                if cap > 0 and cst[p] != NOT_CACHED:  # a write hit: no flash work now
                    if cst[p] == CLEAN:
                        _make_dirty(p, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, cst, cs, cx)
                    else:
                        ctr[K.C_COALESCED] += 1
                    _unlink(p, nxt, prv, cs)
                    _push_mru(p, nxt, prv, cs)
                    continue
                if (off > pstart or end < pstart + ps) and l2p[p] >= 0:
                    K._read_op(K._die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[K.C_RMW_READS] += 1
                if cap == 0:
                    _cdm_write_flash(p, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code,
                                     cst, cs, cx)
                else:
                    if cs[CS_COUNT] >= cap:
                        _evict(g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, nxt, prv,
                               cst, cs, cx)
                    _push_mru(p, nxt, prv, cs)
                    _make_dirty(p, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, cst, cs, cx)
                if ctr[K.C_ERROR] != 0:
                    return r
        elif op == K.OP_READ:
            ctr[K.C_HOST_R_BYTES] += ln
            for p in range(first, last + 1):
                if cap > 0 and cst[p] != NOT_CACHED:
                    ctr[K.C_CACHE_HITS] += 1
                    _unlink(p, nxt, prv, cs)
                    _push_mru(p, nxt, prv, cs)
                elif l2p[p] >= 0:
                    K._read_op(K._die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[K.C_HOST_FLASH_READS] += 1
                    if cap > 0:  # cached clean: under CDM its flash copy is now removable
                        if cs[CS_COUNT] >= cap:
                            _evict(g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, nxt,
                                   prv, cst, cs, cx)
                        _push_mru(p, nxt, prv, cs)
                        cst[p] = CLEAN
                        cx[CX_READ_FILLS] += 1
            if ctr[K.C_ERROR] != 0:
                return r
        else:
            for p in range(first, last + 1):
                pstart = p * ps
                if off > pstart or end < pstart + ps:
                    continue
                if cap > 0 and cst[p] != NOT_CACHED:
                    _unlink(p, nxt, prv, cs)
                    cst[p] = NOT_CACHED
                old = l2p[p]
                if old >= 0:
                    K._invalidate(old, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced)
                    l2p[p] = -1
                    ctr[K.C_TRIM_PAGES] += 1
    if not finish:
        return n + 1
    # write back what flash does not hold yet (dirty and sole copies), oldest first; GC
    # during the write-back may make more sole copies, hence the passes.  Clean pages
    # stay: the cache is non-volatile, and they owe flash nothing.
    more = True
    while more:
        more = False
        p = cs[CS_TAIL]
        while p >= 0:
            if ctr[K.C_TRACE_N] > half or ctr[K.C_ERROR] != 0:
                return n
            q = prv[p]
            if cst[p] != CLEAN:
                _evict(g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, nxt, prv, cst, cs,
                       cx, p)
                more = True
            p = q
    for pool in range(g[K.G_NPOOLS]):
        for s in range(2):
            K._program_pending(pool, s, g, pt, ctr, dc, traced, tr_die, tr_code)
    return n + 1


class CacheState:
    """The arrays an NVM cache adds to a drive; ``cooperative`` selects CDM."""

    def __init__(self, cap_pages: int, cooperative: bool, user_pages: int):
        n = user_pages if cap_pages > 0 else 1
        self.nxt = np.full(n, -1, dtype=np.int32)
        self.prv = np.full(n, -1, dtype=np.int32)
        self.cst = np.zeros(user_pages, dtype=np.uint8)  # read by GC even without a cache
        self.cs = np.array([-1, -1, 0, cap_pages, int(cooperative)], dtype=np.int64)
        self.cx = np.zeros(N_CX, dtype=np.int64)

    def run(self, ops, offs, lens, r, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
        return run_cdm(ops, offs, lens, r, True, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die,
                       tr_code, self.nxt, self.prv, self.cst, self.cs, self.cx)

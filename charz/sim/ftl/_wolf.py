"""Wolf's block manager (Dayan, Bouganim, Bonnet, paper 002 §5) as a policy of the FTL.

What 002 §5 asks for, and how it is done here:

* **Groups by update frequency.**  Every erase unit belongs to one group (002's
  Blocks-to-Groups Map: ``ugrp``); a page's group is its unit's.  A page written for
  the first time goes to the coldest group (§5.2).  A host update of a page hotter
  than its group promotes it to the next hotter group; a page migrated by GC that is
  colder than its group is demoted to the next colder one (§5.6).
* **Temperature detector** — not 002's.  002 §5.6 uses two Bloom filters per group
  (active, passive, rotated every "group size" writes; promote when in both, demote a
  migrated page in neither) and calls a better detector future work; its evaluation
  uses an oracle.  Tried here (exactly, with epoch stamps): a page GC migrates has by
  definition not been written since its unit was, which is usually longer than the
  filters' window, so hot pages were demoted wholesale, and a demoted hot page waited
  two intervals of the cold group (many user spaces) to come back — on 90/10 writes the
  groups never separated and WA rose 20 % above greedy's.  Instead each page keeps the
  host-write clock of its last two writes.  A host update is promoted when its rate
  r = 2/(now − t₂) (1/(now − t₁) after one write) exceeds the geometric mean of its
  group's hit rate p_x/s_x and the next hotter group's (Q = 2 — 002 §5.2's factor —
  times its own when that group is empty).  A migrated page is demoted when it has
  been silent for K = 2 of its group's mean update intervals (P = e⁻² for a page as
  hot as its group), counted from its last write or from when the group last turned
  Q times hotter: after a hot/cold swap the pages of the newly hot group have been
  silent for long, which says nothing about their rate since.  (Counting from the
  last write alone moved the newly hot pages out again: 64 % of PBA in extra copies
  after a swap instead of 4 %; K = 3 gave 29 %, K = 1.5 a worse steady WA.)
  ``SimDrive.set_oracle`` gives the detector each page's true rate instead, as 002's
  evaluation did: a page then moves when its rate passes the geometric mean of its
  group's hit rate and the neighbour's.
* **Statistics per interval** of h = ``wolf_interval`` × LBA host writes (002: 0.001):
  p_x ← p_x(1 − a) + a·U_x with U_x the group's share of the interval's writes, then
  groups re-sorted by hit rate p_x/s_x (the SGV).  002 prints "a = h·3", which cannot be
  a weight in (0, 1); read as "averaged over 3 intervals", a = 1/3.
* **Over-provisioning by the closed form** (002 Eq. 8, per pool — 002 §5.7's
  subgroups, one per LUN):  OP_x = (s_x·V + p_x·OP)/2, V = PBA/LBA − 1, OP = PBA − LBA —
  Eq. 6 (by size) and the first line of Eq. 7 (by update frequency) averaged.  Eq. 7's
  second line, p_x·(V⁻¹ + 1), does not sum to OP over the groups and is taken for a
  misprint.  When the coldest group's hit rate is below 5 % of the second coldest's it
  gets a fixed 5 % of the smallest group's size and the rest is shared by Eq. 8.
* **Greedy cleaning within a group** (§5.4): the victim is the unit of the chosen
  group with the fewest valid pages (valid-count buckets per (pool, group)).
* **Movement operations** (§5.3): when a pool needs a unit and only the reserve is
  free, the unit is reclaimed from the group with the greatest surplus over its Eq. 8
  share — so after a workload change, space moves from groups that no longer need it
  to groups that do, block by block, as fast as writes ask for it.  With
  ``wolf_movement=False`` the victim is instead the pool's cheapest unit whatever its
  group (002 §5.5.1's "greedy across groups", whose shares drift by themselves to
  equal cleaning efficiency, Eq. 6) — the comparison for the value of movement.

* **FDP, the baseline 002 measures Wolf against** (``wolf_fdp``; Stoica & Ailamaki,
  VLDB 2013), as 002 §2.2 and §5 describe it — a reconstruction from that text, not
  from FDP's code: the groups keep a fixed order and each is *presumed* as hot as its
  rank (the r-th coldest gets the r-th lowest measured hit rate and that group's p,
  for the detector and for the shares), so after a workload change pages move between
  groups instead of space; cleaning within a group is least-recently-cleaned (the unit
  closed longest ago with an invalid page).  The group to clean is still the one with
  the greatest surplus over its share: FDP keeps an allocation too (002: found by hill
  climbing; Eq. 8 is within 1 % of it).  With one group it is the FIFO cleaner of
  Desnoyers' LRW model (a unit test holds it to the closed form).

* **Creating and merging groups** (§5.2; ``wolf_max_groups`` > 0, else the count stays
  at ``wolf_groups``): at an interval's end, a group under F = pools × pages per unit
  (a unit in every pool) merges into the neighbour with the closer hit rate, and two
  neighbours whose hit rates stay within √Q of each other for w = 50 intervals merge
  (002 says "converge"; √Q leaves a band between merging and creating).  Else, with
  fewer than ``wolf_max_groups``, a hotter group is created when the hottest holds
  ≥ F pages and is ≥ Q = 2 times as hot as the next; it keeps its rank for w intervals
  (the SGV is not re-sorted meanwhile), as do the groups given at the start when
  ``wolf_groups`` > 2 (they too start empty).  A merge is logical: the units are relabelled
  and move between valid-count buckets; an open unit that has no place in the kept
  group is closed as it is (GC later reclaims its unwritten slots).  Two departures,
  measured on three workloads (three temperatures, 90/10, five exponential tiers; 3
  seeds): 002's third rule — an empty group between neighbours more than 2Q apart —
  is left out: with this detector it filled with misfiled pages (90/10: WA +1.9 %
  over two fixed groups).  And a group that merges back bans the next creation for
  w, 2w, 4w … 64w intervals (forgotten after 64w intervals without a merge): 002's
  rules alone re-created the group every ~2w intervals on 90/10 (34 creations in 8
  user spaces).  Result (benchmarks/wa_policies.py): three temperatures (5 % of the
  updates to 80 % of the space, 25 % to 15 %, 70 % to 5 %) 1.75 instead of 2.40 with
  two fixed groups; uniform writes unchanged; but 90/10 2.62 instead of 2.54, and
  after its swap 18 % of PBA in extra copies instead of 3 % — a third group the
  detector half fills is a cost on two temperatures, so it is opt-in.

With one group none of Wolf acts and the manager is the plain greedy FTL, operation
for operation (a unit test holds that).

Layout: a *subpool* sp = pool·G + x is group x's share of one pool, with its own two
frontiers and valid-count buckets in ``wpt``/``wbh`` (same columns as the plain
kernel's ``pt``); free units stay per pool (``pt[pool, Q_FREE_TOP]``, ``fstack``).
``gw`` is ``g`` with G_PPD multiplied by G, so the plain kernel's ``_place`` and
``_victim`` work on subpools unchanged (die = sp // (ppd·G)).
"""

from __future__ import annotations

import numpy as np

from charz.sim.ftl import _kernel as K
from charz.sim.ftl._kernel import _jit

# wolf parameters ``wp`` (int64): group slots, interval, movement, FDP, §5.2's adaptive
# group count with its F (pages) and w (intervals)
WP_G, WP_H, WP_MOVE, WP_FDP, WP_ADAPT, WP_F, WP_W = range(7)
N_WP = 7
# wolf scalar state ``ws`` (int64): host writes in the current interval, groups in use,
# intervals left in which no group is created or merged, groups created, merges,
# intervals left in which no group is created (after a merge), the next such ban,
# intervals since the last merge
WS_IW, WS_NA, WS_FREEZE, WS_CREATED, WS_MERGED, WS_BAN, WS_BACKOFF, WS_QUIET = range(8)
N_WS = 8
MAX_BACKOFF = 64  # × w: the longest ban on creating a group after a merge
# per-group int state ``gi[x, k]``: writes in the interval, rank by hit rate (0 coldest,
# −1: slot not in use), intervals its hit rate has been close to the next hotter group's
# (in a merged slot: the group it merged into)
GI_IW, GI_RANK, GI_CONV = range(3)
N_GI = 3
Q_FACTOR = 2.0  # 002 §5.2's Q: neighbouring groups' hit rates differ by at least this
K_SILENT = 2.0  # demote a migrated page silent for K mean update intervals of its group
W_OWN = K.N_Q  # extra column of ``wpt``: units the subpool owns (open ones included)
N_WQ = K.N_Q + 1
COLD_RULE = 0.05  # 002 §5.5.3: the coldest group's special treatment
# 002 §5.2 merges groups that "converge" without saying how close; creation asks for a
# factor Q, so merging at under √Q leaves a band where neither happens (no flapping)
MERGE_RATIO = np.sqrt(Q_FACTOR)
W_INTERVALS = 50  # 002 §5.2's w


def op_shares(sizes, freqs, pba: float, cold_rule: bool = True, order=None) -> np.ndarray:
    """002 Eq. 8 (with §5.5.3's coldest-group rule) in plain numpy: the over-provisioned
    pages each group gets, for reports and tests.  ``order``: groups coldest first
    (default: by hit rate p/s)."""
    s = np.asarray(sizes, float)
    p = np.asarray(freqs, float)
    out = np.zeros(len(s))
    _shares(s, p, float(pba), cold_rule, np.argsort(p / np.maximum(s, 1.0), kind="stable")
            if order is None else np.asarray(order, np.int64), out)
    return out


@_jit
def _shares(s, p, pba, cold_rule, order, out):
    n = s.shape[0]
    lba = 0.0
    for x in range(n):
        lba += s[x]
    op = pba - lba
    if lba <= 0.0:
        for x in range(n):
            out[x] = op / n
        return
    skip = -1
    if cold_rule and n > 2:
        c0 = order[0]
        c1 = order[1]
        if p[c0] / max(s[c0], 1.0) < COLD_RULE * p[c1] / max(s[c1], 1.0):
            skip = c0
            smin = s[0]
            for x in range(n):
                smin = min(smin, s[x])
            out[c0] = COLD_RULE * smin
            op -= out[c0]
            lba -= s[c0]
    psum = 0.0
    for x in range(n):
        if x != skip:
            psum += p[x]
    v = op / lba if lba > 0 else 0.0
    for x in range(n):
        if x != skip:
            px = p[x] / psum if psum > 0 else 1.0 / (n if skip < 0 else n - 1)
            out[x] = 0.5 * (s[x] * v + px * op)


@_jit
def _wolf_invalidate(ppn, g, p2l, ut, wpt, wbh, ugrp, G):
    un = ppn // g[K.G_UPP]
    p2l[ppn] = -1
    v = ut[un, K.U_VALID]
    ut[un, K.U_VALID] = v - 1
    sp = (un // g[K.G_UNITS_PER_POOL]) * G + ugrp[un]
    wpt[sp, K.Q_VALID] -= 1
    if ut[un, K.U_STATE] == K.CLOSED:
        K._bucket_remove(un, sp, v, ut, wbh)
        K._bucket_insert(un, sp, v - 1, ut, wpt, wbh)


@_jit
def _wolf_pop(pool, x, stream, G, ut, pt, fstack, wpt, ugrp, ctr):
    t = pt[pool, K.Q_FREE_TOP]
    if t == 0:
        ctr[K.C_ERROR] = K.ERR_NO_FREE
        return False
    t -= 1
    un = fstack[pool, t]
    pt[pool, K.Q_FREE_TOP] = t
    ut[un, K.U_STATE] = K.OPEN
    sp = pool * G + x
    ugrp[un] = x
    wpt[sp, W_OWN] += 1
    wpt[sp, K.Q_OPEN_H + stream] = un
    wpt[sp, K.Q_PTR_H + stream] = 0
    return True


@_jit
def _victim_group(pool, g, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced, wp, gpu, gi, shares, sz, pp,
                  order, idx):
    """Which group of ``pool`` gives up a unit: the greatest surplus over its Eq. 8
    share among groups holding a unit with an invalid page (movement), or the pool's
    cheapest unit's group (no movement).  −1: none has an invalid page."""
    G = wp[WP_G]
    upp = g[K.G_UPP]
    base = pool * G
    if G == 1:
        return 0 if K._victim(base, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced) >= 0 else -1
    if wp[WP_MOVE] == 0:
        best, best_v = -1, upp
        for x in range(G):
            if K._victim(base + x, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced) >= 0:
                v = wpt[base + x, K.Q_MIN]
                if v < best_v:
                    best, best_v = x, v
        return best
    # the groups in use, compacted (slots of merged groups hold nothing)
    na = 0
    for x in range(G):
        if gi[x, GI_RANK] >= 0:
            idx[na] = x
            sz[na] = float(wpt[base + x, K.Q_VALID])
            pp[na] = gpu[x]
            na += 1
    for k in range(na):
        order[gi[idx[k], GI_RANK]] = k
    _shares(sz[:na], pp[:na], float((g[K.G_UNITS_PER_POOL] - g[K.G_RESERVE]) * upp), True, order[:na],
            shares[:na])
    best, best_s = -1, -1e300
    for k in range(na):
        x = idx[k]
        s = wpt[base + x, W_OWN] * upp - sz[k] - shares[k]
        if s > best_s and K._victim(base + x, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced) >= 0:
            best, best_s = x, s
    return best


@_jit
def _rank_group(r, G, gi):
    for y in range(G):
        if gi[y, GI_RANK] == r:
            return y
    return -1


@_jit
def _wolf_target(lpn, x, host, now, G, na, s1, s2, gi, ghit, gsz, gtc, orc):
    """The page's group after this write: promote a host update hotter than the way to
    the next hotter group, demote a GC migration colder than the way to the next colder
    (rates in writes per host page write; see the module docstring).  With an oracle
    (``orc``: each page's true rate, 002 §6's evaluation) both ways compare that rate
    with the geometric mean of the two groups' hit rates."""
    if na == 1:
        return x
    r = gi[x, GI_RANK]
    h = ghit[x]
    oracle = orc.shape[0] > 0
    t1, t2 = s1[lpn], s2[lpn]
    if oracle:
        rate = orc[lpn]
    elif t2 >= 0:
        rate = 2.0 / max(now - t2, 1)
    elif t1 >= 0:
        rate = 1.0 / max(now - t1, 1)
    else:
        rate = 0.0
    if host and r < na - 1:
        y = _rank_group(r + 1, G, gi)
        if rate > (np.sqrt(h * ghit[y]) if gsz[y] > 0 and ghit[y] > h else Q_FACTOR * h):
            return y
    elif not host and r > 0 and oracle:
        y = _rank_group(r - 1, G, gi)
        if rate < (np.sqrt(h * ghit[y]) if gsz[y] > 0 and ghit[y] < h else h / Q_FACTOR):
            return y
    elif not host and r > 0 and h > 0.0:
        # silent for K of the group's mean update intervals, counted from its last write
        # or from when the group last turned hotter (its pages' older silence says
        # nothing about their rate since): P = e^−K for a page as hot as its group
        age = now - max(t1, gtc[x])
        if age * h > K_SILENT:
            return _rank_group(r - 1, G, gi)
    return x


@_jit
def _lru_victim(pool, x, g, ut, ugrp):
    """FDP's least-recently-cleaned unit of group ``x`` in ``pool``: the one closed
    longest ago (units are filled in the order they were cleaned) among those with an
    invalid page — an all-valid unit would be copied whole and give nothing back."""
    n = g[K.G_UNITS_PER_POOL]
    upp = g[K.G_UPP]
    best, best_t = -1, np.iinfo(np.int64).max
    for un in range(pool * n, pool * n + n):
        if ugrp[un] == x and ut[un, K.U_STATE] == K.CLOSED and ut[un, K.U_VALID] < upp \
                and ut[un, K.U_CLOSE] < best_t:
            best, best_t = un, ut[un, K.U_CLOSE]
    return best


@_jit
def _wolf_gc(pool, g, gw, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code, wpt, wbh, ugrp,
             s1, s2, wp, ws, gpu, gi, ghit, gsz, gtc, gref, shares, sz, pp, order, idx, orc):
    G = wp[WP_G]
    x = _victim_group(pool, g, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced, wp, gpu, gi, shares, sz, pp,
                      order, idx)
    if x < 0:
        ctr[K.C_ERROR] = K.ERR_NO_VICTIM
        return
    sp = pool * G + x
    if wp[WP_FDP]:
        un = _lru_victim(pool, x, g, ut, ugrp)
    else:
        un = K._victim(sp, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced)
    upp = g[K.G_UPP]
    one_die = g[K.G_DPP] == 1  # not on lines: every slot is on the pool's die
    die = pool // g[K.G_PPD]
    K._bucket_remove(un, sp, ut[un, K.U_VALID], ut, wbh)
    ut[un, K.U_STATE] = K.VICTIM
    base = un * upp
    for i in range(upp):
        lpn = p2l[base + i]
        if lpn >= 0:
            K._read_op(die if one_die else K._slot_die(pool, i, g), ctr, dc, traced, tr_die, tr_code)
            p2l[base + i] = -1
            ut[un, K.U_VALID] -= 1
            wpt[sp, K.Q_VALID] -= 1
            y = _wolf_target(lpn, x, False, pers[K.P_CLOCK], G, ws[WS_NA], s1, s2, gi, ghit, gsz, gtc, orc)
            sq = pool * G + y
            if wpt[sq, K.Q_OPEN_G] < 0:
                if not _wolf_pop(pool, y, K.GC, G, ut, pt, fstack, wpt, ugrp, ctr):
                    return
            K._place(sq, K.GC, lpn, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced, tr_die, tr_code)
            ctr[K.C_GC_COPIES] += 1
    ut[un, K.U_STATE] = K.FREE
    ut[un, K.U_ERASES] += 1
    ugrp[un] = -1
    wpt[sp, W_OWN] -= 1
    fstack[pool, pt[pool, K.Q_FREE_TOP]] = un
    pt[pool, K.Q_FREE_TOP] += 1
    K._erase_unit(pool, g, ctr, dc, traced, tr_die, tr_code)


@_jit
def _sort_by(order, key):
    """Stable insertion sort of the groups in ``order`` by ``key`` (ties keep their
    order; the ranks change little from one interval to the next)."""
    for i in range(1, order.shape[0]):
        y = order[i]
        j = i - 1
        while j >= 0 and key[order[j]] > key[y]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = y


@_jit
def _interval_end(g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws, gp, gpu, gi, ghit, gsz,
                  gtc, gref, a, now):
    """002 Listing 2: update each p_x from the interval's writes, re-sort by hit rate,
    then (``wp[WP_ADAPT]``) create or merge groups by §5.2's rules.
    FDP (``wp[WP_FDP]``): the groups keep their order and each is presumed as hot as its
    rank — the r-th coldest group gets the r-th lowest measured hit rate and that
    group's p for the detector and the shares (002 §5: FDP "makes assumptions about the
    update frequencies of the groups based on their relative order")."""
    G = wp[WP_G]
    h = float(wp[WP_H])
    npools = g[K.G_NPOOLS]
    hit = ghit
    for x in range(G):
        if gi[x, GI_RANK] < 0:
            continue
        gp[x] = gp[x] * (1.0 - a) + a * gi[x, GI_IW] / h
        gi[x, GI_IW] = 0
        s = 0
        for pool in range(npools):
            s += wpt[pool * G + x, K.Q_VALID]
        gsz[x] = s
        hit[x] = gp[x] / max(s, 1)
        if hit[x] > Q_FACTOR * gref[x]:  # the group turned hotter
            gtc[x] = now
            gref[x] = hit[x]
        elif hit[x] < gref[x] / Q_FACTOR:
            gref[x] = hit[x]
    ws[WS_IW] = 0
    na = ws[WS_NA]
    order = np.empty(na, np.int64)
    for x in range(G):
        if gi[x, GI_RANK] >= 0:
            order[gi[x, GI_RANK]] = x
    frozen = ws[WS_FREEZE] > 0
    if frozen:
        ws[WS_FREEZE] -= 1
    if ws[WS_BAN] > 0:
        ws[WS_BAN] -= 1
    ws[WS_QUIET] += 1
    if ws[WS_QUIET] >= MAX_BACKOFF * wp[WP_W]:  # long without a merge: the ban is forgotten
        ws[WS_BACKOFF] = wp[WP_W]
    if not frozen and wp[WP_FDP] == 0:
        # a group just created keeps its place while frozen (§5.2: "fixing its position
        # in the SGV")
        _sort_by(order, hit)
        for r in range(na):
            gi[order[r], GI_RANK] = r
    if wp[WP_FDP] == 0:
        for x in range(G):
            gpu[x] = gp[x]
        if wp[WP_ADAPT] and not frozen:
            _adapt_groups(order, g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws, gp,
                          gpu, gi, ghit, gsz, gtc, gref, now)
        return
    p_sorted = np.empty(na)
    h_sorted = np.empty(na)
    by_hit = order.copy()
    _sort_by(by_hit, hit)
    for r in range(na):
        p_sorted[r] = gp[by_hit[r]]
        h_sorted[r] = hit[by_hit[r]]
    for x in range(G):
        r = gi[x, GI_RANK]
        if r >= 0:
            gpu[x] = p_sorted[r]
            hit[x] = h_sorted[r]


@_jit
def _adapt_groups(order, g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws, gp, gpu, gi,
                  ghit, gsz, gtc, gref, now):
    """002 §5.2, at most one change per interval, ``order`` the groups coldest first:
    merge a group under F pages into its closer neighbour, or two neighbours whose hit
    rates stayed within √Q for w intervals; else create a hotter group when the hottest
    holds ≥ F pages and is ≥ Q times as hot as the next — frozen in place for w
    intervals.  Not 002's third rule, an empty group between neighbours more than 2Q
    apart: on two temperatures (90/10) it filled with pages the detector misfiled and
    raised WA 1.9 % over two fixed groups (2.3 % on five exponential tiers), against
    1.3 % (and −0.2 %) without it (3 seeds, 4 dies; module docstring)."""
    G = wp[WP_G]
    na = ws[WS_NA]
    F = wp[WP_F]
    for r in range(na - 1):  # neighbours' convergence, counted on the colder one
        lo, hi = order[r], order[r + 1]
        if ghit[hi] < MERGE_RATIO * max(ghit[lo], 1e-300):
            gi[lo, GI_CONV] += 1
        else:
            gi[lo, GI_CONV] = 0
    if na > 2:
        for r in range(na):
            x = order[r]
            small = gsz[x] < F
            if not small and (r == na - 1 or gi[x, GI_CONV] < wp[WP_W]):
                continue
            if small:  # into the neighbour whose hit rate is closer (in ratio)
                if r == 0:
                    y = order[1]
                elif r == na - 1:
                    y = order[r - 1]
                else:
                    dl = abs(np.log(max(ghit[x], 1e-300) / max(ghit[order[r - 1]], 1e-300)))
                    du = abs(np.log(max(ghit[x], 1e-300) / max(ghit[order[r + 1]], 1e-300)))
                    y = order[r - 1] if dl <= du else order[r + 1]
            else:
                y = order[r + 1]
            # the bigger one keeps its slot: fewer units to relabel
            keep, gone = (x, y) if gsz[x] >= gsz[y] else (y, x)
            _merge_groups(gone, keep, g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws,
                          gp, gpu, gi, ghit, gsz, gtc, gref)
            return
    if na >= G or ws[WS_BAN] > 0:
        return
    top, second = order[na - 1], order[na - 2]
    if gsz[top] >= F and ghit[top] > 0.0 and ghit[top] >= Q_FACTOR * ghit[second]:
        _create_group(na, wp, ws, gp, gpu, gi, ghit, gsz, gtc, gref, now)


@_jit
def _create_group(rank, wp, ws, gp, gpu, gi, ghit, gsz, gtc, gref, now):
    """An empty group at ``rank`` (the ranks from there up move one up) in a free slot."""
    G = wp[WP_G]
    y = 0
    while gi[y, GI_RANK] >= 0:
        y += 1
    for x in range(G):
        if gi[x, GI_RANK] >= rank:
            gi[x, GI_RANK] += 1
    gi[y, GI_RANK] = rank
    gi[y, GI_IW] = 0
    gi[y, GI_CONV] = 0
    if rank > 0:
        gi[_rank_group(rank - 1, G, gi), GI_CONV] = 0
    gp[y] = gpu[y] = ghit[y] = gref[y] = 0.0
    gsz[y] = 0
    gtc[y] = now
    ws[WS_NA] += 1
    ws[WS_FREEZE] = wp[WP_W]
    ws[WS_CREATED] += 1


@_jit
def _merge_groups(y, x, g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws, gp, gpu, gi, ghit,
                  gsz, gtc, gref):
    """Group ``y`` joins ``x`` (002: "a merge is logical"): its units are relabelled and
    moved into ``x``'s valid-count buckets pool by pool.  An open unit of ``y`` takes the
    place of ``x``'s when ``x`` has none on that stream; otherwise it is closed as it is
    (its pending pages programmed, its unwritten slots left for GC to reclaim)."""
    G = wp[WP_G]
    upp = g[K.G_UPP]
    n = g[K.G_UNITS_PER_POOL]
    for pool in range(g[K.G_NPOOLS]):
        sy = pool * G + y
        sx = pool * G + x
        for stream in range(2):
            uy = wpt[sy, K.Q_OPEN_H + stream]
            if uy < 0:
                continue
            if wpt[sx, K.Q_OPEN_H + stream] < 0:
                wpt[sx, K.Q_OPEN_H + stream] = uy
                wpt[sx, K.Q_PTR_H + stream] = wpt[sy, K.Q_PTR_H + stream]
                wpt[sx, K.Q_PEND_H + stream] = wpt[sy, K.Q_PEND_H + stream]
            else:
                K._program_pending(sy, stream, gw, wpt, ctr, dc, traced, tr_die, tr_code)
                ut[uy, K.U_STATE] = K.CLOSED
                ut[uy, K.U_CLOSE] = pers[K.P_CLOCK]
                K._bucket_insert(uy, sx, ut[uy, K.U_VALID], ut, wpt, wbh)
            wpt[sy, K.Q_OPEN_H + stream] = -1
            wpt[sy, K.Q_PTR_H + stream] = 0
            wpt[sy, K.Q_PEND_H + stream] = 0
        for v in range(upp + 1):
            un = wbh[sy, v]
            while un >= 0:
                nxt = ut[un, K.U_NEXT]
                K._bucket_insert(un, sx, v, ut, wpt, wbh)
                un = nxt
            wbh[sy, v] = -1
        for un in range(pool * n, pool * n + n):
            if ugrp[un] == y:
                ugrp[un] = x
        wpt[sx, K.Q_VALID] += wpt[sy, K.Q_VALID]
        wpt[sx, W_OWN] += wpt[sy, W_OWN]
        wpt[sy, K.Q_VALID] = 0
        wpt[sy, W_OWN] = 0
        wpt[sy, K.Q_MIN] = upp
    r = gi[y, GI_RANK]
    for z in range(G):
        if gi[z, GI_RANK] > r:
            gi[z, GI_RANK] -= 1
    gi[y, GI_RANK] = -1
    gi[y, GI_CONV] = x  # where its pages went (a write on its way there follows)
    gi[x, GI_IW] += gi[y, GI_IW]
    gi[y, GI_IW] = 0
    for z in range(G):
        if gi[z, GI_RANK] >= 0:
            gi[z, GI_CONV] = 0
    gp[x] += gp[y]
    gpu[x] += gpu[y]
    gsz[x] += gsz[y]
    ghit[x] = gp[x] / max(gsz[x], 1)
    gref[x] = ghit[x]
    gp[y] = gpu[y] = ghit[y] = gref[y] = 0.0
    gsz[y] = 0
    ws[WS_NA] -= 1
    ws[WS_MERGED] += 1
    # a group that merges back did not pay for itself: wait longer before the next one
    # (not 002's — with a detector that misfiles pages, its rules alone create a group,
    # fill it with misfiled pages and merge it again every 2w intervals)
    ws[WS_BAN] = ws[WS_BACKOFF]
    ws[WS_BACKOFF] = min(2 * ws[WS_BACKOFF], MAX_BACKOFF * wp[WP_W])
    ws[WS_QUIET] = 0


@_jit
def run_wolf(ops, offs, lens, r0, finish, g, gw, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die,
             tr_code, wpt, wbh, ugrp, s1, s2, wp, ws, gp, gpu, gi, ghit, gsz, gtc, gref, a, orc):
    """The plain kernel's request loop (no write cache) with Wolf's write path; same
    return convention as ``run_kernel``."""
    G = wp[WP_G]
    shares = np.empty(G)
    sz = np.empty(G)
    pp = np.empty(G)
    order = np.empty(G, np.int64)
    idx = np.empty(G, np.int64)
    ps = g[K.G_PAGE_SIZE]
    upp = g[K.G_UPP]
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
                if (off > pstart or end < pstart + ps) and l2p[p] >= 0:
                    K._read_op(K._die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[K.C_RMW_READS] += 1
                # Wolf's write path, here rather than in a function: a call passing ~30
                # arrays cost more than the write itself (1 M vs 14 M pages/s sequential)
                now = pers[K.P_CLOCK]
                old = l2p[p]
                # p_x is "the probability that an update targets a page in group x"
                # (002 §5): the write counts for the group the page was in.  (Counting it
                # for the group it goes to starves a group whose hot pages all leave: its
                # p → 0, so any page is hotter.)
                if old >= 0:
                    x = ugrp[old // upp]
                    gi[x, GI_IW] += 1
                    _wolf_invalidate(old, g, p2l, ut, wpt, wbh, ugrp, G)
                    l2p[p] = -1
                    x = _wolf_target(p, x, True, now, G, ws[WS_NA], s1, s2, gi, ghit, gsz, gtc, orc)
                else:
                    x = _rank_group(0, G, gi)
                    gi[x, GI_IW] += 1
                s2[p] = s1[p]
                s1[p] = now
                ws[WS_IW] += 1
                if ws[WS_IW] >= wp[WP_H]:
                    _interval_end(g, gw, ut, wpt, wbh, ugrp, pers, ctr, dc, traced, tr_die, tr_code, wp, ws, gp, gpu,
                                  gi, ghit, gsz, gtc, gref, a, now)
                    if gi[x, GI_RANK] < 0:  # the page's group just merged into another
                        x = gi[x, GI_CONV]
                k = K._stripe_slot(p, g[K.G_NPOOLS])
                dies = g[K.G_DIES]
                pool = (k % dies) * g[K.G_PPD] + (k // dies) % g[K.G_PPD]
                sp = pool * G + x
                if wpt[sp, K.Q_OPEN_H] < 0:
                    while pt[pool, K.Q_FREE_TOP] <= g[K.G_RESERVE]:
                        _wolf_gc(pool, g, gw, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die,
                                 tr_code, wpt, wbh, ugrp, s1, s2, wp, ws, gpu, gi, ghit, gsz, gtc, gref, shares, sz,
                                 pp, order, idx, orc)
                        if ctr[K.C_ERROR] != 0:
                            return r
                    _wolf_pop(pool, x, K.HOST, G, ut, pt, fstack, wpt, ugrp, ctr)
                K._place(sp, K.HOST, p, gw, l2p, p2l, ut, wpt, fstack, wbh, pers, ctr, dc, traced, tr_die,
                         tr_code)
                ctr[K.C_HOST_PROG] += 1
                if ctr[K.C_ERROR] != 0:
                    return r
        elif op == K.OP_READ:
            ctr[K.C_HOST_R_BYTES] += ln
            for p in range(first, last + 1):
                if l2p[p] >= 0:
                    K._read_op(K._die_of(l2p[p], g), ctr, dc, traced, tr_die, tr_code)
                    ctr[K.C_HOST_FLASH_READS] += 1
        else:
            for p in range(first, last + 1):
                pstart = p * ps
                if off > pstart or end < pstart + ps:
                    continue
                old = l2p[p]
                if old >= 0:
                    _wolf_invalidate(old, g, p2l, ut, wpt, wbh, ugrp, G)
                    l2p[p] = -1
                    ctr[K.C_TRIM_PAGES] += 1
    if not finish:
        return n + 1
    for sp in range(wpt.shape[0]):
        for s in range(2):
            K._program_pending(sp, s, gw, wpt, ctr, dc, traced, tr_die, tr_code)
    return n + 1


class WolfState:
    """The arrays Wolf adds to a drive (see the module docstring)."""

    def __init__(self, cfg, g: np.ndarray, user_pages: int):
        G = int(cfg.wolf_slots)  # group slots: the most groups there can be
        na = int(cfg.wolf_groups)  # groups at the start
        self.G = G
        self.gw = g.copy()
        self.gw[K.G_PPD] *= G
        self.gw[K.G_GC] = K.GC_GREEDY
        self.wpt = np.zeros((cfg.pools * G, N_WQ), dtype=np.int64)
        self.wpt[:, K.Q_OPEN_H] = self.wpt[:, K.Q_OPEN_G] = -1
        self.wpt[:, K.Q_MIN] = cfg.pages_per_unit
        self.wbh = np.full((cfg.pools * G, cfg.pages_per_unit + 1), -1, dtype=np.int64)
        self.ugrp = np.full(cfg.pools * cfg.units_per_pool, -1, dtype=np.int64)
        self.s1 = np.full(user_pages, -1, dtype=np.int64)  # host-write clock of the last write
        self.s2 = np.full(user_pages, -1, dtype=np.int64)  # … and of the one before
        self.wp = np.zeros(N_WP, dtype=np.int64)
        self.wp[WP_G] = G
        self.wp[WP_H] = max(1, round(cfg.wolf_interval * user_pages))
        self.wp[WP_MOVE] = int(cfg.wolf_movement)
        self.wp[WP_FDP] = int(cfg.wolf_fdp)
        self.wp[WP_ADAPT] = int(cfg.wolf_max_groups > 0)
        self.wp[WP_F] = cfg.pools * cfg.pages_per_unit  # 002 §5.2: a block in every LUN
        self.wp[WP_W] = W_INTERVALS
        self.ws = np.zeros(N_WS, dtype=np.int64)
        self.ws[WS_NA] = na
        self.ws[WS_BACKOFF] = W_INTERVALS
        if cfg.wolf_max_groups and na > 2:
            # the groups given at the start are empty but for the coldest, as a created
            # one is: they get its w intervals to fill before §5.2 may merge them as
            # small (else they merged at the first interval's end, and each merge
            # lengthened the ban on creating groups before any was created)
            self.ws[WS_FREEZE] = W_INTERVALS
        self.gp = np.zeros(G)  # p_x measured
        self.gp[:na] = 1.0 / na
        self.gpu = self.gp.copy()  # p_x the shares use (FDP: presumed from the rank)
        self.gi = np.zeros((G, N_GI), dtype=np.int64)
        self.gi[:, GI_RANK] = -1
        self.gi[:na, GI_RANK] = np.arange(na)
        self.ghit = np.zeros(G)  # hit rates p_x/s_x at the last interval's end
        self.gsz = np.zeros(G, dtype=np.int64)  # group sizes then
        self.gtc = np.zeros(G, dtype=np.int64)  # host-write clock when the group last turned hotter
        self.gref = np.zeros(G)  # its hit rate then
        self.a = 1.0 / 3.0
        self.orc = np.zeros(0)  # each page's true update rate, when an oracle is given

    def set_oracle(self, rates) -> None:
        """Give the detector each logical page's true update rate (writes per host page
        write; None: estimate from the page's last two writes)."""
        if rates is None:
            self.orc = np.zeros(0)
            return
        r = np.asarray(rates, dtype=np.float64)
        if r.shape != self.s1.shape or not np.all(np.isfinite(r)) or (r < 0).any():
            raise ValueError(f"an oracle gives one finite rate ≥ 0 per logical page ({self.s1.shape[0]})")
        self.orc = r.copy()

    def run(self, ops, offs, lens, r, g, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced, tr_die, tr_code):
        return run_wolf(ops, offs, lens, r, True, g, self.gw, l2p, p2l, ut, pt, fstack, bhead, pers, ctr, dc, traced,
                        tr_die, tr_code, self.wpt, self.wbh, self.ugrp, self.s1, self.s2, self.wp, self.ws, self.gp,
                        self.gpu, self.gi, self.ghit, self.gsz, self.gtc, self.gref, self.a, self.orc)

    @property
    def groups(self) -> int:
        """Groups in use now."""
        return int(self.ws[WS_NA])

    @property
    def created(self) -> int:
        return int(self.ws[WS_CREATED])

    @property
    def merged(self) -> int:
        return int(self.ws[WS_MERGED])

    def active(self) -> np.ndarray:
        """Slots of the groups in use, coldest first."""
        live = np.flatnonzero(self.gi[:, GI_RANK] >= 0)
        return live[np.argsort(self.gi[live, GI_RANK])]

    def group_sizes(self, pools: int) -> np.ndarray:
        """Valid pages per group over the drive."""
        return self.wpt[:, K.Q_VALID].reshape(pools, self.G).sum(axis=0)

    def group_units(self, pools: int) -> np.ndarray:
        """Units owned per group over the drive (open ones included)."""
        return self.wpt[:, W_OWN].reshape(pools, self.G).sum(axis=0)

"""Wolf's kernel state stays consistent while groups are created and merged (002 §5.2),
under FDP and with fixed groups, on random configurations and mixed I/O with TRIM.

Truth from outside the kernel's bookkeeping: every count the kernel keeps (valid
pages and units per (pool, group) subpool, valid-count bucket lists, open frontiers,
free stacks, ranks) is recomputed here from the unit table and the reverse map alone
(which pages each physical slot holds), and must match after every run.  A merge
relabels units and moves them between bucket lists; a slip there shows up as a
bucket holding a unit of another subpool or valid count, a count that drifted, or a
page in a group slot no longer in use.
"""

from __future__ import annotations

import numpy as np
import pytest

from charz.sim.ftl import OP_READ, OP_TRIM, OP_WRITE, FtlConfig, SimDrive, Workload, make_requests, requests
from charz.sim.ftl import _kernel as K
from charz.sim.ftl import _wolf as W

pytestmark = pytest.mark.unit


def mixed(user_bytes: int, n: int, rng) -> np.ndarray:
    """Writes, reads and TRIMs of 512 B – 32 KiB, 80 % of them to the first fifth."""
    ops = rng.choice([OP_WRITE, OP_WRITE, OP_WRITE, OP_READ, OP_READ, OP_TRIM], size=n).astype(np.uint8)
    lengths = rng.choice([512, 4096, 8192, 32768], size=n)
    span = np.where(rng.random(n) < 0.8, user_bytes // 5, user_bytes) - lengths
    return requests(ops, (rng.integers(0, span // 512 + 1) * 512).astype(np.int64), lengths)


def check_state(d: SimDrive) -> None:
    st = d._policy
    G, upp, npools, n = st.G, d.cfg.pages_per_unit, d.cfg.pools, d.cfg.units_per_pool
    ut, wpt, wbh, ugrp, gi = d._ut, st.wpt, st.wbh, st.ugrp, st.gi
    l2p, p2l = np.asarray(d._l2p), np.asarray(d._p2l)
    # the map and its reverse agree, and the unit table's valid counts are the reverse map's
    mapped = np.flatnonzero(l2p >= 0)
    assert np.array_equal(p2l[l2p[mapped]], mapped)
    live = np.flatnonzero(p2l >= 0)
    assert len(live) == len(mapped)
    valid = np.bincount(live // upp, minlength=len(ut))
    assert np.array_equal(valid, ut[:, K.U_VALID])
    # the slots in use hold ranks 0 … na − 1, each once
    na = int(st.ws[W.WS_NA])
    act = np.flatnonzero(gi[:, W.GI_RANK] >= 0)
    assert len(act) == na and sorted(gi[act, W.GI_RANK]) == list(range(na))
    assert abs(st.gp[act].sum() - 1.0) < 1e-9  # the groups' update shares: all of them
    # every live page, and every unit not free, is in a group in use; free units in none
    state = ut[:, K.U_STATE]
    assert np.isin(ugrp[l2p[mapped] // upp], act).all()
    assert np.isin(ugrp[state != K.FREE], act).all() and (ugrp[state == K.FREE] == -1).all()
    assert np.isin(state, (K.FREE, K.OPEN, K.CLOSED)).all()  # no unit left mid-collection
    for pool in range(npools):
        units = np.arange(pool * n, (pool + 1) * n)
        free = d._fstack[pool, :d._pt[pool, K.Q_FREE_TOP]]
        assert sorted(free) == sorted(units[state[units] == K.FREE])
        for x in range(G):
            sp = pool * G + x
            mine = units[ugrp[units] == x]
            assert wpt[sp, K.Q_VALID] == valid[mine].sum()
            assert wpt[sp, W.W_OWN] == len(mine)
            # the open units are the subpool's frontiers, unwritten past their pointers
            fronts = [wpt[sp, K.Q_OPEN_H + s] for s in range(2)]
            assert sorted(u for u in fronts if u >= 0) == sorted(mine[state[mine] == K.OPEN])
            for s, u in enumerate(fronts):
                assert wpt[sp, K.Q_PEND_H + s] == 0  # the run ended with every page programmed
                if u >= 0:
                    assert (p2l[u * upp + wpt[sp, K.Q_PTR_H + s]:(u + 1) * upp] == -1).all()
            # bucket v lists exactly the subpool's closed units with v valid pages
            seen = []
            for v in range(upp + 1):
                un, prev = wbh[sp, v], -1
                while un >= 0 and len(seen) <= n:
                    assert ut[un, K.U_PREV] == prev and valid[un] == v and ugrp[un] == x
                    assert v == upp or wpt[sp, K.Q_MIN] <= v  # greedy's search starts low enough
                    seen.append(un)
                    prev, un = un, ut[un, K.U_NEXT]
            assert sorted(seen) == sorted(mine[state[mine] == K.CLOSED])
    for x in np.setdiff1d(np.arange(G), act):  # a slot not in use holds nothing
        assert st.gp[x] == 0 and gi[x, W.GI_IW] == 0


def random_config(rng) -> FtlConfig:
    g0 = int(rng.integers(2, 5))
    most = int(rng.integers(max(g0, 3), 9)) if rng.random() < 0.75 else 0
    fdp = most == 0 and rng.random() < 0.5
    lines = bool(rng.random() < 0.25)  # one GC pool of units that span every die
    return FtlConfig(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=128 * (1 + lines),
                     pages_per_block=32 // (1 + 3 * lines), page_size=4096, lines=lines,
                     over_provisioning=float(rng.choice([0.3, 0.5, 0.8])),
                     policy="wolf", wolf_groups=g0, wolf_max_groups=most, wolf_fdp=fdp,
                     wolf_movement=bool(fdp or rng.random() < 0.75),
                     wolf_interval=float(rng.choice([0.0001, 0.0003, 0.001])),
                     trace_dies=(0, 1) if rng.random() < 0.5 else ())  # a merge's early programs traced too


def test_wolf_state_holds_on_random_configurations():
    """Random group counts, group limits, intervals, FDP, movement, lines and traced dies
    on mixed I/O with TRIM: the state is consistent after the fill and after every run —
    and groups were created and merged, often, so the merges' bookkeeping was exercised."""
    created = merged = 0
    for seed in range(24):
        rng = np.random.default_rng(seed)
        d = SimDrive(random_config(rng))
        d.precondition(float(rng.uniform(0.3, 1.0)))
        check_state(d)
        for _ in range(4):
            res = d.run(mixed(d.user_bytes, int(rng.integers(2000, 8000)), rng))
            assert res.die_pages_programmed.sum() == res.flash_pages_programmed
            check_state(d)
        created += d._policy.created
        merged += d._policy.merged
        if d.cfg.wolf_max_groups == 0:
            assert d._policy.created == d._policy.merged == 0
            assert d._policy.groups == d.cfg.wolf_groups
    assert created >= 20 and merged >= 20


def test_wolf_state_holds_while_tiers_make_and_merge_groups():
    """Four temperatures with TRIMs, in short runs: groups come and go while the drive
    is full, and the state holds after each run."""
    tiers = ((0.6, 0.02), (0.2, 0.08), (0.15, 0.2), (0.05, 0.7))
    for seed, (g0, most, movement) in enumerate([(2, 6, True), (3, 8, True), (2, 5, False)]):
        cfg = FtlConfig(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=128,
                        pages_per_block=32, page_size=4096, over_provisioning=0.3, policy="wolf",
                        wolf_groups=g0, wolf_max_groups=most, wolf_movement=movement, wolf_interval=0.0005,
                        trace_dies=())
        d = SimDrive(cfg)
        d.precondition()
        u = d.user_bytes
        rng = np.random.default_rng(seed)
        for k in range(20):
            reqs = make_requests(Workload(block_size=4096, volume_bytes=u // 3, tiers=tiers, seed=100 * seed + k), u)
            reqs["op"][rng.random(len(reqs)) < 0.05] = OP_TRIM
            res = d.run(reqs)
            assert res.die_pages_programmed.sum() == res.flash_pages_programmed
            check_state(d)
        assert d._policy.created >= 2 and d._policy.merged >= 1


def test_starting_groups_get_w_intervals_before_merging():
    """Groups given at the start (``wolf_groups`` > 2 with ``wolf_max_groups``) are empty
    but for the coldest, as a created group is, and get its w intervals to fill; only
    then does §5.2's rule merge those still under F pages (here a sequential fill: the
    first writes all go to the coldest group, so the other groups stay nearly empty)."""
    cfg = FtlConfig(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=128,
                    pages_per_block=32, page_size=4096, over_provisioning=0.3, policy="wolf", wolf_groups=4,
                    wolf_max_groups=8, trace_dies=())
    d = SimDrive(cfg)
    st = d._policy
    h = int(st.wp[W.WP_H])
    d.precondition((W.W_INTERVALS - 1) * h / cfg.user_pages)  # w − 1 intervals of writes
    assert st.groups == 4 and st.merged == 0
    check_state(d)
    d.precondition(0.5)  # hundreds of intervals more
    assert st.merged >= 2
    check_state(d)

"""The papers' FTL policies in the simulated drive (issue 14 item 3): Wolf (002 §5) and
an NVM cache with and without Cooperative Data Management (004 §III).

Truth from outside the policies: their limits are the plain FTL, operation for
operation (Wolf with one group, a cache of size zero); FDP's least-recently-cleaned
cleaner with one group meets Desnoyers' LRW closed form (the tests' own,
tests/independent/closed_forms.py); Wolf's
over-provisioning split is 002 Eq. 8, computed here from the paper's formula; a CDM cache holding every page
leaves garbage collection nothing to copy (004: cached copies make flash copies
removable); the map invariants are checked against the request stream alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import minimize

from charz.sim.ftl import OP_READ, OP_TRIM, OP_WRITE, FtlConfig, SimDrive, Workload, make_requests, requests
from charz.sim.ftl._wolf import op_shares
from tests.independent.closed_forms import dayan, greedy_sf, lrw_sf

pytestmark = pytest.mark.unit

SMALL = dict(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=64, pages_per_block=32,
             page_size=4096)


def check_map(drive: SimDrive) -> None:
    """Every mapped logical page points at one physical page that points back; no stale
    second copies; per-unit valid counts as the reverse map says."""
    l2p, p2l = np.asarray(drive.l2p), np.asarray(drive.p2l)
    mapped = np.flatnonzero(l2p >= 0)
    assert np.array_equal(p2l[l2p[mapped]], mapped)
    live = np.flatnonzero(p2l >= 0)
    assert len(live) == len(mapped)
    counts = np.bincount(live // drive.pages_per_unit, minlength=len(drive.valid_per_unit))
    assert np.array_equal(counts, drive.valid_per_unit)


def mixed(user_bytes: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ops = rng.choice([OP_WRITE, OP_WRITE, OP_WRITE, OP_READ, OP_READ, OP_TRIM], size=n).astype(np.uint8)
    lengths = rng.choice([512, 4096, 8192, 32768], size=n)
    hot = rng.random(n) < 0.8  # skewed, so Wolf's groups and the cache have something to do
    span = np.where(hot, user_bytes // 5, user_bytes) - lengths
    offsets = (rng.integers(0, span // 512 + 1) * 512).astype(np.int64)
    return requests(ops, offsets, lengths)


def mapped_after(reqs: np.ndarray, before: np.ndarray, page_size: int) -> np.ndarray:
    m = before.copy()
    for op, off, ln in reqs[["op", "offset", "length"]].tolist():
        if op == OP_WRITE:
            m[off // page_size:(off + ln - 1) // page_size + 1] = True
        elif op == OP_TRIM:
            m[-(-off // page_size):(off + ln) // page_size] = False
    return m


def mixed_runs_checked(cfg: FtlConfig, fill: float, seed: int):
    """Three mixed request streams (``mixed``) on a drive filled to ``fill``: after each,
    the map holds exactly the pages the requests left written and every programmed
    page is on a die; yields each run's result."""
    d = SimDrive(cfg)
    d.precondition(fill)
    want = mapped_after(requests(OP_WRITE, 0, int(d.user_bytes * fill) // 512 * 512), np.zeros(cfg.user_pages, bool),
                        4096)
    for k in range(3):
        reqs = mixed(d.user_bytes, 8000, seed=seed + k)
        res = d.run(reqs)
        want = mapped_after(reqs, want, 4096)
        check_map(d)
        assert np.array_equal(np.asarray(d.l2p) >= 0, want)
        assert res.die_pages_programmed.sum() == res.flash_pages_programmed
        yield res


def same_runs(a: FtlConfig, b: FtlConfig, runs) -> None:
    """Two drives given the same requests do the same flash work, pulse for pulse."""
    da, db = SimDrive(a), SimDrive(b)
    da.precondition()
    db.precondition()
    for reqs in runs(da.user_bytes):
        ra, rb = da.run(reqs), db.run(reqs)
        for name in ("host_pages_programmed", "gc_copies", "erases", "flash_pages_read", "program_ops",
                     "trimmed_pages"):
            assert getattr(ra, name) == getattr(rb, name), name
        assert np.array_equal(ra.die_program_ops, rb.die_program_ops)
        assert all(np.array_equal(x, y) for x, y in zip(ra.rb_trace(0), rb.rb_trace(0)))
    assert np.array_equal(da.l2p, db.l2p) and np.array_equal(da.p2l, db.p2l)


def skewed_runs(user_bytes):
    w = Workload(block_size=4096, volume_bytes=2 * user_bytes, hot_space=0.2, hot_share=0.8, seed=4)
    return [make_requests(w, user_bytes), mixed(user_bytes, 5000, 1)]


# ---- Wolf -------------------------------------------------------------------------------


@pytest.mark.parametrize("lines", [False, True])
def test_wolf_with_one_group_is_the_greedy_manager_exactly(lines):
    plain = FtlConfig(**SMALL, over_provisioning=0.2 if not lines else 0.4, lines=lines)
    same_runs(plain, replace(plain, policy="wolf", wolf_groups=1), skewed_runs)


def eq8(s, p, pba):
    """002 Eq. 8 as printed: OP_x = (s_x·V + p_x·OP)/2, V = PBA/LBA − 1 (Eq. 6), OP_x = p_x·OP
    (Eq. 7's first line), OP = PBA − LBA."""
    lba = sum(s)
    v = pba / lba - 1.0
    return [(sx * v + px * (pba - lba)) / 2.0 for sx, px in zip(s, p)]


@pytest.mark.parametrize("s, p, pba", [([0.5, 0.5], [0.1, 0.9], 1.25), ([300, 500, 200], [0.2, 0.3, 0.5], 1300),
                                       ([40, 60], [0.5, 0.5], 140)])
def test_wolf_op_split_is_eq8(s, p, pba):
    got = op_shares(s, p, pba)
    assert got == pytest.approx(eq8(s, p, pba), rel=1e-12)
    assert got.sum() == pytest.approx(pba - sum(s))  # Eq. 8 shares out exactly the spare


def test_wolf_coldest_group_rule():
    """002 §5.5.3: a coldest group below 5 % of the next one's hit rate gets 5 % of the
    smallest group's size; Eq. 8 shares the rest among the others."""
    s, p, pba = [600, 300, 100], [0.001, 0.4, 0.599], 1250
    got = op_shares(s, p, pba)
    fixed = 0.05 * 100
    rest = eq8(s[1:], [0.4 / 0.999, 0.599 / 0.999], pba - s[0] - fixed)
    assert got == pytest.approx([fixed, *rest], rel=1e-12)


def steady(cfg, hot_space=0.5, hot_share=0.9, warm=5, seed=3):
    d = SimDrive(cfg)
    d.precondition()
    u = d.user_bytes
    w = Workload(block_size=4096, volume_bytes=u, hot_space=hot_space, hot_share=hot_share, seed=seed)
    for k in range(warm):
        d.run(make_requests(replace(w, seed=seed * 100 + k), u))
    return d, d.run(make_requests(replace(w, volume_bytes=2 * u, seed=seed * 100 + 99), u))


def test_wolf_separates_90_10_and_writes_less_than_greedy():
    """002's headline on a stable skewed workload: groups by update frequency, each with
    its Eq. 8 share of the spare, write less than one greedy group."""
    base = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=1, dies_per_chip=1, planes=2,
                                       blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=())
    _, greedy = steady(base)
    d, wolf = steady(replace(base, policy="wolf"))
    assert wolf.true_wa < 0.93 * greedy.true_wa
    st = d._policy
    sizes = st.group_sizes(base.pools)
    hot = int(np.argmax(st.gp))
    # the hot group holds about the hot half and draws most of the updates (0.9 with a
    # perfect detector; a rate estimated from two writes misfiles some pages)
    assert sizes[hot] / sizes.sum() == pytest.approx(0.5, abs=0.08)
    assert 0.75 < st.gp[hot] <= 0.95
    # movement operations keep each group near its Eq. 8 space (within a few units per pool)
    upp = base.pages_per_unit
    pba = (base.units_per_pool - 2) * upp * base.pools
    want = (sizes + op_shares(sizes, st.gp, pba)) / upp
    assert np.abs(st.group_units(base.pools) - want).max() < 4 * base.pools
    check_map(d)


def test_wolf_follows_a_hot_cold_swap():
    """002 §6.1: when the halves swap frequencies, Wolf's groups re-form (the newly hot
    pages end up in the hot-ranked group) and its WA over the second user space after
    the swap is back below one greedy group's."""
    base = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=1, dies_per_chip=1, planes=2,
                                       blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=())
    was = {}
    for name, cfg in (("greedy", base), ("wolf", replace(base, policy="wolf"))):
        d, _ = steady(cfg, warm=4)
        u = d.user_bytes
        half = u // 2 // 4096 * 4096
        w = Workload(block_size=4096, volume_bytes=u, hot_space=0.5, hot_share=0.9, seed=8)
        runs = []
        for k in range(2):
            reqs = make_requests(replace(w, seed=80 + k), u)
            reqs["offset"] = (reqs["offset"] + half) % u  # the second half is now the hot one
            runs.append(d.run(reqs))
        was[name] = runs[1].true_wa
        if name == "wolf":
            st = d._policy
            hot = int(np.argmax(st.gi[:, 1]))  # the hot-ranked group
            lpns = np.flatnonzero(np.asarray(d.l2p) >= 0)
            in_hot = st.ugrp[np.asarray(d.l2p)[lpns] // base.pages_per_unit] == hot
            newly_hot = lpns >= half // 4096
            assert in_hot[newly_hot].mean() > 0.8 and in_hot[~newly_hot].mean() < 0.35  # 0.92, 0.25
            check_map(d)
    assert was["wolf"] < 0.95 * was["greedy"]


THREE_TEMPS = ((0.8, 0.05), (0.15, 0.25), (0.05, 0.7))  # (share of the space, of the updates)


def separated_wa(s, p, pba) -> float:
    """002 Eq. 5 for perfectly separated groups, each with its Eq. 8 share (``eq8``)."""
    return sum(px * dayan(sx / (sx + ox)) for sx, px, ox in zip(s, p, eq8(s, p, pba)))


def separated_floor(s, p, pba, n_p: int) -> float:
    """The least WA of perfectly separated groups cleaned greedily: 002 Eq. 5 (Σ p_x·WA_x)
    with each group's WA by Desnoyers' greedy (Eq. 12, ``n_p`` pages per block) at its
    own spare factor, minimised over every split of the spare (Nelder–Mead on a softmax;
    the sum is convex in the split).  Not Eq. 8's split with Eq. 3's WA: Eq. 8 is not the
    optimum (5 % above it on ``THREE_TEMPS``) and Eq. 3 is FIFO's WA, which greedy beats."""
    s, p = np.asarray(s, float), np.asarray(p, float)
    op = pba - s.sum()

    def wa(z):
        o = op * np.exp(z) / np.exp(z).sum()
        return sum(px * greedy_sf(ox / (sx + ox), n_p) for sx, px, ox in zip(s, p, o))

    return minimize(wa, np.zeros(len(s)), method="Nelder-Mead", options=dict(xatol=1e-9, fatol=1e-12)).fun


def adaptive_runs(tiers):
    """Two fixed Wolf groups and Wolf creating and merging groups (002 §5.2) on the same
    stream: 6 user spaces of warm-up, then WA over 3 more."""
    base = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=2, dies_per_chip=1, planes=2,
                                       blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=(),
                                       policy="wolf")
    out = {}
    for name, cfg in (("fixed", base), ("adaptive", replace(base, wolf_max_groups=8))):
        d = SimDrive(cfg)
        d.precondition()
        u = d.user_bytes
        w = Workload(block_size=4096, volume_bytes=u, tiers=tiers, seed=5)
        for k in range(6):
            d.run(make_requests(replace(w, seed=50 + k), u))
        res = d.run(make_requests(replace(w, volume_bytes=3 * u, seed=59), u))
        check_map(d)
        out[name] = d, res.true_wa
    return out


def test_wolf_with_an_oracle_detector_nears_eq5_and_rides_out_a_swap():
    """002 §6's evaluation tells the detector each page's true rate.  Then Wolf's steady
    WA on 90/10 halves comes within 5 % of 002's estimate for perfectly separated groups
    (Eq. 5 with Eq. 8's shares and Eq. 3's WA, computed here; the rest is the units GC
    keeps free) and stays above the true floor (best split, greedy groups); after the
    halves swap (the oracle told too) its WA stays within 5 % of its steady value."""
    cfg = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=1, dies_per_chip=1, planes=2,
                                      blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=(),
                                      policy="wolf")
    d = SimDrive(cfg)
    d.precondition()
    u, n = d.user_bytes, d.user_bytes // 4096
    rates = np.where(np.arange(n) < n // 2, 0.9 / (n // 2), 0.1 / (n - n // 2))
    d.set_oracle(rates)
    w = Workload(block_size=4096, volume_bytes=u, hot_space=0.5, hot_share=0.9, seed=6)
    for k in range(4):
        d.run(make_requests(replace(w, seed=60 + k), u))
    steady = d.run(make_requests(replace(w, volume_bytes=2 * u, seed=69), u)).true_wa
    pba = cfg.physical_pages / cfg.user_pages
    estimate = separated_wa([0.5, 0.5], [0.1, 0.9], pba)  # 002's own: Eq. 8's split, Eq. 3's WA — 2.32
    floor = separated_floor([0.5, 0.5], [0.1, 0.9], pba, cfg.pages_per_unit)  # best split, greedy — 2.23
    assert floor < steady < 1.05 * estimate
    d.set_oracle(np.roll(rates, n // 2))
    for k in range(4):  # two user spaces in halves
        reqs = make_requests(replace(w, volume_bytes=u // 2, seed=70 + k), u)
        reqs["offset"] = (reqs["offset"] + u // 2 // 4096 * 4096) % u
        assert d.run(reqs).true_wa < 1.05 * steady
    check_map(d)
    with pytest.raises(ValueError, match="one rate per logical page"):
        d.set_oracle(rates[:-1])
    with pytest.raises(ValueError, match="finite rate"):
        d.set_oracle(-rates)
    with pytest.raises(ValueError, match="policy='wolf'"):
        SimDrive(FtlConfig(**SMALL, over_provisioning=0.3)).set_oracle(None)


def test_wolf_creates_groups_for_a_third_temperature():
    """002 §5.2: with three temperatures, a Wolf that may create groups makes a third
    (and more) and writes well under two fixed groups; neither beats the three tiers
    perfectly separated with the best split of the spare (computed here from 002's Eq. 5
    and Desnoyers' greedy) — a floor no greedy manager that only moves pages can pass."""
    out = adaptive_runs(THREE_TEMPS)
    d, wa = out["adaptive"]
    st = d._policy
    assert st.created >= 1 and st.groups >= 3
    assert wa < 0.85 * out["fixed"][1]  # 1.75 vs 2.40
    floor = separated_floor([t[0] for t in THREE_TEMPS], [t[1] for t in THREE_TEMPS], 1.25, 64)  # 1.41
    assert floor * 0.98 < wa and floor * 0.98 < out["fixed"][1]
    # every unit in use belongs to a group in use; merged slots hold nothing
    live = st.active()
    dead = np.setdiff1d(np.arange(st.G), live)
    used = st.ugrp[st.ugrp >= 0]
    assert np.isin(used, live).all()
    assert (st.group_sizes(d.cfg.pools)[dead] == 0).all() and (st.group_units(d.cfg.pools)[dead] == 0).all()
    assert st.group_units(d.cfg.pools).sum() == len(used)


def test_wolf_merges_what_it_created_on_uniform_writes():
    """No skew, nothing to create for: the groups it tries merge back (002: 'the number of
    groups would tend to oscillate') and WA stays that of two fixed groups."""
    out = adaptive_runs(None)
    d, wa = out["adaptive"]
    st = d._policy
    assert st.created >= 1  # it did try (4 groups created in this run)
    assert st.groups <= 3 and st.merged >= st.created - 1
    assert wa == pytest.approx(out["fixed"][1], rel=0.01)


def test_fdp_with_one_group_cleans_as_lrw_predicts():
    """FDP's least-recently-cleaned victims (002 §2.2) on uniform random writes are the
    LRW model's FIFO cleaner: its WA lies in the closed form's band for the 1–2 units
    per pool the GC keeps open or free; one greedy group, same drive, lies below it."""
    base = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=1, dies_per_chip=1, planes=1,
                                       blocks_per_plane=512, pages_per_block=64, page_size=4096, trace_dies=())
    n = base.units_per_pool
    lo, hi = lrw_sf(0.2 - 1 / n), lrw_sf(0.2 - 2 / n)
    was = {}
    for name, cfg in (("greedy", base), ("fdp", replace(base, policy="wolf", wolf_groups=1, wolf_fdp=True))):
        d = SimDrive(cfg)
        d.precondition()
        u = d.user_bytes
        for k in range(4):
            d.run(make_requests(Workload(block_size=4096, volume_bytes=u, seed=k), u))
        was[name] = d.run(make_requests(Workload(block_size=4096, volume_bytes=2 * u, seed=9), u)).true_wa
        check_map(d)
    assert lo * 0.99 < was["fdp"] < hi * 1.01
    assert was["greedy"] < lo * 0.99


def test_fdp_pays_for_a_hot_cold_swap_and_wolf_does_not():
    """002 §5 and §6.1: FDP (fixed group order, pages move instead of space) separates a
    stable 90/10 workload (WA under one greedy group's) but after the halves swap it
    copies far more than Wolf while the swapped pages trickle between its groups; Wolf
    re-ranks its groups and moves space, so its WA hardly moves."""
    base = FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=1, dies_per_chip=1, planes=2,
                                       blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=())
    out = {}
    for name, cfg in (("greedy", base), ("fdp", replace(base, policy="wolf", wolf_fdp=True)),
                      ("wolf", replace(base, policy="wolf"))):
        d, st = steady(cfg, warm=4)
        u = d.user_bytes
        half = u // 2 // 4096 * 4096
        w = Workload(block_size=4096, volume_bytes=u // 2, hot_space=0.5, hot_share=0.9, seed=8)
        runs = []
        for k in range(4):  # two user spaces after the swap, in halves
            reqs = make_requests(replace(w, seed=80 + k), u)
            reqs["offset"] = (reqs["offset"] + half) % u
            runs.append(d.run(reqs))
        out[name] = st.true_wa, [r.true_wa for r in runs], sum(r.gc_copies for r in runs)
        check_map(d)
    assert out["fdp"][0] < 0.97 * out["greedy"][0]  # FDP does separate hot from cold
    assert out["fdp"][1][0] > 1.2 * out["fdp"][0]  # … and the swap costs it (3.6 vs 2.65)
    assert max(out["wolf"][1]) < 1.06 * out["wolf"][0]  # Wolf: no transient to speak of
    assert out["fdp"][2] > 1.25 * out["wolf"][2]  # 1.4x over these two user spaces


@pytest.mark.parametrize("movement, fdp, most, lines", [(True, False, 0, False), (False, False, 0, False),
                                                       (True, True, 0, False), (True, False, 6, False),
                                                       (True, False, 6, True), (True, True, 0, True)])
def test_wolf_map_invariants_under_mixed_io(movement, fdp, most, lines):
    cfg = FtlConfig(**SMALL, over_provisioning=0.45 if lines else 0.3, lines=lines, policy="wolf", wolf_groups=3,
                    wolf_movement=movement, wolf_fdp=fdp, wolf_max_groups=most,
                    wolf_interval=0.0002 if most else 0.001)
    for res in mixed_runs_checked(cfg, 0.7, 10):
        assert res.true_wa >= 1.0


# ---- NVM cache, CDM -----------------------------------------------------------------------


@pytest.mark.parametrize("policy, lines", [("nvm", False), ("cdm", False), ("cdm", True)])
def test_zero_size_nvm_cache_is_the_plain_ftl_exactly(policy, lines):
    plain = FtlConfig(**SMALL, over_provisioning=0.2 if not lines else 0.4, lines=lines)
    same_runs(plain, replace(plain, policy=policy, nvm_cache_bytes=0), skewed_runs)


def test_cdm_cache_holding_every_page_leaves_gc_nothing_to_copy():
    """Every page read into the cache (its flash copy removable), then rewritten at random
    (flash copies invalid): when the cache writes back, every flash page GC meets is
    invalid or removable.  NVM-basic, same cache, copies out the stale flash copies."""
    copies = {}
    for policy in ("nvm", "cdm"):
        cfg = FtlConfig(**SMALL, over_provisioning=0.15, policy=policy, nvm_cache_bytes=0, trace_dies=())
        cfg = replace(cfg, nvm_cache_bytes=cfg.user_pages * 4096)
        d = SimDrive(cfg)
        d.precondition()
        u = d.user_bytes
        reads = requests(OP_READ, np.arange(0, u, 65536), np.minimum(65536, u - np.arange(0, u, 65536)))
        writes = make_requests(Workload(block_size=4096, volume_bytes=u // 2, seed=7), u)
        res = d.run(np.concatenate([reads, writes]))
        assert res.erases > 0  # the write-back needed space: GC ran
        copies[policy] = res.gc_copies
        check_map(d)
    assert copies["cdm"] == 0
    assert copies["nvm"] > 1000


@pytest.mark.parametrize("policy, lines", [("nvm", False), ("cdm", False), ("cdm", True)])
def test_nvm_cache_map_invariants_under_mixed_io(policy, lines):
    cfg = FtlConfig(**SMALL, over_provisioning=0.3 if lines else 0.15, lines=lines, policy=policy,
                    nvm_cache_bytes=300 * 4096)
    for res in mixed_runs_checked(cfg, 0.6, 20):  # each run ends with the cache written back
        if policy == "nvm":
            assert res.policy_counts["gc_removed"] == 0 and res.policy_counts["early_invalid"] == 0


def test_cdm_copies_out_less_than_nvm_basic():
    """004's direction: same cache, same mixed read/write stream, fewer GC copy-outs."""
    base = FtlConfig.with_spare_factor(0.13, **{**SMALL, "blocks_per_plane": 128}, trace_dies=(), policy="nvm",
                                       nvm_cache_bytes=1000 * 4096)
    res = {}
    for policy in ("nvm", "cdm"):
        d = SimDrive(replace(base, policy=policy))
        d.precondition()
        w = Workload(write_fraction=0.5, block_size=4096, volume_bytes=3 * d.user_bytes, hot_space=0.2,
                     hot_share=0.8, seed=2)
        res[policy] = d.run(make_requests(w, d.user_bytes))
    assert res["cdm"].gc_copies < 0.8 * res["nvm"].gc_copies
    assert res["cdm"].policy_counts["gc_removed"] > 0
    assert res["cdm"].host_bytes_written == res["nvm"].host_bytes_written


def test_tiers_send_each_share_of_the_writes_to_its_space():
    """Workload.tiers: requests land in each tier's slice of the space in its share
    (binomial bounds, 5 σ), uniformly inside it; bad tiers are refused."""
    tiers = ((0.5, 0.1), (0.3, 0.2), (0.2, 0.7))
    u, n = 4096 * 10_000, 200_000
    reqs = make_requests(Workload(block_size=4096, volume_bytes=4096 * n, tiers=tiers, seed=3), u)
    page = reqs["offset"] // 4096
    edges = [0, 5000, 8000, 10_000]
    for k, (_, share) in enumerate(tiers):
        inside = page[(page >= edges[k]) & (page < edges[k + 1])]
        assert abs(len(inside) - share * n) < 5 * np.sqrt(n * share * (1 - share))
        halves = np.histogram(inside, bins=2, range=(edges[k], edges[k + 1]))[0]
        assert abs(halves[0] - halves[1]) < 5 * np.sqrt(len(inside))
    for bad in (((1.0, 1.0),), ((0.5, 0.5), (0.4, 0.5)), ((0.5, 0.6), (0.5, 0.6)), ((0.5, 1.1), (0.5, -0.1))):
        with pytest.raises(ValueError, match="tiers must be"):
            Workload(tiers=bad)
    with pytest.raises(ValueError, match="one or the other"):
        Workload(tiers=tiers, hot_space=0.2, hot_share=0.8)
    with pytest.raises(ValueError, match="random=True"):
        Workload(tiers=tiers, random=False)


def test_mock_ftl_names_map_to_the_policies():
    from charz.archive import ftl_label
    from charz.sim import ftl_options
    opts = ftl_options("fdp", 0)
    cfg = FtlConfig(**SMALL, over_provisioning=0.3, **opts)
    assert cfg.policy == "wolf" and cfg.wolf_fdp
    assert ftl_label({**opts, "over_provisioning": 0.3}).startswith("FDP as 002")
    assert ftl_label({"policy": "wolf", "over_provisioning": 0.3}).startswith("Wolf, 2 groups")


def test_policy_options_are_checked():
    with pytest.raises(ValueError, match="wolf_fdp is a variant"):
        FtlConfig(**SMALL, wolf_fdp=True)
    for bad in (dict(policy="wolf", wolf_fdp=True, wolf_max_groups=4), dict(wolf_max_groups=4),
                dict(policy="wolf", wolf_groups=5, wolf_max_groups=4), dict(policy="wolf", wolf_max_groups=17)):
        with pytest.raises(ValueError, match="wolf_max_groups lets Wolf"):
            FtlConfig(**{**SMALL, "over_provisioning": 0.5, **bad})
    with pytest.raises(ValueError, match="policy must be one of"):
        FtlConfig(**SMALL, policy="lru")
    with pytest.raises(ValueError, match="without the FIFO write_cache"):
        FtlConfig(**SMALL, policy="cdm", write_cache=True)
    with pytest.raises(ValueError, match="multiple of the page"):
        FtlConfig(**SMALL, policy="cdm", nvm_cache_bytes=1000)
    with pytest.raises(ValueError, match="wolf cleans greedily"):
        FtlConfig(**SMALL, policy="wolf", gc="cost-benefit")
    with pytest.raises(ValueError, match="at least 10 units"):  # 4 groups: 2 frontiers each, reserve 2
        FtlConfig(**SMALL, over_provisioning=0.1, policy="wolf", wolf_groups=4)

"""The simulated FTL (charz.sim.ftl): invariants, closed forms, policies.

Truth from outside the simulator: the map invariants are checked with numpy against
the request stream itself; steady-state WA of uniform random overwrites under greedy
GC against Dayan et al.'s closed form (002 Eq. 3), solved here with scipy; 000 Table
4's partition sizes from its Eq. 15.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

from charz.sim.ftl import (
    KIND_ERASE,
    KIND_PROGRAM,
    KIND_READ,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    FtlConfig,
    SimDrive,
    Workload,
    make_requests,
    op_percent_user_bytes,
    requests,
    run_subtests,
    table3,
    user_bytes_for_op_percent,
)

pytestmark = pytest.mark.unit

SMALL = dict(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=64, pages_per_block=32,
             page_size=4096)


def dayan_wa(spare_factor: float) -> float:
    """002 Eq. 3: LBA/PBA = (δ − 1)/ln δ with LBA/PBA = 1 − S_f; WA = 1/(1 − δ)."""
    delta = brentq(lambda d: (d - 1.0) / math.log(d) - (1.0 - spare_factor), 1e-9, 1.0 - 1e-12)
    return 1.0 / (1.0 - delta)


def check_map(drive: SimDrive) -> None:
    """Every mapped logical page points at exactly one physical page that points back,
    and the per-unit valid counts are what the reverse map says."""
    l2p, p2l = np.asarray(drive.l2p), np.asarray(drive.p2l)
    mapped = np.flatnonzero(l2p >= 0)
    assert np.array_equal(p2l[l2p[mapped]], mapped)
    live = np.flatnonzero(p2l >= 0)
    assert len(live) == len(mapped)  # no physical page holds a stale second copy
    assert np.array_equal(np.sort(p2l[live]), mapped)
    counts = np.bincount(live // drive.pages_per_unit, minlength=len(drive.valid_per_unit))
    assert np.array_equal(counts, drive.valid_per_unit)


def expected_mapped(reqs: np.ndarray, n_pages: int, page_size: int, before: np.ndarray | None = None) -> np.ndarray:
    """Which logical pages hold data after ``reqs``, from the requests alone: a write
    maps every page it touches, a trim unmaps the pages it covers whole."""
    m = np.zeros(n_pages, bool) if before is None else before.copy()
    for op, off, ln in reqs[["op", "offset", "length"]].tolist():
        if op == OP_WRITE:
            m[off // page_size:(off + ln - 1) // page_size + 1] = True
        elif op == OP_TRIM:
            m[-(-off // page_size):(off + ln) // page_size] = False
    return m


def mixed_requests(user_bytes: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ops = rng.choice([OP_WRITE, OP_WRITE, OP_WRITE, OP_READ, OP_TRIM], size=n).astype(np.uint8)
    lengths = rng.choice([512, 4096, 8192, 12288, 32768, 65536], size=n)
    offsets = rng.integers(0, (user_bytes - lengths) // 512 + 1) * 512
    return requests(ops, offsets, lengths)


@pytest.mark.parametrize("gc", ["greedy", "cost-benefit"])
@pytest.mark.parametrize("multi_plane", [True, False])
@pytest.mark.parametrize("write_cache", [False, True])
@pytest.mark.parametrize("lines", [False, True])
def test_map_invariants_under_mixed_unaligned_io(gc, multi_plane, write_cache, lines):
    cfg = FtlConfig(**SMALL, over_provisioning=0.15, gc=gc, multi_plane=multi_plane, write_cache=write_cache,
                    write_cache_bytes=64 * 4096, seed=3, lines=lines)
    drive = SimDrive(cfg)
    drive.precondition(0.6)
    want = expected_mapped(requests(OP_WRITE, 0, int(drive.user_bytes * 0.6) // 512 * 512), cfg.user_pages, 4096)
    for k in range(3):  # several runs: state must carry over between them
        reqs = mixed_requests(drive.user_bytes, 6000, seed=k)
        res = drive.run(reqs)
        want = expected_mapped(reqs, cfg.user_pages, 4096, want)
        check_map(drive)
        assert np.array_equal(np.asarray(drive.l2p) >= 0, want)
        if not write_cache:  # a cache may merge rewrites: WA < 1 is then possible (and real)
            assert res.true_wa >= 1.0
        assert res.gc_copies > 0 or k == 0
        # every programmed page is under some die's program pulse
        assert res.die_pages_programmed.sum() == res.flash_pages_programmed
        assert (res.die_program_ops * cfg.pages_per_program >= res.die_pages_programmed).all()


def test_sequential_overwrite_has_wa_one():
    cfg = FtlConfig(**SMALL, over_provisioning=0.1)
    drive = SimDrive(cfg)
    drive.precondition()
    for seed in (1, 2, 3):  # three full sequential passes over a full drive
        res = drive.run(make_requests(Workload(random=False, block_size=65536, volume_bytes=drive.user_bytes,
                                               seed=seed), drive.user_bytes))
        assert res.gc_copies == 0
        assert res.true_wa == pytest.approx(1.0, abs=0.01)
    check_map(drive)


@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize("spare_factor", [0.07, 0.28])
def test_greedy_uniform_random_matches_dayan_closed_form(spare_factor, lines):
    """000 §4.3 / issue 13 item 5: steady state, uniform random page overwrites, greedy;
    per-die garbage collection and drive-wide lines alike."""
    formula = dayan_wa(spare_factor)
    assert formula == pytest.approx({0.07: 7.32, 0.28: 1.99}[spare_factor], abs=0.005)  # the figures
    cfg = FtlConfig.with_spare_factor(spare_factor, channels=1, chips_per_channel=1, dies_per_chip=2, planes=2,
                                      blocks_per_plane=1024, pages_per_block=128, page_size=4096, gc="greedy",
                                      trace_dies=(), lines=lines)
    assert cfg.spare_factor == pytest.approx(spare_factor, abs=1e-4)
    assert cfg.over_provisioning == pytest.approx(spare_factor / (1 - spare_factor))
    drive = SimDrive(cfg)
    drive.precondition()
    w = Workload(block_size=4096, volume_bytes=2 * drive.user_bytes, seed=11)
    drive.run(make_requests(w, drive.user_bytes))  # two user spaces of warm-up
    res = drive.run(make_requests(replace(w, seed=12), drive.user_bytes))
    assert res.true_wa == pytest.approx(dayan_wa(drive.spare_factor), rel=0.05)
    assert res.true_wa == pytest.approx(res.flash_pages_programmed / res.host_pages_written)


def test_cost_benefit_beats_or_equals_greedy_on_hot_cold():
    was = {}
    for gc in ("greedy", "cost-benefit"):
        cfg = FtlConfig.with_spare_factor(0.1, **{**SMALL, "blocks_per_plane": 256}, gc=gc, trace_dies=())
        drive = SimDrive(cfg)
        drive.precondition()
        w = Workload(block_size=4096, volume_bytes=3 * drive.user_bytes, hot_space=0.1, hot_share=0.9, seed=5)
        drive.run(make_requests(w, drive.user_bytes))
        was[gc] = drive.run(make_requests(replace(w, seed=6), drive.user_bytes)).true_wa
    assert was["cost-benefit"] <= was["greedy"]


def test_trim_lowers_wa():
    """Trimming a third of a full drive hands that space to the FTL as spare."""
    was = []
    for trim in (False, True):
        cfg = FtlConfig.with_spare_factor(0.07, **{**SMALL, "blocks_per_plane": 256}, trace_dies=())
        drive = SimDrive(cfg)
        drive.precondition()
        third = drive.user_bytes // 3 // 4096 * 4096
        if trim:
            res = drive.run(requests(OP_TRIM, drive.user_bytes - third, third))
            assert res.trimmed_pages == third // 4096 and res.flash_pages_programmed == 0
        w = Workload(block_size=4096, volume_bytes=2 * drive.user_bytes, seed=8)
        reqs = make_requests(w, drive.user_bytes - third)  # never touches the last third
        drive.run(reqs[: len(reqs) // 2])
        was.append(drive.run(reqs[len(reqs) // 2:]).true_wa)
        check_map(drive)
    assert was[1] < 0.8 * was[0]


def test_subpage_writes_read_modify_write_and_cache_coalesces():
    base = FtlConfig(**{**SMALL, "page_size": 16384}, over_provisioning=0.25, trace_dies=())
    seq4k = Workload(random=False, block_size=4096, volume_bytes=1 << 22, seed=1)
    plain = SimDrive(base)
    plain.precondition()
    res = plain.run(make_requests(seq4k, plain.user_bytes))
    assert res.rmw_reads == res.host_pages_written  # each 4 KiB write reads its 16 KiB page first
    assert res.true_wa >= 4.0
    cached = SimDrive(replace(base, write_cache=True, write_cache_bytes=1 << 20))
    cached.precondition()
    res = cached.run(make_requests(seq4k, cached.user_bytes))
    assert res.coalesced_pages == 3 * res.host_pages_written // 4  # four 4 KiB writes fill one page
    assert res.rmw_reads == res.host_pages_written // 4  # only the first, partial, write reads
    assert res.true_wa == pytest.approx(1.0, abs=0.02)


def test_rb_trace_pulses_and_eq7_identity():
    """One pulse per program op on the traced die; widths inside 000 Table 2's window;
    die 0's pulses × dies × M_p account for the drive's pages (the basis of Eq. 7)."""
    for cell, (a, b) in (("MLC", (200, 2200)), ("SLC", (200, 500))):
        cfg = FtlConfig(**SMALL, over_provisioning=0.15, cell=cell, multi_plane=True, trace_dies=(0, 1))
        drive = SimDrive(cfg)
        drive.precondition()
        res = drive.run(make_requests(Workload(block_size=4096, volume_bytes=2 * drive.user_bytes, seed=2),
                                      drive.user_bytes))
        for die in (0, 1):
            tr = res.rb_trace(die)
            prog = tr.kind == KIND_PROGRAM
            assert prog.sum() == res.die_program_ops[die]
            assert (tr.kind == KIND_READ).sum() == res.die_reads[die]
            assert (tr.kind == KIND_ERASE).sum() == res.die_erases[die] > 0
            assert ((tr.width_us[prog] > a) & (tr.width_us[prog] < b)).all()
            assert (tr.width_us[tr.kind == KIND_READ] < 100).all()
            assert (tr.width_us[tr.kind == KIND_ERASE] > 1000).all()
            assert (np.diff(tr.start_us) > tr.width_us[:-1]).all()  # one die: pulses never overlap
        eq7 = cfg.dies * res.die_program_ops[0] * cfg.pages_per_program
        assert eq7 == pytest.approx(res.flash_pages_programmed, rel=0.03)
        with pytest.raises(ValueError, match="not traced"):
            res.rb_trace(2)


def test_subtests_show_initial_data_effect():
    """000 Fig. 10: sub-test 1 carries the initial data the drive writes, so its WA is
    the highest; over later sub-tests WA climbs to a plateau as free space fills."""
    cfg = FtlConfig.with_spare_factor(0.1, **SMALL, trace_dies=())
    drive = SimDrive(cfg)
    vol = drive.user_bytes // 2 // 4096 * 4096
    subs = run_subtests(drive, Workload(block_size=4096, volume_bytes=vol, seed=20), 6, initial_fill=1.0)
    was = [r.true_wa for r in subs]
    assert subs[0].initial_bytes_written == drive.user_bytes
    assert all(r.host_bytes_written == vol for r in subs)  # WA is over the sub-test's volume alone
    assert was[0] > 1.1 * max(was[1:])
    # a half-filled drive: sub-test 2 has free space to spend, later ones do not
    drive = SimDrive(cfg)
    was = [r.true_wa for r in run_subtests(drive, Workload(block_size=4096, volume_bytes=vol, seed=20), 8,
                                           initial_fill=0.5)]
    assert was[1] < was[0]
    assert all(b > a for a, b in zip(was[1:5], was[2:6]))
    assert was[-1] > 2 * was[1]


def test_op_sweep_by_partition_follows_table4():
    """000 Table 4 from Eq. 15 (OP 2.8 GB fixed), then on the mock: a smaller partition,
    a larger OP%, a lower WA."""
    for pct, user_gb in ((8, 32.2), (10, 25.2), (12, 20.5), (15, 15.9)):
        assert op_percent_user_bytes(2.8e9, pct) / 1e9 == pytest.approx(user_gb, abs=0.05)
    was = []
    for pct in (None, 10, 15):
        drive = SimDrive(FtlConfig(**{**SMALL, "blocks_per_plane": 128}, over_provisioning=0.08, trace_dies=()))
        if pct:
            drive.set_user_space(user_bytes_for_op_percent(drive, pct))
        drive.precondition()
        w = Workload(block_size=4096, volume_bytes=3 * drive.user_bytes, seed=4)
        reqs = make_requests(w, drive.user_bytes)
        drive.run(reqs[: len(reqs) // 2])
        was.append(drive.run(reqs[len(reqs) // 2:]).true_wa)
    assert was[0] > was[1] > was[2]


def test_bad_input_is_refused_and_changes_nothing():
    drive = SimDrive(FtlConfig(**SMALL, over_provisioning=0.15))
    drive.precondition(0.5)
    before = np.asarray(drive.l2p).copy()
    for reqs, msg in ((requests(OP_WRITE, drive.user_bytes - 4096, 8192), "outside the user space"),
                      (requests(OP_WRITE, 0, 0), "length must be positive"),
                      (requests(7, 0, 4096), "op must be"),
                      (np.zeros(3), "structured array")):
        with pytest.raises((ValueError, TypeError), match=msg):
            drive.run(reqs)
    assert np.array_equal(before, drive.l2p)
    with pytest.raises(ValueError, match="spare pages per GC pool"):
        FtlConfig(**SMALL, over_provisioning=0.01)
    with pytest.raises(ValueError, match="gc must be"):
        FtlConfig(gc="lru")
    with pytest.raises(ValueError, match="multiple of the page"):
        drive.set_user_space(1000)


def test_same_seed_same_run():
    def one():
        d = SimDrive(FtlConfig(**SMALL, over_provisioning=0.15, seed=9))
        d.precondition()
        r = d.run(make_requests(Workload(block_size=4096, volume_bytes=d.user_bytes, seed=3), d.user_bytes))
        return r.rb_trace(0), r.flash_pages_programmed
    (a, na), (b, nb) = one(), one()
    assert na == nb and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_one_die_stands_for_all_over_table3_samples():
    """Eq. 7 counts one die and multiplies: over samples of 000 Table 3 on a drive with
    SSD-v's 32 KB write cache, die 0's pulses × dies × M_p stay within RB-Explorer's
    bounds of the true page count (< 1 % write-only, < 3 % mixed).  The volume matters:
    which die a random page lands on is a coin toss, ±1/√(writes per die)."""
    cfg = FtlConfig(channels=2, chips_per_channel=2, dies_per_chip=1, planes=2, blocks_per_plane=128,
                    pages_per_block=128, page_size=16384, over_provisioning=0.07, write_cache=True,
                    write_cache_bytes=32768)
    picks = {"512B-SQ-100%-W-4KiB-no-align", "32K-SQ-100%-W-4KiB-no-align", "4K-RD-100%-W-4KiB-align",
             "8K-RD-50%-W-4KiB-no-align", "32K-SQ-50%-W-4KiB-no-align"}
    workloads = [w for w in table3(volume_bytes=1 << 30) if w.name in picks]
    assert len(table3(1 << 20)) == 40 and len(workloads) == len(picks)
    for w in workloads:
        drive = SimDrive(cfg)
        drive.precondition()
        res = drive.run(make_requests(w, drive.user_bytes))
        pulses = int((res.rb_trace(0).kind == KIND_PROGRAM).sum())
        eq7 = cfg.dies * pulses * cfg.pages_per_program
        assert eq7 == pytest.approx(res.flash_pages_programmed, rel=0.01 if w.write_fraction == 1 else 0.03), w.name


@pytest.mark.parametrize("multi_plane", [True, False])
def test_lines_give_every_die_the_same_programs_and_erases(multi_plane):
    """000 §3.2.3's premise, "the operation in one die is the same as the ones in other
    dies", holds by construction when every erase unit is a line over all dies (FEMU's
    and pblk's lines): each write frontier walks the dies in turn a program at a time,
    so within a run a die's program pulses differ from another's by at most one per
    frontier (host, GC), and a collected line erases a block on every die.  Per-die
    garbage collection does not: 000's unaligned sequential benchmark, with its
    read-modify-write chains, sets the dies apart by far more than that."""
    geo = dict(channels=4, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=64,
               pages_per_block=128, page_size=4096, over_provisioning=2 / 14, multi_plane=multi_plane)
    w = next(w for w in table3(128 << 20) if w.name == "4K-SQ-50%-W-4KiB-no-align")
    spread = {}
    for lines in (False, True):
        cfg = FtlConfig(**geo, lines=lines, trace_dies=())
        drive = SimDrive(cfg)
        drive.precondition()
        res = drive.run(make_requests(w, drive.user_bytes))
        assert res.gc_copies > 0
        spread[lines] = int(res.die_program_ops.max() - res.die_program_ops.min())
        if lines:
            assert spread[lines] <= 2, res.die_program_ops
            assert (res.die_erases == res.die_erases[0]).all()
            eq7 = cfg.dies * res.die_program_ops[0] * cfg.pages_per_program
            assert abs(eq7 - res.flash_pages_programmed) <= 2 * cfg.dies * cfg.pages_per_program
    assert spread[False] > 50 * spread[True] + 100, spread


def test_ssd_v_preset_is_table2():
    cfg = FtlConfig.ssd_v()
    assert (cfg.channels, cfg.chips_per_channel, cfg.dies_per_chip, cfg.planes) == (4, 1, 1, 2)
    assert cfg.dies == 4 and cfg.pages_per_program == 1 and cfg.page_size == 4096
    assert cfg.physical_pages * cfg.page_size == 16 << 30
    assert cfg.user_pages / cfg.physical_pages == pytest.approx(14.0 / 16.0, abs=1e-6)
    assert (cfg.gc, cfg.write_cache, cfg.write_cache_bytes) == ("cost-benefit", True, 32 * 1024)
    assert FtlConfig.ssd_v(blocks_per_plane=256).physical_pages == cfg.physical_pages // 16

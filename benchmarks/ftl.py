"""Simulated FTL speed: page writes per second of charz.sim.ftl beside plain numpy.

A drive of the mock bench's shape (2 channels × 2 chips × 1 die × 2 planes, multi-plane,
16 KiB pages, OP 7 % of user space) is filled, driven into steady state with uniform
random page-sized overwrites (greedy GC, WA ≈ 8), then timed over rounds of the same
workload.  Rows:

1. the FTL with die 0's R/B trace recorded, per-die GC and GC on lines over every die
   (what the mock bench runs),
2. the FTL without a trace, greedy and cost-benefit, and the papers' policies: Wolf's
   block manager (002 §5) and an NVM cache with CDM (004 §III),
3. plain numpy, the same count of page writes: the map update alone (old = l2p[lpn];
   p2l[old] = -1; l2p[lpn] = new; p2l[new] = lpn) as a Python loop over numpy arrays
   (what the FTL would cost uncompiled, before any GC) and as one vectorised scatter
   (a memory-speed floor no FTL can beat).

"Page writes" are flash page programs (host pages plus GC copies): the work the FTL
does; host pages/s are shown beside.  Rates are per CPU second of this thread (the
machine is shared; wall time is printed too), median over rounds.

Goal: ≥ 5 M flash page writes/s on one core.

Usage::

    python benchmarks/ftl.py [--rounds 5] [--blocks 1024] [--pages 256]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

import numpy as np

from charz.sim.ftl import FtlConfig, SimDrive, Workload, make_requests


def timed(fn):
    c0, w0 = time.thread_time(), time.perf_counter()
    out = fn()
    return out, time.thread_time() - c0, time.perf_counter() - w0


def ftl_rows(cfg: FtlConfig, rounds: int, volume_frac: float) -> tuple[list, list, list, int]:
    drive = SimDrive(cfg)
    drive.precondition()
    ps = cfg.page_size
    warm = Workload(block_size=ps, align_bytes=ps, volume_bytes=drive.user_bytes, seed=100)
    drive.run(make_requests(warm, drive.user_bytes))
    cpu, wall, wa = [], [], []
    flash = host = 0
    for k in range(rounds):
        reqs = make_requests(replace(warm, seed=k, volume_bytes=int(drive.user_bytes * volume_frac) // ps * ps),
                             drive.user_bytes)
        res, c, w = timed(lambda: drive.run(reqs))
        cpu.append(res.flash_pages_programmed / c)
        wall.append(res.flash_pages_programmed / w)
        wa.append(res.true_wa)
        flash, host = res.flash_pages_programmed, res.host_pages_written
    return cpu, wall, wa, flash, host


def numpy_loop(n_user: int, n_phys: int, n: int, seed: int = 0) -> float:
    """Per-page map update as a Python loop over numpy arrays; returns CPU s per page."""
    rng = np.random.default_rng(seed)
    l2p = np.arange(n_user, dtype=np.int32)
    p2l = np.full(n_phys, -1, dtype=np.int32)
    p2l[:n_user] = l2p
    lpns = rng.integers(0, n_user, n)
    nxt = n_user

    def loop():
        nonlocal nxt
        for lpn in lpns:
            old = l2p[lpn]
            p2l[old] = -1
            new = nxt % n_phys
            nxt += 1
            l2p[lpn] = new
            p2l[new] = lpn

    _, c, _ = timed(loop)
    return c / n


def numpy_scatter(n_user: int, n_phys: int, n: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    l2p = np.arange(n_user, dtype=np.int32)
    p2l = np.full(n_phys, -1, dtype=np.int32)
    lpns = rng.integers(0, n_user, n)
    new = (np.arange(n) + n_user) % n_phys

    def scatter():
        old = l2p[lpns]
        p2l[old] = -1
        l2p[lpns] = new
        p2l[new] = lpns

    _, c, _ = timed(scatter)
    return c / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--blocks", type=int, default=1024, help="blocks per plane")
    ap.add_argument("--pages", type=int, default=256, help="pages per block")
    ap.add_argument("--volume", type=float, default=0.5, help="host writes per round, fraction of user space")
    a = ap.parse_args()
    base = FtlConfig(blocks_per_plane=a.blocks, pages_per_block=a.pages, over_provisioning=0.07,
                     trace_dies=(0,))
    print(f"{base.dies} dies × {base.planes} planes (multi-plane), {a.blocks} blocks × {a.pages} pages of "
          f"{base.page_size // 1024} KiB = {base.physical_pages * base.page_size / 2**30:.1f} GiB; OP {0.07:.0%} "
          f"of user (S_f {base.spare_factor:.4f})")
    print(f"uniform random {base.page_size // 1024} KiB overwrites in steady state, {a.rounds} rounds of "
          f"{a.volume:g} × user space; rates per CPU second, median (wall in brackets)")
    print(f"  {'row':<34} {'M page writes/s':>16} {'wall':>8} {'WA':>6}  host pages/s, ratio")
    rows = {}
    for label, cfg in [("FTL greedy, die-0 R/B trace", base),
                       ("FTL greedy, lines, die-0 trace", replace(base, lines=True)),
                       ("FTL greedy, no trace", replace(base, trace_dies=())),
                       ("FTL cost-benefit, no trace", replace(base, trace_dies=(), gc="cost-benefit")),
                       ("Wolf (002), 2 groups, no trace", replace(base, trace_dies=(), policy="wolf")),
                       ("CDM (004), 64 MiB NVM, no trace",
                        replace(base, trace_dies=(), policy="cdm", nvm_cache_bytes=64 << 20))]:
        cpu, wall, wa, flash, host = ftl_rows(cfg, a.rounds, a.volume)
        rows[label] = statistics.median(cpu)
        print(f"  {label:<34} {statistics.median(cpu) / 1e6:16.2f} {statistics.median(wall) / 1e6:8.2f} "
              f"{statistics.median(wa):6.2f}  {host / flash * statistics.median(cpu) / 1e6:.2f} M")
    n_user, n_phys = base.user_pages, base.physical_pages
    n_loop = 200_000
    loop_rate = 1.0 / statistics.median(numpy_loop(n_user, n_phys, n_loop, k) for k in range(3))
    scat_rate = 1.0 / statistics.median(numpy_scatter(n_user, n_phys, flash, k) for k in range(3))
    ref = rows["FTL greedy, die-0 R/B trace"]
    print(f"  {'numpy Python loop, map update only':<34} {loop_rate / 1e6:16.2f} {'':>8} {'':>6}  "
          f"FTL/loop = {ref / loop_rate:.1f}x   ({n_loop} pages, scaled)")
    print(f"  {'numpy vectorised scatter (floor)':<34} {scat_rate / 1e6:16.2f} {'':>8} {'':>6}  "
          f"FTL/scatter = {ref / scat_rate:.2f}")
    ok = ref >= 5e6
    print(f"goal ≥ 5 M page writes/s with the trace: {'met' if ok else 'NOT met'} ({ref / 1e6:.2f} M/s)")


if __name__ == "__main__":
    main()

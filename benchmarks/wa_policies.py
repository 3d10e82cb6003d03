"""The papers' FTL policies on the simulated drive: do their headline results hold?

Three experiments (issue 14 item 3), each over several seeds, printed as the median
with the seeds' range (min–max) so a margin can be read against run-to-run spread:

1. **004 §II** (Lee et al., CDM): WA of 4 KiB random vs sequential writes after a
   sequential warm-up, in 004 Table 2's shape scaled down — 8 dies, 4 KiB pages, 64
   pages per block, OP 15 %, SLC — over a footprint of 20/64 of the space (004: 20 GB
   on a 64 GB drive) and over all of it; 10 passes of the footprint each (004: the
   workload run 10 times).  004: random 2.84, sequential 1.00.  Beside: Dayan's closed
   form (002 Eq. 3) for uniform writes over the footprint, the rest static.
2. **004 §IV**: GC copy-outs with an NVM cache, NVM-basic vs CDM, same cache, same
   request stream (4 KiB random, 80 % of requests to 20 % of the space), at three cache
   sizes and two read shares (52 % reads as 004's OLTP trace; 10 %).  004: 51.4 % fewer
   copy-outs on average over its JEDEC and OLTP traces.
3. **002 §5–6** (Dayan et al., Wolf): two equal halves of the space taking 90 % and 10 %
   of the updates (002 §6.1), S_f = 0.2 (LBA/PBA 0.8): steady-state WA of one greedy
   group, Wolf without movement operations (greedy across its groups), FDP as 002 §5
   describes it (the groups keep their order and are presumed as hot as their rank, so
   pages move between groups instead of space; least-recently-cleaned victims — a
   reconstruction from 002's text, not Stoica & Ailamaki's code), and Wolf; then the
   halves' frequencies swap: the extra GC copies over the same run without a swap
   (÷ PBA, 002's measure: Wolf 0.7 %, FDP 152 %), the peak WA in windows of a quarter
   user space, and the writes until WA is back within 3 % of the no-swap run's.
   Beside: Eq. 5 with Eq. 8's shares for perfectly separated groups.
4. **002 §5.2**, groups created and merged: three temperatures (5 % of the updates to
   80 % of the space, 25 % to 15 %, 70 % to 5 %), then uniform writes: two fixed
   Wolf groups vs Wolf free to create and merge up to 8; beside, Eq. 5 for the tiers
   perfectly separated into three groups and into the best two.
5. **002 §6.1, Fig. 8**: five equal groups with update frequencies doubling from one to
   the next (3.2 … 51.6 %); each pair's frequencies swapped in turn: the extra GC
   copies over the no-swap run (÷ PBA) for FDP and Wolf, both with five fixed groups.
   002: Wolf always below FDP, up to 2.2× less, more so the further apart the pair.

Usage::

    python benchmarks/wa_policies.py [--seeds 5] [--only 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import replace

import numpy as np

from charz.analysis._wa_models import dayan_wa_sf
from charz.sim.ftl import FtlConfig, SimDrive, Workload, make_requests
from charz.sim.ftl._wolf import op_shares


def dayan_wa(lba_over_pba: float) -> float:
    """002 Eq. 3 at LBA/PBA (charz's closed form takes S_f = 1 − LBA/PBA)."""
    return dayan_wa_sf(1.0 - lba_over_pba)


def separated(s, p, pba: float) -> float:
    """002 Eq. 5 with Eq. 8's shares (no coldest-group rule) for perfectly separated groups."""
    op = op_shares(np.array(s), np.array(p), pba, cold_rule=False)
    return sum(pi * dayan_wa(si / (si + oi)) for si, pi, oi in zip(s, p, op))


def spread(xs, fmt="{:.2f}") -> str:
    xs = list(xs)
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"


# ---- 1. random vs sequential (004 §II) ----------------------------------------------------

def cdm_drive(**kw) -> FtlConfig:
    """004 Table 2 scaled down: 8 chips, 4 KiB pages, 64-page blocks, OP 15 %, SLC."""
    base = dict(channels=8, chips_per_channel=1, dies_per_chip=1, planes=1, blocks_per_plane=512,
                pages_per_block=64, page_size=4096, over_provisioning=0.15, cell="SLC", multi_plane=False,
                trace_dies=())
    return FtlConfig(**{**base, **kw})


def rand_vs_seq(seeds) -> None:
    cfg = cdm_drive()
    print(f"1. 004 §II: 4 KiB writes after a sequential fill; {cfg.dies} dies, 64 pages/block,\n"
          f"   OP 15 %, {cfg.physical_pages * 4096 / 2**20:.0f} MiB; 10 passes of the footprint, WA over "
          f"all;\n   median (range), {len(seeds)} seeds")
    print(f"   {'footprint':<22}{'random':>18}{'sequential':>18}{'closed form':>13}")
    for label, frac in (("20/64 (004's 20 GB)", 20 / 64), ("all of the space", 1.0)):
        was = {True: [], False: []}
        for seed in seeds:
            for rnd in (True, False):
                d = SimDrive(cfg)
                d.precondition()
                foot = int(d.user_bytes * frac) // 4096 * 4096
                w = Workload(random=rnd, block_size=4096, volume_bytes=10 * foot, seed=seed)
                res = d.run(make_requests(w, foot))
                was[rnd].append(res.true_wa)
        u, t = cfg.user_pages, cfg.physical_pages
        closed = dayan_wa(frac * u / (t - (1 - frac) * u))
        print(f"   {label:<22}{spread(was[True]):>18}{spread(was[False]):>18}{closed:>13.2f}")
    print("   004: random 2.84, sequential 1.00 (their SSDsim, 64 GB)\n")


# ---- 2. CDM vs NVM-basic (004 §IV) --------------------------------------------------------

def cdm_copies(seeds) -> None:
    cfg = cdm_drive()
    u_pages = cfg.user_pages
    print("2. 004 §IV: GC copy-outs with an NVM cache (LRU, reads and writes),\n"
          "   NVM-basic vs CDM; 4 KiB random, 80 % of requests to 20 % of the space,")
    print(f"   3 user spaces written after a fill; cache in % of the user space;\n"
          f"   median (range) over {len(seeds)} seeds")
    print(f"   {'reads':>5} {'cache':>5} {'copies: basic':>13} {'CDM':>9} {'fewer copies':>20} "
          f"{'WA: basic→CDM':>13}")
    allred = []
    for reads in (0.52, 0.10):
        for cache_frac in (0.01, 0.04, 0.16):
            cache = int(u_pages * cache_frac) * 4096
            rows = {"nvm": [], "cdm": []}
            red = []
            for seed in seeds:
                for pol in ("nvm", "cdm"):
                    d = SimDrive(replace(cfg, policy=pol, nvm_cache_bytes=cache))
                    d.precondition()
                    w = Workload(write_fraction=1 - reads, block_size=4096, volume_bytes=3 * d.user_bytes,
                                 hot_space=0.2, hot_share=0.8, seed=seed)
                    rows[pol].append(d.run(make_requests(w, d.user_bytes)))
                red.append(1 - rows["cdm"][-1].gc_copies / rows["nvm"][-1].gc_copies)
            allred += red
            wa = (f"{statistics.median(r.true_wa for r in rows['nvm']):.2f}→"
                  f"{statistics.median(r.true_wa for r in rows['cdm']):.2f}")
            print(f"   {reads:>5.0%} {cache_frac:>5.0%} {statistics.median(r.gc_copies for r in rows['nvm']):>13,.0f} "
                  f"{statistics.median(r.gc_copies for r in rows['cdm']):>9,.0f} "
                  f"{spread([100 * x for x in red], '{:.1f}') + ' %':>20} {wa:>13}")
    print(f"   mean over the six settings: {100 * statistics.mean(allred):.1f} % fewer copy-outs\n"
          f"   (004: 51.4 % on average over its JEDEC and OLTP traces and cache sizes)\n")


# ---- 3. Wolf (002) ------------------------------------------------------------------------

def wolf_drive(**kw) -> FtlConfig:
    return FtlConfig.with_spare_factor(0.2, channels=2, chips_per_channel=2, dies_per_chip=1, planes=2,
                                       blocks_per_plane=256, pages_per_block=64, page_size=4096, trace_dies=(), **kw)


WINDOWS = 32  # of U/4 after the swap: FDP needs about 4 U to settle


def wolf_series(cfg: FtlConfig, seed: int, swap: bool, warm: int = 5, windows: int = WINDOWS, oracle=False):
    """Steady 90/10 writes over equal halves, then ``windows`` quarter-user-space windows
    (with the halves' frequencies swapped if ``swap``): steady WA, window WAs and copies.
    ``oracle``: the detector is told each page's true rate (and the new ones at the swap)."""
    d = SimDrive(cfg)
    d.precondition()
    u = d.user_bytes
    n = d.user_bytes // 4096
    hp = n // 2  # Workload's hot slots: the first half
    rates = np.where(np.arange(n) < hp, 0.9 / hp, 0.1 / (n - hp))
    if oracle:
        d.set_oracle(rates)
    w = Workload(block_size=4096, volume_bytes=u, hot_space=0.5, hot_share=0.9, seed=seed)
    for k in range(warm - 1):
        d.run(make_requests(replace(w, seed=seed * 1000 + k), u))
    steady = d.run(make_requests(replace(w, seed=seed * 1000 + warm), u)).true_wa
    half = u // 2 // 4096 * 4096
    if oracle and swap:
        d.set_oracle(np.roll(rates, half // 4096))
    was, copies = [], 0
    for k in range(windows):
        reqs = make_requests(replace(w, volume_bytes=u // 4, seed=seed * 1000 + 100 + k), u)
        if swap:  # the hot half becomes the second half
            reqs["offset"] = (reqs["offset"] + half) % u
        res = d.run(reqs)
        was.append(res.true_wa)
        copies += res.gc_copies
    return steady, np.array(was), copies


def wolf(seeds) -> None:
    base = wolf_drive()
    rows = [("one greedy group", base), ("Wolf, no movement", replace(base, policy="wolf", wolf_movement=False)),
            ("FDP, 002's account", replace(base, policy="wolf", wolf_fdp=True)),
            ("Wolf", replace(base, policy="wolf")),
            ("Wolf, §5.2 groups", replace(base, policy="wolf", wolf_max_groups=8)),
            ("FDP, oracle", replace(base, policy="wolf", wolf_fdp=True)),
            ("Wolf, oracle", replace(base, policy="wolf"))]
    lp = 1 - base.spare_factor
    s, p = np.array([0.5, 0.5]), np.array([0.1, 0.9])
    eq5 = separated(s, p, 1 / lp)
    print(f"3. 002 §6.1: equal halves taking 90 % / 10 % of 4 KiB random updates,\n"
          f"   S_f 0.2 (LBA/PBA {lp:.1f}); {base.dies} dies × {base.planes} planes, "
          f"{base.physical_pages * 4096 / 2**20:.0f} MiB, 5 user spaces (U)\n   of warm-up; after the swap "
          f"{WINDOWS} windows of U/4; median (range) over {len(seeds)} seeds")
    print(f"   {'':<36}{'after the swap':^23}".rstrip())
    print(f"   {'manager':<19}{'steady WA':>17}{'peak':>6}{'extra, % PBA':>15}  back (range)")
    for label, cfg in rows:
        st, peak, extra, back = [], [], [], []
        for seed in seeds:
            oracle = label.endswith("oracle")
            s0, was, c_swap = wolf_series(cfg, seed, True, oracle=oracle)
            _, ref, c_ref = wolf_series(cfg, seed, False, oracle=oracle)
            st.append(s0)
            peak.append(was.max())
            extra.append(100 * (c_swap - c_ref) / cfg.physical_pages)
            level = float(np.median(ref))
            off = np.flatnonzero(was > 1.03 * level)
            # never back inside the run: recorded past its end, printed as "> run"
            back.append(0.0 if len(off) == 0 else math.inf if off[-1] == len(was) - 1 else (off[-1] + 1) / 4)
        b = statistics.median(back)
        b_txt = f"> {len(was) / 4:.0f} U" if math.isinf(b) else f"{b:.2f} U"
        if not math.isinf(b) and min(back) < max(back):
            b_txt += f" ({min(back):.2f}–" + ("end)" if math.isinf(max(back)) else f"{max(back):.2f})")
        print(f"   {label:<19}{spread(st):>17}{statistics.median(peak):>6.2f}{spread(extra, '{:.0f}'):>15}  {b_txt}")
    print(f"   closed forms: uniform writes (Eq. 3) {dayan_wa(lp):.2f}; two perfectly separated groups\n"
          f"   with Eq. 8's shares (Eq. 5) {eq5:.2f}.  extra: GC copies over the no-swap run,\n"
          f"   % of PBA (002, oracle detector: Wolf 0.7 %, FDP 152 %); back: U written after\n"
          f"   the swap until every later window is within 3 % of the no-swap run's median.\n"
          f"   oracle: the detector knows each page's true rate, as 002's evaluation did.\n")


# ---- 4. groups created and merged (002 §5.2) -------------------------------------------

THREE_TEMPS = ((0.8, 0.05), (0.15, 0.25), (0.05, 0.7))


def wolf_groups(seeds) -> None:
    base = replace(wolf_drive(), policy="wolf")
    lp = 1 - base.spare_factor
    s, p = [t[0] for t in THREE_TEMPS], [t[1] for t in THREE_TEMPS]
    three = separated(s, p, 1 / lp)
    two = min(separated([sum(s[:k]), sum(s[k:])], [sum(p[:k]), sum(p[k:])], 1 / lp) for k in (1, 2))
    print("4. 002 §5.2: groups created and merged; Wolf with 2 fixed groups vs free to\n"
          "   create and merge up to 8; same drive; 6 user spaces (U) of warm-up, WA over\n"
          f"   the next 3; median (range) over {len(seeds)} seeds")
    print(f"   {'workload':<31}{'2 groups':>17}{'§5.2':>17}{'groups':>8}")
    for label, tiers in (("3 temperatures (80/5, 15/25,", THREE_TEMPS), ("uniform", None)):
        was = {False: [], True: []}
        ng = []
        for seed in seeds:
            for adapt in (False, True):
                d = SimDrive(replace(base, wolf_max_groups=8) if adapt else base)
                d.precondition()
                u = d.user_bytes
                w = Workload(block_size=4096, volume_bytes=u, tiers=tiers, seed=seed)
                for k in range(6):
                    d.run(make_requests(replace(w, seed=seed * 1000 + k), u))
                was[adapt].append(d.run(make_requests(replace(w, volume_bytes=3 * u, seed=seed * 1000 + 9), u)).true_wa)
                if adapt:
                    ng.append(d._policy.groups)
        print(f"   {label:<31}{spread(was[False]):>17}{spread(was[True]):>17}"
              f"{f'{min(ng)}–{max(ng)}' if min(ng) < max(ng) else str(ng[0]):>8}")
        if tiers:
            print("   5/70 % of space/updates)")
    print(f"   002's estimate (Eq. 5, Eq. 8's shares, Eq. 3) for the 3 temperatures\n"
          f"   perfectly separated: into 3 groups {three:.2f}, into the best 2 {two:.2f} (an estimate,\n"
          f"   not a floor: docs/ftl.md); uniform (Eq. 3) {dayan_wa(lp):.2f}.  groups: at the end.\n")


# ---- 5. every pair of five groups swapped (002 Fig. 8) ------------------------------

FIVE = tuple((0.2, f / 0.992) for f in (0.032, 0.064, 0.128, 0.256, 0.512))


def five_swap_copies(cfg: FtlConfig, seed: int, pair, windows: int = 24) -> int:
    """GC copies over ``windows`` quarter user spaces after 5 of warm-up on FIVE, with the
    frequencies of the groups in ``pair`` swapped (None: no swap)."""
    d = SimDrive(cfg)
    d.precondition()
    u = d.user_bytes
    w = Workload(block_size=4096, volume_bytes=u, tiers=FIVE, seed=seed)
    for k in range(5):
        d.run(make_requests(replace(w, seed=seed * 1000 + k), u))
    tier = u // 5 // 4096 * 4096
    copies = 0
    for k in range(windows):
        reqs = make_requests(replace(w, volume_bytes=u // 4, seed=seed * 1000 + 100 + k), u)
        if pair is not None:  # the two tiers trade places: their pages trade frequencies
            i, j = pair
            o = reqs["offset"]
            t = np.minimum(o // tier, 4)
            o = o + np.where(t == i, (j - i) * tier, 0) - np.where(t == j, (j - i) * tier, 0)
            reqs["offset"] = o
        copies += d.run(reqs).gc_copies
    return copies


def five_swaps(seeds) -> None:
    base = replace(wolf_drive(), policy="wolf", wolf_groups=5)
    rows = (("FDP", replace(base, wolf_fdp=True)), ("Wolf", base))
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    print("5. 002 Fig. 8: five equal groups, update frequencies 3.2, 6.5, 12.9, 25.8,\n"
          "   51.6 %; each pair swapped after 5 user spaces (U); extra GC copies over\n"
          f"   6 U against the no-swap run, % of PBA; median (range) over {len(seeds)} seeds")
    print(f"   {'pair':<8}{'FDP':>17}{'Wolf':>17}{'FDP ÷ Wolf':>13}")
    extra = {name: {pair: [] for pair in pairs} for name, _ in rows}
    for seed in seeds:
        for name, cfg in rows:
            ref = five_swap_copies(cfg, seed, None)
            for pair in pairs:
                extra[name][pair].append(100 * (five_swap_copies(cfg, seed, pair) - ref) / cfg.physical_pages)
    wins = apart = 0
    for pair in pairs:
        f, w = extra["FDP"][pair], extra["Wolf"][pair]
        wins += statistics.median(w) < statistics.median(f)
        apart += max(w) < min(f)
        ratio = statistics.median(f) / statistics.median(w) if statistics.median(w) > 1 else math.nan
        print(f"   {f'{pair[0]} ↔ {pair[1]}':<8}{spread(f, '{:.0f}'):>17}{spread(w, '{:.0f}'):>17}"
              f"{'—' if math.isnan(ratio) else f'{ratio:.1f}×':>13}")
    print(f"   Wolf copies less for {wins} of {len(pairs)} pairs by the median, for {apart} beyond the\n"
          "   seeds' ranges.  002: all pairs, up to 2.2× less, growing with the pair's\n"
          "   frequency ratio.  FDP ÷ Wolf: — when Wolf's is below 1 % of PBA.\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--only", default="1,2,3,4,5", help="which experiments, e.g. 3")
    a = ap.parse_args()
    seeds = list(range(1, a.seeds + 1))
    t0 = time.perf_counter()
    for k, fn in (("1", rand_vs_seq), ("2", cdm_copies), ("3", wolf), ("4", wolf_groups), ("5", five_swaps)):
        if k in a.only.split(","):
            fn(seeds)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()

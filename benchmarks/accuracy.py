"""How often charz is right, undetermined or wrong on drives it was not written around.

The drives come from the independent generator in ``tests/independent`` (written from
003's text with a real bench's nuisances; it shares nothing with ``charz.sim``).  Each
drive is rendered at noise ×0.5, ×1 and ×2, analysed the way ``charz analyze`` does,
and every field a profile states is graded against the drive's truth.

    .venv/bin/python benchmarks/accuracy.py [--drives 100] [--first-seed 0] [--noise 0.5,1,2]

Wrong answers are listed with their seed: ``python -m tests.independent --seed S --out D
--noise K`` draws the same session again.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.independent.archive import write_session  # noqa: E402
from tests.independent.contrast import walks_differ  # noqa: E402
from tests.independent.drive import random_drive  # noqa: E402
from tests.independent.score import FIELDS, RIGHT, UNDEFINED, UNDETERMINED, WRONG, grade_session  # noqa: E402


def run_one(job: tuple[int, float]) -> tuple[int, float, list]:
    seed, noise = job
    tmp = Path(tempfile.mkdtemp(prefix="charz-acc-"))
    try:
        path = write_session(random_drive(seed), tmp / "s", noise=noise)
        try:
            grades = grade_session(path)
        except Exception as exc:  # a crash is a finding, not a reason to stop counting
            return seed, noise, [("crash", type(exc).__name__ + ": " + str(exc)[:200])]
        return seed, noise, grades
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _walks_differ(seed: int) -> bool:
    return bool(walks_differ(random_drive(seed)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drives", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--noise", default="0.5,1,2")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    noises = [float(x) for x in a.noise.split(",")]
    jobs = [(s, k) for k in noises for s in range(a.first_seed, a.first_seed + a.drives)]
    table: dict[float, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    by_conf: dict[float, Counter] = defaultdict(Counter)
    wrong, crashes = [], []
    seeds = list(range(a.first_seed, a.first_seed + a.drives))
    subset: dict[float, Counter] = defaultdict(Counter)
    with ProcessPoolExecutor(a.jobs) as pool:
        differ = dict(zip(seeds, pool.map(_walks_differ, seeds)))
        for seed, noise, grades in pool.map(run_one, jobs):
            for g in grades:
                if isinstance(g, tuple):
                    crashes.append((seed, noise, g[1]))
                    continue
                table[noise][g.field][g.verdict] += 1
                if g.field == "allocation_scheme" and differ[seed]:
                    subset[noise][g.verdict] += 1
                if g.verdict in (RIGHT, WRONG):
                    by_conf[noise][(g.confidence, g.verdict)] += 1
                if g.verdict == WRONG:
                    wrong.append((seed, noise, g))
    print(f"{a.drives} drives from the independent generator (seeds {a.first_seed}–{a.first_seed + a.drives - 1})")
    for noise in noises:
        print(f"\nnoise ×{noise:g}          right  undetermined  wrong   n/a")
        for f in FIELDS:
            c = table[noise][f]
            print(f"  {f:<20} {c[RIGHT]:5d}  {c[UNDETERMINED]:12d}  {c[WRONG]:5d}  {c[UNDEFINED]:4d}")
    print("\nallocation where no other walk imitates the durations within the program-time")
    print("spread at any switch delay (the acceptance's subset; tests/independent/contrast.py):")
    for noise in noises:
        c = subset[noise]
        n = sum(c.values())
        share = f"{c[RIGHT] / n:.0%}" if n else "n/a"
        print(f"  noise ×{noise:g}: {c[RIGHT]} right / {c[UNDETERMINED]} undetermined / {c[WRONG]} wrong "
              f"of {n} ({share} right)")
    print("\nwhat a confidence meant (answers given, all fields):")
    for noise in noises:
        c = by_conf[noise]
        parts = [f"{conf} {c[(conf, RIGHT)]} right / {c[(conf, WRONG)]} wrong" for conf in ("high", "medium", "low")
                 if c[(conf, RIGHT)] or c[(conf, WRONG)]]
        print(f"  noise ×{noise:g}: " + "; ".join(parts))
    print(f"\nwrong answers: {len(wrong)}")
    for seed, noise, g in wrong:
        print(f"  seed {seed} ×{noise:g} {g.field}: said {g.said} ({g.confidence}), truth {g.truth}")
        print(f"      {g.evidence[:150]}")
    if crashes:
        print(f"\ncrashes: {len(crashes)}")
        for seed, noise, msg in crashes:
            print(f"  seed {seed} ×{noise:g}: {msg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

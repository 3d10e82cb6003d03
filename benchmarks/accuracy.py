"""How often charz is right, undetermined or wrong on drives it was not written around.

Two generator families, written apart from charz and from each other:

* ``independent`` — tests/independent: 003's text with a real bench's nuisances
  (issue 22's transfer current, read shoulders, per-page reads, interleaved dies, 2/4 µs
  sampling, bench noise, coarse 8-bit screens, each drawn at random);
* ``datasheet`` — tests/independent_datasheet: NAND datasheet currents and a
  page-at-a-time controller with cache program / cache read, drawn wider.

Each drive is rendered at every noise scale (×0.5, ×1, ×2 by default), analysed the
way ``charz analyze`` does, and every field a profile states is graded against the
drive's truth.  Printed per family: the fields (right / undetermined / wrong / n/a),
the calibration of each confidence level (answers and the fraction right), and the
share of all answers right — dies, write unit, read unit, and the allocation where the
walks' durations (or, datasheet family, rises) differ by more than their spread (each family's own
``contrast.walks_differ``).  The read unit's "at least the largest read" bound is graded
too (``read_unit_bound``: right when the true unit is no smaller), at its ``confidence_of_bound``,
and counts in the calibration like any answer.

    .venv/bin/python benchmarks/accuracy.py [--drives 40] [--first-seed 0] [--noise 0.5,1,2]
        [--family independent,datasheet] [--jobs 2] [--quick] [--nuisances random|none|all]

``--quick``: 6 drives per family at noise ×1.  Wrong answers and crashes are listed
with their seed; ``python -m tests.independent --seed S --out D --noise K`` (or
``python -m tests.independent_datasheet ...``) draws the same session again.
A full run (40 drives per family, 3 noise scales, 240 sessions) takes about
25 minutes on 2 busy cores with --jobs 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.independent.score import FIELDS, RIGHT, UNDEFINED, UNDETERMINED, WRONG, Grade, grade_profile  # noqa: E402

FAMILIES = ("independent", "datasheet")
LEVELS = ("high", "medium", "low")
HEADLINE = ("dies_per_package", "write_io_unit_bytes", "read_io_unit_bytes", "allocation_scheme")


def _render(family: str, seed: int, noise: float, out: Path, nuisances: str) -> tuple[Path, Path | None]:
    if family == "independent":
        from tests.independent.archive import write_session
        from tests.independent.drive import random_drive

        return write_session(random_drive(seed, nuisances), out, noise=noise), None
    from tests.independent_datasheet.archive import truth_path, write_session
    from tests.independent_datasheet.ssd import random_ssd

    path = write_session(random_ssd(seed), out, noise=noise)
    return path, truth_path(path)


BOUND = "read_unit_bound"  # "at least the largest read": right when the true unit is no smaller


def grade_bound(profile: dict, truth: dict) -> Grade:
    """The read unit's lower bound, graded like an answer at its ``confidence_of_bound``: a
    bound stated where the unit is smaller than the largest read is wrong (n/a: no bound)."""
    q = (profile.get("results") or {}).get("read_io_unit_bytes") or {}
    details = q.get("details") or {}
    # at_least_bytes is what the profile states; more_than_bytes (the same bound less a page)
    # is all an older profile carries.
    least, more = details.get("at_least_bytes"), details.get("more_than_bytes")
    want = truth.get("read_io_unit_bytes")
    if (least is None and more is None) or want is None:
        return Grade(BOUND, UNDEFINED, more, want, "undetermined", "")
    right, said = (want >= least, f"at least {least}") if least is not None else (want > more, f"larger than {more}")
    return Grade(BOUND, RIGHT if right else WRONG, said, want,
                 str(details.get("confidence_of_bound", "undetermined")), str(q.get("evidence", "")))


def grade_with_bound(path: Path, truth_file: Path | None) -> list[Grade]:
    """:func:`grade_session` and the read unit's bound, from one analysis."""
    from charz.profile._pipeline import analyze_archive

    _, profile, _ = analyze_archive(path)
    truth = json.loads(Path(truth_file or Path(path) / "truth.json").read_text("utf-8"))["truth"]
    return grade_profile(profile, truth) + [grade_bound(profile, truth)]


def run_one(job: tuple[str, int, float, str]) -> tuple[str, int, float, list]:
    family, seed, noise, nuisances = job
    tmp = Path(tempfile.mkdtemp(prefix="charz-acc-"))
    try:
        path, truth = _render(family, seed, noise, tmp / "s", nuisances)
        try:
            return family, seed, noise, grade_with_bound(path, truth)
        except Exception:  # a crash is a finding, not a reason to stop counting
            return family, seed, noise, [("crash", traceback.format_exc(limit=6))]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def decidable(job: tuple[str, int, str]) -> tuple[str, int, bool]:
    family, seed, nuisances = job
    if family == "independent":
        from tests.independent.contrast import walks_differ
        from tests.independent.drive import random_drive

        return family, seed, bool(walks_differ(random_drive(seed, nuisances)))
    from tests.independent_datasheet.contrast import walks_differ
    from tests.independent_datasheet.ssd import random_ssd

    return family, seed, bool(walks_differ(random_ssd(seed)))


def _nuisances(seed: int, which: str) -> str:
    from tests.independent.drive import nuisances_of, random_drive

    return ", ".join(n for n, on in nuisances_of(random_drive(seed, which)).items() if on) or "none"


def _pct(a: int, n: int) -> str:
    return f"{a / n:6.1%}" if n else "   n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drives", type=int, default=40, help="drives (seeds) per family (default 40)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--noise", default="0.5,1,2", help="noise scales, comma-separated (default 0.5,1,2)")
    ap.add_argument("--family", default=",".join(FAMILIES), help="independent, datasheet or both (default)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--quick", action="store_true", help="6 drives per family at noise ×1")
    ap.add_argument("--nuisances", default="random", choices=("random", "none", "all"),
                    help="the first family's issue-22 nuisances (default: each drawn at random)")
    a = ap.parse_args()
    if a.quick:
        a.drives, a.noise = 6, "1"
    families = [f.strip() for f in a.family.split(",") if f.strip()]
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        ap.error(f"unknown family {bad}; choose from {', '.join(FAMILIES)}")
    noises = [float(x) for x in a.noise.split(",")]
    seeds = list(range(a.first_seed, a.first_seed + a.drives))
    jobs = [(f, s, k, a.nuisances) for f in families for k in noises for s in seeds]
    t0 = time.monotonic()

    fields = defaultdict(Counter)  # (family, noise, field) → verdicts
    conf = defaultdict(Counter)  # (family, noise, level) → verdicts
    headline = defaultdict(Counter)  # (family, noise) → verdicts
    wrong, crashes = [], []
    with ProcessPoolExecutor(a.jobs) as pool:
        differ = {(f, s): d for f, s, d in pool.map(decidable, [(f, s, a.nuisances) for f in families for s in seeds])}
        for family, seed, noise, grades in pool.map(run_one, jobs):
            for g in grades:
                if isinstance(g, tuple):
                    crashes.append((family, seed, noise, g[1]))
                    continue
                fields[family, noise, g.field][g.verdict] += 1
                if g.verdict in (RIGHT, WRONG):
                    conf[family, noise, g.confidence][g.verdict] += 1
                if g.verdict == WRONG:
                    wrong.append((family, seed, noise, g))
                counts = g.field in HEADLINE and g.verdict != UNDEFINED
                if counts and (g.field != "allocation_scheme" or differ[family, seed]):
                    headline[family, noise][g.verdict] += 1
    elapsed = time.monotonic() - t0

    print(f"{a.drives} drives per family (seeds {seeds[0]}–{seeds[-1]}), noise ×{', ×'.join(f'{k:g}' for k in noises)}; "
          f"first family's nuisances: {a.nuisances}")
    for family in families:
        print(f"\n== family: {family} ==")
        for noise in noises:
            print(f"\nnoise ×{noise:g}          right  undetermined  wrong   n/a")
            for f in FIELDS + (BOUND,):
                c = fields[family, noise, f]
                print(f"  {f:<20} {c[RIGHT]:5d}  {c[UNDETERMINED]:12d}  {c[WRONG]:5d}  {c[UNDEFINED]:4d}")
        dec = sum(differ[family, s] for s in seeds)
        print(f"\n  allocation counted in the share below on {dec} of {len(seeds)} drives (walks' durations or rises")
        print("  differ by more than their spread: contrast.py; the rest have no scheme or walks that imitate each other)")
    print("\ncalibration: answers given at each confidence, and the fraction right (all fields)")
    head = "  family       noise " + "".join(f"  {lvl:>6} n   right" for lvl in LEVELS)
    print(head)
    for family in families:
        for noise in noises:
            row = f"  {family:<12} ×{noise:<4g}"
            for lvl in LEVELS:
                c = conf[family, noise, lvl]
                n = c[RIGHT] + c[WRONG]
                row += f"  {n:8d} {_pct(c[RIGHT], n)}"
            print(row)
    print("\nshare of all answers right (dies, write unit, read unit, allocation where decidable)")
    for family in families:
        for noise in noises:
            c = headline[family, noise]
            n = sum(c.values())
            print(f"  {family:<12} ×{noise:<4g} {c[RIGHT]:4d} right / {c[UNDETERMINED]:4d} undetermined / "
                  f"{c[WRONG]:3d} wrong of {n:4d}  {_pct(c[RIGHT], n)} right")
    print(f"\nwrong answers: {len(wrong)}")
    for family, seed, noise, g in sorted(wrong, key=lambda w: (w[0], w[1], w[2])):
        print(f"  {family} seed {seed} ×{noise:g} {g.field}: said {g.said} ({g.confidence}), truth {g.truth}")
        if family == "independent":
            print(f"      nuisances: {_nuisances(seed, a.nuisances)}")
        print(f"      {g.evidence[:150]}")
    if crashes:
        print(f"\ncrashes: {len(crashes)}")
        for family, seed, noise, tb in crashes:
            print(f"  {family} seed {seed} ×{noise:g}:")
            print("    " + "\n    ".join(tb.strip().splitlines()[-4:]))
    print(f"\n{len(jobs)} sessions in {elapsed / 60:.1f} min with {a.jobs} jobs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

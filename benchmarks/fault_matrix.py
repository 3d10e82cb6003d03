"""Fault matrix: every scope fault kind × {once, three times, intermittent} × {set-up, mid-sweep,
last capture}.

Each cell runs ``charz characterize --mock`` (the real CLI, pyvisa-py over TCP to the
mock scope) with one fault scheduled, then - if the session stopped - ``charz resume``
without faults, and compares the profile's answers ([results.*] values) with a clean
run's (discrete answers equal, measured levels within 2 %).  "intermittent" strikes 5 % of the matching commands from the stage on (seeded).
Prints, per cell: survived / stopped cleanly, captures lost (must be 0), answers equal,
tracebacks.  A wrong instrument (``wrong_idn`` at the set-up) must stop; everything else
must end with every capture and the clean run's answers, with or without a resume.

Usage: python benchmarks/fault_matrix.py [--repeats 1] [--sizes 4k:32k:4k]
       [--kinds no_reply,reset] [--times once,three,intermittent] [--stages set-up,mid-sweep]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

CHARZ = [sys.executable, "-m", "charz"]
#: name → fault spec (``--mock-fault``); the schedule is added per cell.  Names never hold a
#: comma: the list of names is given as one comma-separated option.
KINDS = {
    "drop_mid_block": "drop_mid_block:match=CURV",
    "no_reply": "no_reply",
    "truncated_block": "truncated_block",
    "long_block": "long_block",
    "bad_preamble": "bad_preamble",
    "error_queue": "error_queue",
    "over_range": "over_range",
    "no_trigger": "no_trigger",
    "slow_3s": "slow:delay_s=3",
    "wrong_idn": "wrong_idn",
    "stale_reply": "stale_reply",
    "reset": "reset",
    "power_cycle": "reset:power_cycle=true",
}
TIMES = {"once": "count=1", "three": "count=3", "intermittent": "count=None,rate=0.05,seed=7"}


def answers(out: Path) -> dict:
    profile = tomllib.loads((out / "profile.toml").read_text())
    return {k: v.get("value") for k, v in profile.get("results", {}).items()}


def same_answers(got: dict, want: dict) -> bool:
    """Every discrete answer (counts, units, the allocation, confidence words) equal; measured
    levels (floats) within 2 %: a capture taken again lands on other LBAs, with its own noise,
    and moves an idle or peak current in its third digit without changing what it means."""
    if got.keys() != want.keys():
        return False
    for key, w in want.items():
        g = got[key]
        if isinstance(w, float) and isinstance(g, (int, float)) and not isinstance(g, bool):
            if not math.isclose(g, w, rel_tol=0.02, abs_tol=1e-9):
                return False
        elif g != w:
            return False
    return True


def kept(out: Path) -> tuple[int, int]:
    from charz.session import captures_kept

    return captures_kept(out)


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(CHARZ + args, capture_output=True, text=True, timeout=1800)


def must_stop(kind: str, stage: str) -> bool:
    """A scope that says it is another instrument when charz first asks is not to be measured with."""
    return kind == "wrong_idn" and stage == "set-up"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--sizes", default=None, help="write sizes (default: charz's); reads are left out")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--times", default=",".join(TIMES))
    ap.add_argument("--stages", default="set-up,mid-sweep,last capture")
    a = ap.parse_args()
    unknown = [k for k in a.kinds.split(",") if k not in KINDS] + [t for t in a.times.split(",") if t not in TIMES]
    if unknown:
        ap.error(f"unknown kinds or times: {', '.join(unknown)} (kinds: {', '.join(KINDS)}; times: {', '.join(TIMES)})")
    base = ["characterize", "--mock", "--repeats", str(a.repeats), "--quiet"]
    if a.sizes:
        base += ["--sizes", a.sizes, "--read-sizes", "none"]
    tmp = Path(tempfile.mkdtemp(prefix="charz-faults-"))
    clean = run(base + ["--out", str(tmp / "clean")])
    if clean.returncode:
        print(clean.stderr)
        return 1
    want = answers(tmp / "clean")
    _, total = kept(tmp / "clean")
    # calibration requests come first (the autoset's), then one request per capture
    calib = len(json.loads((tmp / "clean" / "session.json").read_text())["bench"]["autoset"]["calibration_requests"])
    stages = {"set-up": "", "mid-sweep": f",at_capture={calib + total // 2}",
              "last capture": f",at_capture={calib + total - 1}"}
    print(f"{total} captures per run; {tmp}")
    print(f"{'fault':15} {'times':12} {'stage':12} {'outcome':22} {'retries':>7} {'lost':>4} {'answers':>7} trace")
    bad = cells = 0
    t0 = time.monotonic()
    for name in a.kinds.split(","):
        for times in a.times.split(","):
            for stage in a.stages.split(","):
                cells += 1
                out = tmp / f"{name}-{times}-{stage.replace(' ', '_')}"
                spec = f"{KINDS[name]}{',' if ':' in KINDS[name] else ':'}{TIMES[times]}{stages[stage]}"
                r = run(base + ["--out", str(out), "--mock-fault", spec])
                trace = "Traceback" in r.stderr
                outcome = "survived" if r.returncode == 0 else f"stopped (exit {r.returncode})"
                if r.returncode and (out / "session.json").exists():
                    rr = run(["resume", str(out), "--quiet"])  # without faults (none unless given)
                    trace = trace or "Traceback" in rr.stderr
                    outcome += ", resumed" if rr.returncode == 0 else f", resume {rr.returncode}"
                if must_stop(name, stage):
                    ok = r.returncode != 0 and not trace
                    print(f"{name:15} {times:12} {stage:12} {outcome:22} {'':>7} {'':>4} {'':>7} "
                          f"{'yes' if trace else 'no'}{'' if ok else '  <- must stop'}")
                    bad += not ok
                    continue
                meta = json.loads((out / "session.json").read_text()) if (out / "session.json").exists() else {}
                retries = (meta.get("run") or {}).get("link_retries", 0)
                final = kept(out)[0] if meta else 0
                lost = total - final
                same = (out / "profile.toml").exists() and same_answers(answers(out), want)
                failed = lost != 0 or not same or trace
                bad += failed
                print(f"{name:15} {times:12} {stage:12} {outcome:22} {retries:>7} {lost:>4} "
                      f"{'equal' if same else 'DIFFER':>7} {'yes' if trace else 'no'}{'  <-' if failed else ''}")
    print(f"{cells} cells in {time.monotonic() - t0:.0f} s; with lost captures, different answers or "
          f"tracebacks: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Fault matrix: every transient scope fault x {set-up, mid-sweep, last capture}.

Each cell runs ``charz characterize --mock`` (the real CLI, pyvisa-py over TCP to the
mock scope) with one fault scheduled, then - if the session stopped - ``charz resume``
without faults, and compares the profile's answers ([results.*] values) with a clean
run's.  Prints, per cell: survived / stopped cleanly, captures lost (must be 0), answers
equal.  Usage: python benchmarks/fault_matrix.py [--repeats 1] [--kinds a,b]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

CHARZ = [sys.executable, "-m", "charz"]
KINDS = {
    "drop_mid_block": "drop_mid_block:match=CURV",
    "no_reply": "no_reply",
    "stale_reply": "stale_reply",
    "reply 3 s late": "slow:delay_s=3",
    "truncated_block": "truncated_block",
    "long_block": "long_block",
    # not transient: every reply lost from then on; the session must stop cleanly and resume
    "no_reply, always": "no_reply:count=None",
}


def answers(out: Path) -> dict:
    profile = tomllib.loads((out / "profile.toml").read_text())
    return {k: v.get("value") for k, v in profile.get("results", {}).items()}


def kept(out: Path) -> tuple[int, int]:
    from charz.session import captures_kept

    return captures_kept(out)


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(CHARZ + args, capture_output=True, text=True, timeout=900)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--kinds", default=",".join(KINDS))
    a = ap.parse_args()
    base = ["characterize", "--mock", "--repeats", str(a.repeats), "--quiet"]
    tmp = Path(tempfile.mkdtemp(prefix="charz-faults-"))
    clean = run(base + ["--out", str(tmp / "clean")])
    if clean.returncode:
        print(clean.stderr)
        return 1
    want = answers(tmp / "clean")
    _, total = kept(tmp / "clean")
    # calibration requests come first (the autoset's), then one request per capture
    calib = len(json.loads((tmp / "clean" / "session.json").read_text())["bench"]["autoset"]["calibration_requests"])
    stages = {"set-up": "", "mid-sweep": f",at_capture={calib + total // 2}", "last capture": f",at_capture={calib + total}"}
    print(f"{'fault':18} {'stage':13} {'outcome':16} {'retries':>7} {'lost':>4} {'answers':>8} tracebacks")
    bad = 0
    for name in a.kinds.split(","):
        for stage, sched in stages.items():
            out = tmp / f"{name.replace(' ', '_')}-{stage.replace(' ', '_')}"
            r = run(base + ["--out", str(out), "--mock-fault", KINDS[name] + sched])
            trace = "Traceback" in r.stderr
            got_before, _ = kept(out) if (out / "session.json").exists() else (0, total)
            outcome = "survived" if r.returncode == 0 else f"stopped (exit {r.returncode})"
            if r.returncode:
                rr = run(["resume", str(out), "--quiet"])  # without faults (none unless given)
                trace = trace or "Traceback" in rr.stderr
                if rr.returncode:
                    outcome += ", resume failed"
            meta = json.loads((out / "session.json").read_text())
            retries = (meta.get("run") or {}).get("link_retries", 0)
            final, _ = kept(out)
            lost = total - final
            same = (out / "profile.toml").exists() and answers(out) == want
            bad += lost != 0 or not same or trace
            print(f"{name:18} {stage:13} {outcome:16} {retries:>7} {lost:>4} {'equal' if same else 'DIFFER':>8} "
                  f"{'yes' if trace else 'no'}")
    print(f"cells with lost captures, different answers or tracebacks: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

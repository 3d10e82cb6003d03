"""The first ``charz analyze`` after an install against the ones after it (issue 15, item 6).

A fresh install has no compiled analysis kernel: numba compiles it at its first use and
caches it (``cache=True``).  A fresh ``NUMBA_CACHE_DIR`` per round stands for a fresh
install (numba then neither finds nor writes a cache anywhere else); the Python bytecode
of charz and its dependencies stays compiled, as it is after ``pip install``.

Per round: a new empty cache directory, ``charz analyze SESSION`` twice (cold, then warm),
each a child process timed from its start to its exit; the cold run's stderr must say it is
compiling (the line the user sees instead of a silent wait) and the warm run's must not.
The session is the default one: ``charz simulate --preset mxp`` (the default sweep).

Goal (issue 15): the cold run at most 3 s, or it says why it waits.  Prints medians side
by side and their ratio.

Usage::

    python benchmarks/first_run.py [--rounds 3] [--preset mxp]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NOTICE = "compiling charz's analysis kernel"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed, proc.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--preset", default="mxp")
    args = ap.parse_args()
    charz = [sys.executable, "-m", "charz"]
    with tempfile.TemporaryDirectory(prefix="charz-first-run-") as tmp:
        session = Path(tmp) / "session"
        subprocess.run(charz + ["simulate", "--preset", args.preset, "--out", str(session), "--quiet"], check=True,
                       capture_output=True)
        cold, warm, said = [], [], []
        for r in range(args.rounds):
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / f"numba-{r}")}
            argv = charz + ["analyze", str(session), "-o", str(Path(tmp) / f"profile-{r}.toml")]
            t_cold, err_cold = timed(argv, env)
            t_warm, err_warm = timed(argv, env)
            cold.append(t_cold)
            warm.append(t_warm)
            said.append((NOTICE in err_cold, NOTICE in err_warm))
            print(f"round {r + 1}: first {t_cold:6.2f} s  (says it compiles: {said[-1][0]}),  "
                  f"next {t_warm:6.2f} s  (says it: {said[-1][1]})")
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"\nmedian of {args.rounds}: first run {c:.2f} s, later runs {w:.2f} s, ratio {c / w:.1f}x")
    print(f"first run <= 3 s: {'yes' if c <= 3 else 'no'}; says why it waits: "
          f"{'yes' if all(s[0] for s in said) else 'NO'}; later runs quiet: "
          f"{'yes' if not any(s[1] for s in said) else 'NO'}")


if __name__ == "__main__":
    main()

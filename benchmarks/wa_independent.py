"""``charz wa analyze`` over many seeds of every independent R/B case (tests/independent_rb).

The system test (tests/system/test_wa_independent.py) runs each case once, at a fixed
seed; this runs each ``--seeds`` times with other seeds and tallies, per case: trusted and
within 1 % ("good"), untrusted and ≥ 1 % off ("flagged, rightly"), untrusted though within
1 % ("flagged, needlessly"), and trusted though ≥ 1 % off ("WRONG" — must stay 0).

    python benchmarks/wa_independent.py [--seeds 6]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.system.charz_cli import run  # noqa: E402
from tests.system.test_wa_independent import CASES, analyze  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    total = {"good": 0, "flagged, rightly": 0, "flagged, needlessly": 0, "WRONG": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for c, (name, sc0, fmt, extra, expect) in enumerate(CASES):
            tally = dict.fromkeys(total, 0)
            for k in range(args.seeds):
                sc = dataclasses.replace(sc0, seed=10_000 + 100 * c + k, name=f"{c}-{k}")
                argv, wa_true = analyze(Path(tmp), sc, fmt, extra)
                out = io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    run(argv)
                step = json.loads(out.getvalue())["steps"][0]
                re = abs(step["wa"]["value"] - wa_true) / wa_true
                key = ("good" if re < 0.01 else "WRONG") if step["trusted"] else \
                    ("flagged, rightly" if re >= 0.01 else "flagged, needlessly")
                tally[key] += 1
            for key in total:
                total[key] += tally[key]
            print(f"{name[:44]:<44} expect {expect:<7} " + ", ".join(f"{k} {v}" for k, v in tally.items() if v))
    print("all: " + ", ".join(f"{k} {v}" for k, v in total.items()))


if __name__ == "__main__":
    main()

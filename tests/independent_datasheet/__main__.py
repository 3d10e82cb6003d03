"""python -m tests.independent_datasheet --seed N --out DIR [--noise 1.0]: one datasheet drive's session.

The truth is written beside DIR (DIR.truth.json) and printed."""

import argparse
import json

from tests.independent_datasheet.archive import write_session
from tests.independent_datasheet.ssd import random_ssd


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m tests.independent_datasheet", description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="new session directory")
    ap.add_argument("--noise", type=float, default=1.0, help="scale of the bench's noise, wander and hum")
    a = ap.parse_args()
    ssd = random_ssd(a.seed)
    write_session(ssd, a.out, noise=a.noise)
    print(json.dumps(ssd.truth()))


if __name__ == "__main__":
    main()

"""python -m tests.independent --seed N --out DIR [--noise 1.0] [--nuisances random]: one random drive's session."""

import argparse
import json

from tests.independent.archive import write_session
from tests.independent.drive import NUISANCES, random_drive


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m tests.independent", description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="new session directory")
    ap.add_argument("--noise", type=float, default=1.0, help="scale of noise and hum (1 = a typical bench)")
    ap.add_argument("--nuisances", default="random",
                    help="issue 22's bench nuisances: random (each on with p = ½), none, all, or a comma list of "
                         + ", ".join(NUISANCES))
    a = ap.parse_args()
    which = a.nuisances if a.nuisances in ("random", "none", "all") else {n: True for n in a.nuisances.split(",")}
    drive = random_drive(a.seed, which)
    write_session(drive, a.out, noise=a.noise)
    print(json.dumps(drive.truth()))


if __name__ == "__main__":
    main()

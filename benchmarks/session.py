"""How long a characterization session takes on the mock bench, and how much of it is charz.

Runs the default sweep (one page to 160 KB in page steps × 5 repeats, writes and reads:
405 captures) of the simulated MXP twice, side by side:

* ``real-time`` — the mock scope takes as long to acquire a record as a real one would
  (the record's window: 20 ms at 2 µs/sample for writes, 40 ms at 4 µs for reads);
* ``instant`` — acquisitions complete at once, so the wall time is charz + transfer.

It prints the wall times, where the time went per capture (scope: arm, wait, fetch over
pyvisa-py; the O_DIRECT request; charz's own judging and archiving), and charz's
overhead beside the simulated acquisition + transfer time.

    python benchmarks/session.py [--preset mxp] [--repeats 5]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from pathlib import Path

from charz.session import BenchConfig, build_sweep, default_read_sizes, default_write_sizes, start_session
from charz.sim import load_preset, mock_bench


class QuietUI:
    def log(self, text):
        pass

    def confirm(self, text, token_name):
        return None

    @contextlib.contextmanager
    def progress(self, total, done, description):
        yield lambda: None


def run(preset: str, repeats: int, time_scale: float):
    model = load_preset(preset)
    page = model.geometry.page_size_bytes
    plan = build_sweep(default_write_sizes(page), default_read_sizes(page), repeats)
    given = {k: v for k, v in model.given.items() if k in ("channels", "packages", "page_size_bytes")}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "session"
        config = BenchConfig(kind="mock", target=str(out / "scratch.bin"), target_is_scratch=True, preset=preset,
                             mock_time_scale=time_scale)
        t0 = time.perf_counter()
        result = start_session(out, config, plan, given, ui=QuietUI(), analyze=False, mock=mock_bench)
        wall = time.perf_counter() - t0
    return wall, result.stats, plan


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="mxp")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rows = []
    for label, scale in (("real-time", 1.0), ("instant", 0.0)):
        wall, s, plan = run(args.preset, args.repeats, scale)
        rows.append((label, wall, s))
    n = rows[0][2].captured
    writes = sum(1 for st in plan.captured_steps if st.op == "write")
    reads = n - writes
    acquisition = writes * 10_000 * 2e-6 + reads * 10_000 * 4e-6
    print(f"mock session, {args.preset}, {n} captures ({writes} writes, {reads} reads), 10 000-point records")
    print(f"{'':12s} {'wall s':>8s} {'scope s':>8s} {'I/O s':>7s} {'judge s':>8s} {'archive s':>9s} {'other s':>8s}")
    for label, wall, s in rows:
        other = s.wall_s - s.scope_s - s.io_s - s.judge_s - s.archive_s
        print(f"{label:12s} {wall:8.2f} {s.scope_s:8.2f} {s.io_s:7.2f} {s.judge_s:8.2f} {s.archive_s:9.2f} {other:8.2f}")
    label, wall, s = rows[0]
    charz_s = s.judge_s + s.archive_s + (s.wall_s - s.scope_s - s.io_s - s.judge_s - s.archive_s)
    print(f"simulated acquisition time (record windows): {acquisition:.2f} s")
    print(f"charz's own work (judging, archiving, loop): {charz_s:.2f} s = {charz_s / n * 1e3:.2f} ms per capture")
    print(f"overhead beside acquisition + transfer (scope time, real-time run): {charz_s / s.scope_s:.1%}")
    print(f"session wall time (real-time run, incl. set-up): {wall:.1f} s   goal ≤ 30 s")


if __name__ == "__main__":
    main()

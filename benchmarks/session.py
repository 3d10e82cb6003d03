"""How long a characterization session takes on each modelled scope, and charz's share.

Runs the default sweep (one page to 160 KB in page steps × 5 repeats, writes and reads:
405 captures) of the simulated MXP against the mock scope of each dialect in real time
(``charz mock-scope --realtime``): the record window (20 ms at 2 µs/sample for writes,
40 ms at 4 µs for reads) plus what that scope costs per command, per query, per byte
over its link, to arm and to process (``instruments/<model>.toml`` ``[timing]``: the
link rates come from data sheets, the durations are estimates — no vendor publishes
them).  Then once more with an instant scope, which leaves charz + transfer.

It prints, per scope, the wall time and where it went (scope: arm, wait, fetch over
pyvisa-py; the O_DIRECT requests; charz's own judging, archiving and loop), and charz's
share of the session.

    python benchmarks/session.py [--preset mxp] [--repeats 5] [--dialects tek,keysight]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from pathlib import Path

from charz.session import MockBench, build_sweep, default_read_sizes, default_write_sizes, start_session
from charz.errors import CharzError
from charz.scope import load_model
from charz.sim import load_preset, mock_bench
from charz.sim.scope_server import DIALECTS, SESSION_DIALECTS


class QuietUI:
    def log(self, text):
        pass

    def confirm(self, text, token_name):
        return None

    @contextlib.contextmanager
    def progress(self, total, done, description):
        yield lambda: None


def run(preset: str, repeats: int, time_scale: float, dialect: str):
    model = load_preset(preset)
    page = model.geometry.page_size_bytes
    plan = build_sweep(default_write_sizes(page), default_read_sizes(page), repeats)
    given = {k: v for k, v in model.given.items() if k in ("channels", "packages", "page_size_bytes")}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "session"
        config = MockBench(target=str(out / "scratch.bin"), target_is_scratch=True, preset=preset,
                           mock_time_scale=time_scale, dialect=dialect)
        t0 = time.perf_counter()
        result = start_session(out, config, plan, given, ui=QuietUI(), analyze=False, mock=mock_bench)
        wall = time.perf_counter() - t0
    return wall, result.stats, plan


def _source(model) -> str:
    """The instrument file the figures come from, relative to the repository when inside it."""
    path = Path(model.path)
    try:
        return str(path.resolve().relative_to(Path(__file__).resolve().parents[1]))
    except ValueError:
        return str(path)


def charz_s(s) -> float:
    """charz's own time: judging, archiving and the loop (all but scope and drive)."""
    return s.wall_s - s.scope_s - s.io_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="mxp")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dialects", default=",".join(SESSION_DIALECTS), help="mock dialects to model")
    args = ap.parse_args()
    rows, failed = [], []
    for dialect in args.dialects.split(","):
        model = load_model(DIALECTS[dialect])
        try:
            wall, s, plan = run(args.preset, args.repeats, 1.0, dialect)
        except CharzError as exc:  # say which scope, keep the others' figures
            failed.append(f"{model.name} ({dialect}): {exc.message}")
            continue
        rows.append((f"{model.name} ({dialect})", wall, s, model))
    wall, s, plan = run(args.preset, args.repeats, 0.0, "tek")
    rows.append(("instant scope", wall, s, None))
    n = s.captured
    writes = sum(1 for st in plan.captured_steps if st.op == "write")
    window = writes * 10_000 * 2e-6 + (n - writes) * 10_000 * 4e-6
    print(f"mock session, {args.preset}, {n} captures ({writes} writes, {n - writes} reads), "
          "10 000-point records")
    print(f"record windows alone: {window:.1f} s; host requests: this machine's scratch file")
    print(f"{'scope (real time)':28s} {'wall s':>6s} {'set-up':>6s} {'scope s':>7s} {'I/O s':>6s} "
          f"{'charz s':>7s} {'ms/capt':>7s} {'share':>6s}")
    for label, wall, s, _ in rows:
        c = charz_s(s)
        print(f"{label:28s} {wall:6.1f} {wall - s.wall_s:6.1f} {s.scope_s:7.1f} {s.io_s:6.1f} "
              f"{c:7.2f} {c / n * 1e3:7.2f} {c / wall:6.1%}")
    for line in failed:
        name, _, why = line.partition(": ")
        print(f"failed: {name}\n  {why}")
    print("set-up: connect, configure, autoset; share: charz's own work (judging,")
    print("archiving, the capture loop) / the session's wall time")
    print("scope costs modelled (durations are estimates, links from data sheets):")
    for label, _, _, model in rows:
        if model is not None:
            t = model.timing
            print(f"  {model.name}: query {t.query_s * 1e3:g} ms, arm {t.arm_s * 1e3:g} ms, "
                  f"processing {t.processing_s * 1e3:g} ms, {t.transfer_bytes_per_s / 1e6:g} MB/s")
            print(f"    {_source(model)} [timing], {t.link or 'link not named'}")

if __name__ == "__main__":
    main()

"""Analysis throughput beside ``numpy.sum`` over the same raw int16 samples.

A realistic capture set is what ``charz characterize`` records by default: the
simulated MXP's sweep (one page to 160 KB in page steps and the read sweep, five
repeats: 405 captures of 10 000 points, stored as 16-bit codes).  A second set
uses 100 000-point records (200 ms at 2 µs), which a bench uses to see idle peaks
and standby tails.  Each set is written to a capture archive and read back the way
``charz analyze`` reads it (verified, each batch's records read into one array), so
the analysis sees exactly what it sees at a bench.  Reading is not timed.  For each
set it times, best of several runs, side by side:

* ``numpy.sum`` of every capture's codes (the streaming limit: one pass over memory);
* the per-capture measurement kernel (baseline, window, w = 20 peak, charge);
* the whole inference (``characterize``: steps, Eq. 1/2, allocation fit, reads,
  read-modify-write, energy, set-up checks).

    python benchmarks/analysis.py [--preset mxp] [--repeats 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from charz.analysis import Given, Trace, characterize, measure_traces
from charz.archive import ArchiveWriter, read_archive
from charz.profile._pipeline import given_from_metadata, traces_from_archive
from charz.session import build_sweep, default_read_sizes, default_write_sizes
from charz.sim import SimulatedSSD, load_preset
from charz.sim._capture import simulate_capture


def capture_set(preset: str, repeats: int, record_length: int) -> tuple[list[Trace], Given]:
    model = load_preset(preset)
    model = replace(model, digitizer=replace(model.digitizer, bits=16, record_length=record_length))
    page = model.geometry.page_size_bytes
    plan = build_sweep(default_write_sizes(page), default_read_sizes(page), repeats)
    ssd = SimulatedSSD(model, seed=1)
    with tempfile.TemporaryDirectory(prefix="charz-bench-") as tmp:
        out = Path(tmp) / "session"
        meta = {"drive": {"model": model.name, "given": model.given_si()},
                "bench": {"kind": "simulated", "rail_v": 5.0}, "plan": plan.to_dict()}
        with ArchiveWriter.create(out, meta) as writer:
            for step in plan.captured_steps:
                writer.append(simulate_capture(ssd, step))
        archive = read_archive(out)
    return traces_from_archive(archive), given_from_metadata(archive.metadata)


def best_of(fn, runs: int) -> float:
    fn()  # warm caches and imports
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="mxp")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"preset {args.preset}, default sweep × {args.repeats} repeats, int16 codes; best of {args.runs} runs")
    print(f"{'record':>8s} {'captures':>8s} {'samples':>10s} {'numpy.sum':>12s} {'kernel':>12s} {'ratio':>6s} "
          f"{'inference':>12s} {'ratio':>6s}")
    for length in (10_000, 100_000):
        traces, given = capture_set(args.preset, args.repeats, length)
        assert all(t.codes.dtype == np.int16 for t in traces)
        n = sum(t.codes.size for t in traces)
        by_shape: dict[tuple, list[np.ndarray]] = {}
        for t in traces:
            by_shape.setdefault((t.codes.size, t.sample_interval_s), []).append(t.codes)
        stacked = [np.stack(v) for v in by_shape.values()]

        def numpy_sum():
            return sum(int(a.sum()) for a in stacked)

        t_sum = best_of(numpy_sum, args.runs)
        t_kernel = best_of(lambda: measure_traces(traces), args.runs)
        t_full = best_of(lambda: characterize(traces, given), max(1, args.runs // 2))
        rate = lambda t: f"{n / t / 1e6:8.0f} MS/s"  # noqa: E731
        print(f"{length:8d} {len(traces):8d} {n:10d} {rate(t_sum):>12s} {rate(t_kernel):>12s} {t_sum / t_kernel:6.2f} "
              f"{rate(t_full):>12s} {t_sum / t_full:6.2f}")
    print("ratio = analysis throughput / numpy.sum throughput (goal >= 0.25); numpy.sum runs over each batch "
          "stacked in one array, as the archive reader hands batches to the kernel")


if __name__ == "__main__":
    main()

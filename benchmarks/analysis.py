"""Analysis throughput beside ``numpy.sum`` over the same raw int16 samples.

A realistic capture set is what ``charz characterize`` records by default: the
simulated MXP's sweep (one page to 160 KB in page steps and the read sweep, five
repeats: 405 captures of 10 000 points, stored as 16-bit codes).  A second set
uses 100 000-point records (200 ms at 2 µs), which a bench uses to see idle peaks
and standby tails.  Each set is written to a capture archive and read back the way
``charz analyze`` reads it (verified, each batch's records read into one array), so
the analysis sees exactly what it sees at a bench.  Reading is not timed.  For each
set it times, in alternating rounds, side by side:

* ``numpy.sum`` of every capture's codes (the streaming limit: one pass over memory);
* the per-capture measurement kernel (baseline, window, w = 20 peak, charge);
* the whole inference (``characterize``: steps, Eq. 1/2, allocation fit, reads,
  read-modify-write, energy, set-up checks).

    python benchmarks/analysis.py [--preset mxp] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
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


def interleaved(fns: dict, runs: int) -> dict[str, list[float]]:
    """Times of each function, one of each per round: a noisy machine slows them alike."""
    for fn in fns.values():
        fn()  # warm caches, imports and the compiled kernel
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="mxp")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    print(f"preset {args.preset}, default sweep × {args.repeats} repeats, int16 codes; {args.runs} alternating rounds")
    print(f"{'record':>8s} {'captures':>8s} {'samples':>10s} {'numpy.sum':>12s} {'kernel':>12s} {'ratio':>6s} "
          f"{'median':>6s} {'inference':>12s} {'ratio':>6s} {'median':>6s}")
    for length in (10_000, 100_000):
        traces, given = capture_set(args.preset, args.repeats, length)
        assert all(t.codes.dtype == np.int16 for t in traces)
        n = sum(t.codes.size for t in traces)
        # numpy.sum reads the very arrays the kernel reads: the 2-D batches the archive reader
        # loaded (each trace's codes are a row of one), so both meet the same caches.
        batches = {id(t.codes.base): t.codes.base for t in traces}
        assert all(b is not None and b.ndim == 2 for b in batches.values())
        assert sum(b.size for b in batches.values()) == n, "the batches hold exactly the traces' samples"
        stacked = list(batches.values())

        def numpy_sum():
            return sum(int(a.sum()) for a in stacked)

        t = interleaved({"sum": numpy_sum, "kernel": lambda: measure_traces(traces)}, args.runs)
        # the inference is timed beside numpy.sum too, round by round, so its median ratio
        # is as robust to a busy machine as the kernel's
        tf = interleaved({"sum": numpy_sum, "full": lambda: characterize(traces, given)}, max(1, args.runs // 3))
        t_sum, t_kernel = min(t["sum"]), min(t["kernel"])
        per_round = statistics.median(s / k for s, k in zip(t["sum"], t["kernel"]))
        full_round = statistics.median(s / k for s, k in zip(tf["sum"], tf["full"]))
        rate = lambda t: f"{n / t / 1e6:8.0f} MS/s"  # noqa: E731
        print(f"{length:8d} {len(traces):8d} {n:10d} {rate(t_sum):>12s} {rate(t_kernel):>12s} {t_sum / t_kernel:6.2f} "
              f"{per_round:6.2f} {rate(min(tf['full'])):>12s} {min(tf['sum']) / min(tf['full']):6.3f} {full_round:6.3f}")
    print("ratio = analysis throughput / numpy.sum throughput, best against best (goal >= 0.25 for the kernel, "
          ">= 0.02 for the whole inference); median = the median of the per-round ratios (numpy.sum and the kernel, "
          "or the inference, timed alternately over the same arrays: the batches the archive reader loaded)")


if __name__ == "__main__":
    main()

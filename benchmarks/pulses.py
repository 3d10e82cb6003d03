"""R/B pulse counting throughput beside ``numpy.sum`` over the same samples, and its memory.

The stream is what ``sigrok-cli -O binary`` gives for one channel: one byte per
sample, R/B on bit 0, here a simulated MLC die at 24 MS/s (fx2lafw's top 8-bit
rate) busy most of the time — reads of 50 µs, programs of 200–2200 µs, an erase
now and then — so edges come as often as on a busy bench.  Two parts:

* speed: in alternating rounds, ``numpy.sum`` of a 256 MiB array and the counter
  fed the same array in 4 MiB chunks (the pipe reader's size); medians of rounds.
  The issue asks ≥ 200 M samples/s, so a 24 MS/s analyser costs < 15 % of a core.
* memory: 1 G samples streamed through the counter in 4 MiB chunks made one at a
  time (never the whole stream); peak RSS growth (``ru_maxrss``) after the first
  chunk is printed: the counter's own state is a 13-slot vector and the histogram.

    python benchmarks/pulses.py [--rounds 7] [--stream-gsamples 1]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np

from charz.analysis._pulses import PulseCounter

RATE = 24e6
CHUNK = 4 << 20


def busy_die(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    per_us = RATE / 1e6
    rb = np.ones(n, np.uint8)
    pos = 0
    while pos < n:
        r = rng.random()
        width_us = 50.0 if r < 0.3 else (3000.0 if r < 0.32 else rng.uniform(200, 2200))
        gap_us = rng.exponential(40.0) + 5
        s = pos + int(gap_us * per_us)
        rb[s:s + int(width_us * per_us)] = 0
        pos = s + int(width_us * per_us)
    return rb


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mib", type=int, default=256, help="array size for the speed part (MiB)")
    ap.add_argument("--stream-gsamples", type=float, default=1.0)
    args = ap.parse_args()

    rb = busy_die(args.mib << 20, seed=1)
    PulseCounter(RATE).feed(rb[:1000])  # compile outside the timing
    t_sum, t_count = [], []
    programs = None
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        rb.sum(dtype=np.uint64)
        t_sum.append(time.perf_counter() - t0)
        c = PulseCounter(RATE)
        t0 = time.perf_counter()
        for i in range(0, rb.size, CHUNK):
            c.feed(rb[i:i + CHUNK])
        t_count.append(time.perf_counter() - t0)
        programs = c.counts.programs
    ms_sum, ms_count = statistics.median(t_sum), statistics.median(t_count)
    n = rb.size
    print(f"speed, {n / 2**20:.0f} Mi samples at 24 MS/s ({n / RATE:.1f} s of R/B), "
          f"{programs} programs, median of {args.rounds} rounds")
    print(f"  numpy.sum      {ms_sum * 1e3:8.1f} ms  {n / ms_sum / 1e6:8.0f} M samples/s")
    print(f"  PulseCounter   {ms_count * 1e3:8.1f} ms  {n / ms_count / 1e6:8.0f} M samples/s"
          f"   ({ms_count / ms_sum:.2f} × numpy.sum)")
    print(f"  a 24 MS/s analyser costs {RATE / (n / ms_count):.1%} of one core "
          f"(target ≥ 200 M samples/s: {'met' if n / ms_count >= 200e6 else 'NOT met'})")

    # memory: chunks made one at a time from a small pool, so only the counter could grow
    pool = [busy_die(CHUNK, seed=s) for s in range(4)]
    del rb
    total = int(args.stream_gsamples * 1e9)
    c = PulseCounter(RATE)
    c.feed(pool[0])
    base = rss_mib()
    fed, k, marks = CHUNK, 1, []
    while fed < total:
        c.feed(pool[k % 4])
        fed += CHUNK
        k += 1
        if k % 60 == 0:
            marks.append(rss_mib())
    grow = rss_mib() - base
    print(f"memory, {fed / 1e9:.2f} G samples streamed in {CHUNK >> 20} MiB chunks: peak RSS "
          f"{base:.0f} MiB after the first chunk, {rss_mib():.0f} MiB at the end (+{grow:.1f} MiB); "
          f"{c.counts.programs} programs counted")


if __name__ == "__main__":
    main()

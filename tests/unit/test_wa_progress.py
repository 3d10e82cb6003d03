"""The in-step progress of ``charz wa``: what a long step reports while it runs.

A bench step is fio writing gigabytes, then R/B held high for the settle time (000
§4.2: five minutes); the bar must follow both.  Driven here through the real counting
loop (``count_until_settled``) and the real pulse counter, with a stand-in for the
bench's running step that says how much of its volume is written.
"""

from __future__ import annotations

import numpy as np
import pytest

from charz.analysis._pulses import PulseCounter
from charz.logic import count_until_settled
from charz.wa._run import _step_watcher

pytestmark = pytest.mark.unit

RATE = 100_000.0  # samples/s: a chunk of 10 000 samples is 0.1 s


class _Step:
    """Writes ``volume`` bytes over the first ``busy_chunks`` chunks, then is done."""

    def __init__(self, busy_chunks: int, volume: int = 1 << 20) -> None:
        self.busy_chunks = busy_chunks
        self.volume = volume
        self.chunks = 0

    def workload_done(self) -> bool:
        return self.chunks >= self.busy_chunks

    def progress(self, samples_seen: int) -> tuple[float, str]:
        self.chunks = samples_seen // 10_000
        if self.workload_done():
            return 1.0, "fio done"
        return self.chunks / self.busy_chunks, "fio writing"


def test_progress_follows_the_workload_then_the_settle_wait():
    step = _Step(busy_chunks=4)
    busy = np.zeros(10_000, np.uint8)
    busy[::100] = 1  # R/B toggling: never high for long while fio writes
    quiet = np.ones(10_000, np.uint8)  # then high: 0.1 s per chunk
    chunks = [busy] * 4 + [quiet] * 6
    reports: list[tuple[float, str]] = []
    counter = PulseCounter(RATE)
    res = count_until_settled(iter(chunks), counter, settle_s=0.35, workload_done=step.workload_done,
                              on_chunk=_step_watcher(step, counter, 0.35, lambda f, t: reports.append((f, t)),
                                                     every_s=0.0))
    assert res.settled
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert reports[:3] == [(0.25, "fio writing"), (0.5, "fio writing"), (0.75, "fio writing")]
    settle = [t for _, t in reports[3:]]
    # fio done with R/B low at the end of its last chunk, then high 0.1, 0.2, … s of the 0.35 s asked
    assert settle[:4] == ["R/B high 0 of 0.35 s", "R/B high 0.1 of 0.35 s", "R/B high 0.2 of 0.35 s",
                          "R/B high 0.3 of 0.35 s"]
    assert settle[-1] == "R/B high 0.35 of 0.35 s"


def test_reports_are_rate_limited():
    step = _Step(busy_chunks=1000)
    reports = []
    watch = _step_watcher(step, PulseCounter(RATE), 1.0, lambda f, t: reports.append(f), every_s=3600.0)
    for _ in range(50):
        watch(10_000)
    assert len(reports) == 1  # the first chunk reports at once, the rest wait for the interval

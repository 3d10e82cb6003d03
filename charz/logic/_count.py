"""Count R/B pulses from a sigrok stream with 000 §4.2's stop rule.

000 reads N_Tprogram only once R/B has stayed high for five minutes after the
workload, so every program the controller still had queued (garbage collection,
a cache flush) is in the count.  :func:`count_until_settled` feeds a
:class:`~charz.analysis._pulses.PulseCounter` from a :class:`SigrokStream` and
stops a continuous acquisition once the workload is done *and* R/B has been high
for ``settle_s``; a stream that ends before that is reported as not settled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from charz.analysis import PulseCounter, PulseCounts
from charz.errors import LogicError

__all__ = ["CountResult", "StepOutcome", "count_until_settled"]


@dataclass
class StepOutcome:
    """What a bench says about a step besides the pulses: L_Volume_Data and where it came from."""

    logical_bytes: int
    u_logical_bytes: float
    volume_evidence: str
    fio_json: str | None = None
    truth: dict | None = None  # the mock's own counters (true WA), for 000 §4.3's check


@dataclass(frozen=True)
class CountResult:
    counts: PulseCounts
    settled: bool          # R/B was high for settle_s at the end (on every die counted)
    settle_s: float
    error: str | None = None  # what stopped the stream early (counts up to it are kept)
    all_counts: tuple[PulseCounts, ...] = ()  # one per die counted, in the order given


def count_until_settled(stream, counter: PulseCounter | list[PulseCounter], *, settle_s: float,
                        workload_done: Callable[[], bool] = lambda: True,
                        on_chunk: Callable[[int], None] | None = None,
                        byte_index: int | list[int] = 0, max_wait_s: float | None = None) -> CountResult:
    """Feed every chunk of ``stream`` to ``counter``; stop once settled; never lose counts.

    ``counter`` may be a list (one per die, each with its own bit and ``byte_index``):
    the stop rule then waits for every die to be high for ``settle_s``.

    ``max_wait_s``: once the workload is done, stop after this long even if R/B never
    settled (a busy pin, or not R/B at all); the result then says ``settled=False``.
    ``byte_index`` picks the byte of a multi-byte sample unit that holds R/B.  A
    :class:`~charz.errors.LogicError` from the stream ends the count: it is
    returned in ``error`` with the counts so far, for the caller to report.
    """
    settle_us = settle_s * 1e6
    error = None
    unit = getattr(stream, "unitsize", 1)
    counters = list(counter) if isinstance(counter, (list, tuple)) else [counter]
    index = list(byte_index) if isinstance(byte_index, (list, tuple)) else [byte_index] * len(counters)
    done_at = None
    try:
        for chunk in stream:
            for ctr, bi in zip(counters, index):
                ctr.feed(chunk[bi::unit] if unit > 1 else chunk)
            if on_chunk is not None:
                on_chunk(int(np.size(chunk)))
            high = min(ctr.counts.high_for_us for ctr in counters)
            done = workload_done()
            if done and done_at is None:
                done_at = time.monotonic()
            late = max_wait_s is not None and done_at is not None and time.monotonic() - done_at > max_wait_s
            if done and (high >= settle_us or late):
                stop = getattr(stream, "stop", None)
                if stop is not None:
                    stop()
    except LogicError as exc:
        error = exc.message
    all_counts = tuple(ctr.counts for ctr in counters)
    return CountResult(all_counts[0], all(c.high_for_us >= settle_us for c in all_counts), settle_s, error,
                       all_counts)

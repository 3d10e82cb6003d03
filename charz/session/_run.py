"""The capture loop: for each step of the plan, arm, issue, wait, fetch, judge, keep.

Every capture that passes (or that runs out of retries, flagged) is committed to
the archive before the next request, so an interruption loses at most the
capture in flight.  Retried writes go to fresh LBAs from a spare region: writing
the same LBAs twice would bring overwrites and garbage collection into the
measurement.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from charz.archive import Capture, Channel, Scaling
from charz.errors import TriggerTimeout
from charz.session._plan import MIB, Step

MAX_ATTEMPTS = 3
FILL_CHUNK_BYTES = MIB


@dataclass
class RunStats:
    captured: int = 0
    retried: int = 0
    flagged: int = 0
    missed: list[int] = field(default_factory=list)  # steps that never produced a usable capture
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    scope_wait_s: float = 0.0


def judge(record, settings) -> tuple[str, list[str]]:
    """``ok`` / ``clipped`` / ``truncated`` / ``no-activity``, and warnings for the archive."""
    from charz.analysis import measure_window
    from charz.analysis._window import FLAG_CLIPPED, FLAG_NAMES, FLAG_NO_ACTIVITY, FLAG_TRUNCATED

    m = measure_window(record.codes, y_mult=record.y_mult, y_offset_codes=record.y_offset_codes, y_zero=record.y_zero,
                       sample_interval_s=record.x_incr_s, t_first_s=record.x_zero_s,
                       code_min=record.code_min, code_max=record.code_max)
    flags = int(m.flags[0])
    warnings = [text for bit, text in FLAG_NAMES.items() if flags & bit]
    if flags & FLAG_CLIPPED:
        return "clipped", warnings + [f"{record.clipped_fraction:.2%} of points at the ADC limits"]
    if record.clipped_fraction > 0:
        warnings.append(f"{record.clipped_fraction:.3%} of points at the ADC limits (spikes; the peak is unaffected)")
    if flags & FLAG_NO_ACTIVITY:
        return "no-activity", warnings
    if flags & FLAG_TRUNCATED:
        return "truncated", warnings
    return "ok", warnings


def to_capture(step: Step, record, io_result, offset: int, attempt: int, warnings: list[str]) -> Capture:
    channel = Channel(
        name="current",
        codes=np.asarray(record.codes),
        scaling=Scaling(y_mult=record.y_mult, y_offset_codes=record.y_offset_codes, y_zero=record.y_zero,
                        unit=record.y_unit if record.y_unit in ("A", "V") else "A"),
        source=record.source,
        code_min=record.code_min,
        code_max=record.code_max,
    )
    return Capture(
        step=step.id,
        op=step.op,
        size_bytes=step.size_bytes,
        offset_bytes=offset,
        repeat=step.repeat,
        sample_interval_s=record.x_incr_s,
        t_first_sample_s=record.x_zero_s,
        time_reference="trigger",
        channels=[channel],
        warnings=warnings,
        host={
            "t_start_ns": io_result.t_start_ns,
            "t_end_ns": io_result.t_end_ns,
            "wall_start_ns": io_result.wall_start_ns,
            "duration_ns": io_result.t_end_ns - io_result.t_start_ns,
        },
        extra={"attempt": attempt, "scope": {"description": record.description, "preamble": record.preamble}},
    )


class Runner:
    """Runs plan steps on a bench into an archive writer.

    ``spare`` is a :class:`charz.workload.FreshLbaAllocator` over the LBAs beyond the plan,
    for retried writes.
    """

    def __init__(self, bench, writer, *, write_settings, read_settings, spare,
                 progress: Callable[[Step], None] | None = None, log: Callable[[str], None] | None = None):
        self.bench = bench
        self.writer = writer
        self.settings = {"write": write_settings, "read": read_settings}
        self.spare = spare
        self.progress = progress or (lambda step: None)
        self.log = log or (lambda text: None)
        self.stats = RunStats()
        self._configured = None

    def _configure(self, op: str) -> None:
        wanted = self.settings[op]
        if self._configured != wanted:
            self.bench.scope.configure(wanted)
            self._configured = wanted

    def _issue(self, op: str, size: int, offset: int):
        hook = None
        if self.bench.notify is not None:
            notify = self.bench.notify
            hook = lambda _op, _size, _offset: notify(op, size, offset)  # noqa: E731
        if op == "write":
            return self.bench.io.write(size, offset, before_io=hook)
        return self.bench.io.read(size, offset, before_io=hook)

    def fill(self, step: Step) -> None:
        """Write the read region once (not captured): reads of unwritten LBAs never touch flash."""
        chunk = min(FILL_CHUNK_BYTES, self.bench.io.max_request_bytes)
        for offset in range(step.offset_bytes, step.offset_bytes + step.size_bytes, chunk):
            self._issue("write", min(chunk, step.offset_bytes + step.size_bytes - offset), offset)

    def capture(self, step: Step) -> None:
        scope = self.bench.scope
        offset = step.offset_bytes
        last_warnings: list[str] = []
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self._configure(step.op)
            scope.arm()
            io_result = self._issue(step.op, step.size_bytes, offset)
            t0 = time.monotonic()
            try:
                scope.wait(self.bench.config.trigger_timeout_s)
            except TriggerTimeout as exc:
                last_warnings = [f"attempt {attempt}: {exc.message}"]
                self.log(f"step {step.id}: no trigger ({exc.message}); retrying")
                self.stats.retried += 1
                offset = self._next_offset(step)
                continue
            finally:
                self.stats.scope_wait_s += time.monotonic() - t0
            record = scope.fetch(max_clipped_fraction=1.0)
            verdict, warnings = judge(record, self.settings[step.op])
            if verdict == "ok" or attempt == MAX_ATTEMPTS:
                if verdict != "ok":
                    warnings = [f"kept after {attempt} attempts: {verdict}"] + warnings
                    self.stats.flagged += 1
                self.writer.append(to_capture(step, record, io_result, offset, attempt, warnings))
                self.stats.captured += 1
                self.progress(step)
                return
            self.stats.retried += 1
            self.log(f"step {step.id}: {verdict}; retrying")
            self._adjust(step.op, verdict)
            offset = self._next_offset(step)
        # Every attempt missed the trigger: nothing to keep, say so and go on.
        self.stats.missed.append(step.id)
        self.stats.notes.append(f"step {step.id} ({step.op} {step.size_bytes} B) never triggered: {'; '.join(last_warnings)}")
        self.progress(step)

    def _next_offset(self, step: Step) -> int:
        if step.op == "read":
            return step.offset_bytes  # reading the same written LBAs again changes nothing on the drive
        return self.spare.allocate(step.size_bytes)

    def _adjust(self, op: str, verdict: str) -> None:
        s = self.settings[op]
        if verdict == "clipped":
            from charz.session._autoset import round_scale_up

            new = replace(s, vertical_scale=round_scale_up(s.vertical_scale * 1.5))
            self.stats.notes.append(f"{op}: clipped at {s.vertical_scale:g} A/div, now {new.vertical_scale:g} A/div")
        elif verdict == "truncated":
            lengths = getattr(self.bench.scope.model, "record_lengths", None) or []
            longer = [n for n in lengths if n > s.record_length]
            if not longer:
                return
            new = replace(s, record_length=min(longer))
            self.stats.notes.append(f"{op}: request outlasted the record, now {new.record_length} points")
        else:
            return
        self.settings[op] = new

    def run(self, steps: list[Step], done: set[int]) -> RunStats:
        t_start = time.monotonic()
        for step in steps:
            if step.id in done:
                continue
            if step.op == "fill":
                self.fill(step)
            else:
                self.capture(step)
        self.stats.wall_s += time.monotonic() - t_start
        return self.stats

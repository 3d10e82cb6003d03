"""The capture loop: for each step of the plan, arm, issue, wait, fetch, judge, keep.

Every capture that passes (or that runs out of retries, flagged) is committed to
the archive before the next request, so an interruption loses at most the
capture in flight.  Retried writes go to fresh LBAs from a spare region: writing
the same LBAs twice would bring overwrites and garbage collection into the
measurement.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from charz.analysis import (
    FLAG_CLIPPED,
    FLAG_NAMES,
    FLAG_NO_ACTIVITY,
    FLAG_TRUNCATED,
    check_standby_tail,
    check_write_cache,
    measure_window,
)
from charz.archive import Capture, Channel
from charz.errors import ScopeInstrumentError, TriggerTimeout
from charz.session._bench import RealBench
from charz.session._plan import MIB, Step

MAX_ATTEMPTS = 3
EARLY_CHECK_CAPTURES = 12  # writes to look at before the early set-up checks
FILL_CHUNK_BYTES = MIB


@dataclass
class RunStats:
    captured: int = 0
    retried: int = 0
    flagged: int = 0
    link_retries: int = 0  # scope-link glitches ridden out (charz.scope._retry)
    missed: list[int] = field(default_factory=list)  # steps that never produced a usable capture
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    # Where the time went, for the session benchmark: the scope (arm, wait, fetch), the
    # host request, and charz's own work (judging, archiving).
    scope_s: float = 0.0
    io_s: float = 0.0
    judge_s: float = 0.0
    archive_s: float = 0.0


def judge(record, host_duration_s: float | None = None) -> tuple[str, list[str], object]:
    """``ok`` / ``clipped`` / ``truncated`` / ``no-activity``, warnings for the archive, and the
    window measurement (for the early set-up checks).

    ``host_duration_s`` is how long the host saw the request take (real benches).  The
    waveform alone cannot tell a request still running at the record's end from a standby
    tail (both are a flat level to the end); a request the host saw outlast the record can.
    """
    m = measure_window(record.codes, y_mult=record.y_mult, y_offset_codes=record.y_offset_codes, y_zero=record.y_zero,
                       sample_interval_s=record.sample_interval_s, t_first_s=record.t_first_s,
                       code_min=record.code_min, code_max=record.code_max)
    flags = int(m.flags[0])
    warnings = [text for bit, text in FLAG_NAMES.items() if flags & bit]
    if flags & FLAG_CLIPPED:
        return "clipped", warnings + [f"{record.clipped_fraction:.2%} of points at the ADC limits"], m
    if record.clipped_fraction > 0:
        warnings.append(f"{record.clipped_fraction:.3%} of points at the ADC limits (spikes; the peak is unaffected)")
    if flags & FLAG_NO_ACTIVITY:
        return "no-activity", warnings, m
    if flags & FLAG_TRUNCATED:
        return "truncated", warnings, m
    after_trigger_s = record.t_first_s + record.n_samples * record.sample_interval_s
    if host_duration_s is not None and host_duration_s > after_trigger_s:
        return "truncated", warnings + [f"the host saw the request take {host_duration_s * 1e3:.2f} ms; the record "
                                        f"covers {after_trigger_s * 1e3:.2f} ms after the trigger"], m
    return "ok", warnings, m


def to_capture(step: Step, record, io_result, offset: int, attempt: int, warnings: list[str],
               earlier_offsets: list[int] = ()) -> Capture:
    """The archive's capture of ``step``; ``earlier_offsets`` are where its failed attempts
    wrote (the drive saw those requests too: a resumed mock session replays them)."""
    if record.unit not in ("A", "V"):
        record = replace(record, unit="A")  # the archive knows A and V; a probe charz set is in A
    return Capture(
        step=step.id,
        op=step.op,
        size_bytes=step.size_bytes,
        offset_bytes=offset,
        repeat=step.repeat,
        time_reference="trigger",
        channels=[Channel("current", record)],
        warnings=warnings,
        host={
            "t_start_ns": io_result.t_start_ns,
            "t_end_ns": io_result.t_end_ns,
            "wall_start_ns": io_result.wall_start_ns,
            "duration_ns": io_result.duration_ns,
        },
        extra={"attempt": attempt, "earlier_attempt_offsets_bytes": list(earlier_offsets),
               "scope": {"description": record.description, "preamble": record.preamble}},
    )


class CommitQueue:
    """Commits one capture in the background while the next acquisition runs.

    At most one capture is ever pending: submitting the next waits for the previous
    commit, so a kill loses at most the capture being written, as the archive promises.
    A commit that failed is raised at the next submit or at :meth:`flush`.
    """

    def __init__(self, writer):
        self.writer = writer
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def _commit(self, capture) -> None:
        try:
            self.writer.append(capture)
        except BaseException as exc:  # re-raised in the session's thread by flush()
            self._error = exc

    def flush(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def submit(self, capture) -> None:
        self.flush()
        thread = threading.Thread(target=self._commit, args=(capture,), name="charz-commit", daemon=False)
        # A stop signal inside start() (while it waits for the thread to begin) left a thread
        # that flush() could not join ("cannot join thread before it is started"): the
        # signals wait until it has started (and the thread, inheriting the mask, never takes
        # one; Python runs handlers in the main thread anyway).
        stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        before = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        try:
            thread.start()
            self._thread = thread
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


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
        self.commits = CommitQueue(writer)
        self._seen: list[tuple] = []
        self._checked = False

    def _configure(self, op: str) -> None:
        wanted = self.settings[op]
        if self._configured != wanted:
            self.bench.scope.configure(wanted)
            self._configured = wanted

    def _issue(self, op: str, size: int, offset: int, *, tell_mock: bool = True):
        hook = None
        if tell_mock and self.bench.notify is not None:
            notify = self.bench.notify
            hook = lambda _op, _size, _offset: notify(op, size, offset)  # noqa: E731
        if op == "write":
            return self.bench.io.write(size, offset, before_io=hook)
        return self.bench.io.read(size, offset, before_io=hook)

    def fill(self, step: Step) -> None:
        """Write the read region once (not captured): reads of unwritten LBAs never touch flash."""
        chunk = min(FILL_CHUNK_BYTES, self.bench.io.max_request_bytes)
        t0 = time.perf_counter()
        for offset in range(step.offset_bytes, step.offset_bytes + step.size_bytes, chunk):
            # Not captured, so the simulated drive need not render it (and a resume replays
            # only captured requests, so the two stay in step).
            self._issue("write", min(chunk, step.offset_bytes + step.size_bytes - offset), offset, tell_mock=False)
        self.stats.io_s += time.perf_counter() - t0  # the drive's time, not charz's

    def capture(self, step: Step) -> None:
        scope = self.bench.scope
        offset = step.offset_bytes
        last_warnings: list[str] = []
        earlier: list[int] = []  # offsets of failed attempts: the drive saw those requests too
        recovered: list[str] = []  # what the scope objected to, and that it was configured again
        st = self.stats
        for attempt in range(1, MAX_ATTEMPTS + 1):
            issued = False
            try:
                t0 = time.perf_counter()
                self._configure(step.op)
                scope.arm()
                t1 = time.perf_counter()
                io_result = self._issue(step.op, step.size_bytes, offset)
                issued = True
                t2 = time.perf_counter()
                st.scope_s += t1 - t0
                st.io_s += t2 - t1
                try:
                    scope.wait(self.bench.config.trigger_timeout_s)
                except TriggerTimeout as exc:
                    last_warnings = [f"attempt {attempt}: {exc.message}"]
                    self.log(f"step {step.id}: no trigger ({exc.message}); retrying")
                    st.retried += 1
                    earlier.append(offset)
                    offset = self._next_offset(step)
                    continue
                finally:
                    st.scope_s += time.perf_counter() - t2
                t3 = time.perf_counter()
                record = scope.fetch(max_clipped_fraction=1.0)
                t4 = time.perf_counter()
            except ScopeInstrumentError as exc:
                # The scope itself objected: reset or power-cycled (its settings are gone), or
                # an error in its queue.  Configure it again and take the capture anew, on fresh
                # LBAs if the request was sent; the same trouble on every attempt stops the run.
                if attempt == MAX_ATTEMPTS:
                    raise
                recovered.append(self._recover(step, exc))
                st.retried += 1
                if issued:
                    earlier.append(offset)
                    offset = self._next_offset(step)
                continue
            # A scratch file's timing says nothing about the simulated drive: only a real
            # drive's completion time bounds how long the request ran.
            host_s = io_result.duration_ns * 1e-9 if isinstance(self.bench.config, RealBench) else None
            verdict, warnings, window = judge(record, host_s)
            t5 = time.perf_counter()
            st.scope_s += t4 - t3
            st.judge_s += t5 - t4
            if verdict == "ok" or attempt == MAX_ATTEMPTS:
                if verdict != "ok":
                    warnings = [f"kept after {attempt} attempts: {verdict}"] + warnings
                    st.flagged += 1
                warnings = self.link_retries(step) + recovered + warnings
                self.commits.submit(to_capture(step, record, io_result, offset, attempt, warnings, earlier))
                st.archive_s += time.perf_counter() - t5  # waiting for the previous commit, if any
                self._early_checks(step, window)
                st.captured += 1
                self.progress(step)
                return
            st.retried += 1
            self.log(f"step {step.id}: {verdict}; retrying")
            self._adjust(step.op, verdict)
            earlier.append(offset)
            offset = self._next_offset(step)
        # Every attempt missed the trigger: nothing to keep, say so and go on.
        st.missed.append(step.id)
        st.notes.append(f"step {step.id} ({step.op} {step.size_bytes} B) never triggered: {'; '.join(last_warnings)}")
        self.progress(step)

    def _recover(self, step: Step, exc: ScopeInstrumentError) -> str:
        reset = exc.code == "settings-changed"
        what = "the scope was reset or power-cycled" if reset else "the scope reported an error"
        note = f"step {step.id}: {what} ({exc.message}); configured it again and took the capture anew"
        self.log(f"step {step.id}: {what}; configuring it again and taking the capture anew")
        self.stats.notes.append(note)
        # Configured again, a bounded number of times: each configure's error check reads
        # (and so clears) the power-on report or the queued error that made it fail.
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self._configured = None
            try:
                self._configure(step.op)
                break
            except ScopeInstrumentError:
                if attempt == MAX_ATTEMPTS:
                    raise
        return note

    def link_retries(self, step: Step | None = None) -> list[str]:
        """The scope-link retries since the last call: logged, counted, returned as warnings."""
        take = getattr(self.bench.scope, "take_retries", None)
        notes = take() if take is not None else []
        for text in notes:
            self.log(f"step {step.id}: {text}" if step is not None else text)
        self.stats.link_retries += len(notes)  # one sentence per retry
        return notes

    def _early_checks(self, step: Step, window) -> None:
        """After the first writes, say what the analysis would warn about, while it can still be fixed."""
        if self._checked or step.op != "write" or not np.isfinite(window.duration_s[0]):
            return
        self._seen.append((step.size_bytes, float(window.duration_s[0]), float(window.baseline_a[0]),
                           float(window.post_a[0]), float(window.level_noise_a[0])))
        if len(self._seen) < EARLY_CHECK_CAPTURES:
            return

        self._checked = True
        size, duration, base, post, noise = (np.array(col) for col in zip(*self._seen))
        for w in (check_write_cache(size, duration), check_standby_tail(base, post, noise)):
            if w is not None:
                # Said early and short, while it can be fixed; the summary gives the figure from all captures.
                self.log(f"warning: {w.kind.replace('-', ' ')} suspected from the first {len(self._seen)} "
                         "writes (details at the end)")
                self.stats.notes.append(w.text())

    def _next_offset(self, step: Step) -> int:
        if step.op == "read":
            return step.offset_bytes  # reading the same written LBAs again changes nothing on the drive
        return self.spare.allocate(step.size_bytes)

    def _adjust(self, op: str, verdict: str) -> None:
        s = self.settings[op]
        if verdict == "clipped":
            from charz.session._autoset import round_scale_up  # lazy: pyvisa

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
        try:
            for step in steps:
                if step.id in done:
                    continue
                if step.op == "fill":
                    self.fill(step)
                else:
                    self.capture(step)
        finally:
            # Whatever stops the loop (Ctrl-C, a scope error), the capture already taken is kept.
            self.commits.flush()
            self.stats.wall_s += time.monotonic() - t_start
        return self.stats

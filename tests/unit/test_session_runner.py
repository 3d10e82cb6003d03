"""The capture loop's retry paths, on a scripted scope and a recording host: no trigger,
a clipped record, a record too short for the request, and a step that never triggers.

The records are hand-made pulses (idle, then a request's current), not the simulator's.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from charz.archive import ArchiveWriter, read_archive
from charz.errors import TriggerTimeout
from charz.scope import ScopeSettings
from charz.scope._record import Record
from charz.session import MockBench, RealBench
from charz.session._plan import MIB, Step
from charz.session._run import MAX_ATTEMPTS, Runner
from charz.workload import FreshLbaAllocator

pytestmark = pytest.mark.unit

N = 2000
DT = 2e-6
SETTINGS = ScopeSettings(vertical_scale=0.1, record_length=N, sample_interval_s=DT, width_bytes=1)


def pulse(start: int = 400, stop: int = 900, idle: int = 10, active: int = 60, seed: int = 0) -> Record:
    """8-bit codes: idle, then the request from ``start`` to ``stop`` (sample indices)."""
    rng = np.random.default_rng(seed)
    codes = np.full(N, idle, dtype=np.int16)
    codes[start:stop] = active
    codes = np.clip(codes + rng.integers(-1, 2, N), -128, 127).astype(np.int8)
    return Record(codes, 4e-3, 0.0, 0.0, DT, -0.2 * N * DT, unit="A", source="CH1", code_min=-128,
                  code_max=127, description="hand-made pulse")


CLIPPED = pulse(active=127)
# Still running when the record ends: a flat level to the end, which the waveform alone
# cannot tell from a standby tail; the host's completion time tells.
TRUNCATED = pulse(stop=N)


class ScriptedScope:
    """Answers each acquisition from a script: a Record, or "timeout" for no trigger."""

    model = SimpleNamespace(record_lengths=(N, 5 * N))

    def __init__(self, script):
        self.script = list(script)
        self.configured: list[ScopeSettings] = []
        self._next = None

    def configure(self, settings):
        self.configured.append(settings)

    def arm(self):
        self._next = self.script.pop(0)

    def wait(self, timeout_s):
        if self._next == "timeout":
            raise TriggerTimeout("no trigger within the timeout")

    def fetch(self, max_clipped_fraction=1.0):
        return self._next


class RecordingIO:
    """Records each request; each takes the next of ``durations_s`` as the host sees it."""

    max_request_bytes = MIB

    def __init__(self, durations_s=()):
        self.requests: list[tuple[str, int, int]] = []
        self.durations_s = list(durations_s)

    def _do(self, op, size, offset, before_io):
        if before_io is not None:
            before_io(op, size, offset)
        self.requests.append((op, size, offset))
        ns = int((self.durations_s.pop(0) if self.durations_s else 500e-6) * 1e9)
        return SimpleNamespace(t_start_ns=1, t_end_ns=1 + ns, wall_start_ns=3, duration_ns=ns)

    def write(self, size, offset, before_io=None):
        return self._do("write", size, offset, before_io)

    def read(self, size, offset, before_io=None):
        return self._do("read", size, offset, before_io)


SPARE_START = 64 * MIB
# The runner tells a real bench from the mock by the bench's type, so the tests hand it the real types.
BENCHES = {"real": RealBench(target="/dev/null", scope_resource="TCPIP::192.0.2.1::4000::SOCKET", trigger_timeout_s=0.1),
           "mock": MockBench(target="/tmp/scratch", target_is_scratch=True, preset="any", trigger_timeout_s=0.1)}


def run(tmp_path, script, steps, *, kind="mock", durations_s=()):
    told: list[tuple[str, int, int]] = []
    bench = SimpleNamespace(scope=ScriptedScope(script), io=RecordingIO(durations_s),
                            config=BENCHES[kind],
                            notify=lambda op, size, offset: told.append((op, size, offset)))
    with ArchiveWriter.create(tmp_path / "s", {}) as writer:
        runner = Runner(bench, writer, write_settings=SETTINGS, read_settings=replace(SETTINGS, sample_interval_s=4e-6),
                        spare=FreshLbaAllocator(128 * MIB, start_bytes=SPARE_START))
        stats = runner.run(steps, set())
    return stats, bench, told, read_archive(tmp_path / "s").captures


def test_a_clean_step_is_kept_at_its_planned_offset(tmp_path):
    stats, bench, told, (cap,) = run(tmp_path, [pulse()], [Step(0, "write", 8192, 0)])
    assert (stats.captured, stats.retried, stats.flagged, stats.missed) == (1, 0, 0, [])
    assert cap.offset_bytes == 0 and cap.extra["attempt"] == 1 and cap.extra["earlier_attempt_offsets_bytes"] == []
    assert told == bench.io.requests == [("write", 8192, 0)]


def test_no_trigger_retries_on_fresh_lbas_and_records_where_it_wrote(tmp_path):
    stats, bench, told, (cap,) = run(tmp_path, ["timeout", pulse()], [Step(0, "write", 8192, 0)])
    assert (stats.captured, stats.retried, stats.missed) == (1, 1, [])
    # The second attempt never rewrites the first one's LBAs: it takes them from the spare region.
    assert [r[2] for r in bench.io.requests] == [0, SPARE_START]
    assert cap.offset_bytes == SPARE_START and cap.extra["attempt"] == 2
    assert cap.extra["earlier_attempt_offsets_bytes"] == [0]
    assert told == bench.io.requests  # the mock hears of every request, failed ones too


def test_a_clipped_record_is_retaken_at_a_larger_scale(tmp_path):
    stats, bench, _, (cap,) = run(tmp_path, [CLIPPED, pulse()], [Step(0, "write", 8192, 0)])
    assert (stats.captured, stats.retried, stats.flagged) == (1, 1, 0)
    scales = [s.vertical_scale for s in bench.scope.configured]
    assert len(scales) == 2 and scales[1] > scales[0]
    assert any("clipped" in note for note in stats.notes)
    assert not any("clipped" in w.lower() for w in cap.warnings)


def test_a_request_the_host_saw_outlast_the_record_gets_a_longer_record(tmp_path):
    # The record covers 3.2 ms after the trigger; the drive took 5 ms to complete the write.
    stats, bench, _, (cap,) = run(tmp_path, [TRUNCATED, pulse()], [Step(0, "write", 8192, 0)], kind="real",
                                  durations_s=[5e-3, 1e-3])
    assert stats.retried == 1 and cap.extra["attempt"] == 2
    assert [s.record_length for s in bench.scope.configured] == [N, 5 * N]
    assert any("request outlasted the record" in note for note in stats.notes)


def test_on_the_mock_bench_the_scratch_files_timing_is_not_the_drives(tmp_path):
    # A slow scratch file write says nothing about the simulated drive: no retry for it.
    stats, _, _, _ = run(tmp_path, [pulse()], [Step(0, "write", 8192, 0)], kind="mock", durations_s=[50e-3])
    assert stats.retried == 0


def test_a_step_that_keeps_clipping_is_kept_flagged(tmp_path):
    stats, _, _, (cap,) = run(tmp_path, [CLIPPED] * MAX_ATTEMPTS, [Step(0, "write", 8192, 0)])
    assert (stats.captured, stats.flagged, stats.retried) == (1, 1, MAX_ATTEMPTS - 1)
    assert cap.warnings[0] == f"kept after {MAX_ATTEMPTS} attempts: clipped"
    assert len(cap.extra["earlier_attempt_offsets_bytes"]) == MAX_ATTEMPTS - 1


def test_a_step_that_never_triggers_is_missed_and_the_loop_goes_on(tmp_path):
    steps = [Step(0, "write", 8192, 0), Step(1, "write", 4096, 8192)]
    stats, _, _, caps = run(tmp_path, ["timeout"] * MAX_ATTEMPTS + [pulse()], steps)
    assert stats.missed == [0] and stats.captured == 1
    assert "step 0 (write 8192 B) never triggered" in stats.notes[-1]
    assert [c.step for c in caps] == [1]


def test_reads_retry_at_the_same_lbas(tmp_path):
    # Reading the same written LBAs again changes nothing on the drive: no spare space spent.
    stats, bench, _, (cap,) = run(tmp_path, ["timeout", pulse()], [Step(0, "read", 4096, 1 * MIB)])
    assert [r[2] for r in bench.io.requests] == [MIB, MIB] and cap.offset_bytes == MIB

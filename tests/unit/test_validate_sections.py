"""The sweep's fio sections (checked from real fio JSON) and the bench's averaging logic (fake scope)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from charz.errors import ClippedWaveform, UsageError, WorkloadError
from charz.scope import Record
from charz.validate import average_current, averaging_settings
from charz.validate._sections import by_hand, section_env, section_job
from charz.workload import parse_fio_json

pytestmark = pytest.mark.unit

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fio" / "recsize-sweep-4m.json"
MIB = 1 << 20


def one_section(index: int = 3):
    """The fixture's 32 KiB job alone, as recsize-one.fio reports one record size."""
    doc = json.loads(FIXTURE.read_text())
    doc["jobs"] = [doc["jobs"][index]]
    return parse_fio_json(json.dumps(doc))


def test_a_real_section_passes():
    job = section_job(one_section(), 32768, 4 * MIB)
    assert (job.write.total_ios, job.write.io_bytes) == (128, 4 * MIB)


@pytest.mark.parametrize("record, size, match", [
    (65536, 4 * MIB, "in 128 I/Os .* expected 4194304 B in 64 writes"),  # another record size than asked
    (32768, 8 * MIB, "expected 8388608 B"),         # fio stopped early / target too small
])
def test_a_wrong_section_is_a_workload_error(record, size, match):
    with pytest.raises(WorkloadError, match=match):
        section_job(one_section(), record, size)


def test_two_jobs_are_refused():
    with pytest.raises(WorkloadError, match="one job"):
        section_job(parse_fio_json(FIXTURE.read_text()), 4096, 4 * MIB)


def test_the_job_file_variables_and_the_line_to_run_by_hand():
    assert section_env(4096, 128 * MIB) == {"SWEEP_SIZE": "134217728", "RECORD_SIZE": "4096"}
    line = by_hand("/dev/sdz", 4096, MIB)
    assert line.startswith("TARGET=/dev/sdz SWEEP_SIZE=1048576 RECORD_SIZE=4096 fio --output-format=json ")
    assert line.endswith("workloads/recsize-one.fio")


class FakeScope:
    """Records of a constant current; ``section`` says how many arms happen while fio runs."""

    def __init__(self, levels_a, *, clipped: bool = False):
        self.levels = list(levels_a)
        self.calls: list[str] = []
        self.clipped = clipped

    def configure(self, settings):
        self.settings = settings
        self.calls.append("configure")
        return settings

    def arm(self):
        self.calls.append("arm")

    def force_trigger(self):
        self.calls.append("force")

    def wait(self, timeout_s):
        self.calls.append("wait")
        return 0.0

    def fetch(self, *, max_clipped_fraction=0.0):
        self.calls.append("fetch")
        if self.clipped:
            raise ClippedWaveform("CH1: 3 % of the points at the ADC limits")
        level = self.levels.pop(0)
        codes = np.full(self.settings.record_length, int(round(level / 0.001)), dtype=np.int16)
        return Record(codes, 0.001, 0.0, 0.0, self.settings.sample_interval_s, 0.0, unit="A", source="CH1",
                      code_min=-32768, code_max=32767, description="fake")


def running_for(n_checks: int):
    """True for the first ``n_checks`` calls, then False (the fio section ended)."""
    state = {"n": 0}

    def running() -> bool:
        state["n"] += 1
        return state["n"] <= n_checks
    return running


def test_records_that_end_after_the_section_are_discarded():
    scope = FakeScope([0.40, 0.42, 0.90])
    # checks: loop 1 (T), inside 1 (T), loop 2 (T), inside 2 (T), loop 3 (T), inside 3 (F: fio ended), loop 4 (F)
    avg = average_current(scope, averaging_settings(record_length=100), running=running_for(5))
    assert avg.records == 2 and avg.discarded == 1
    assert avg.mean_a == pytest.approx(0.41) and avg.sem_a == pytest.approx(0.01)
    assert scope.calls[:5] == ["configure", "arm", "force", "wait", "fetch"]


def test_a_section_shorter_than_one_record_has_no_mean():
    avg = average_current(FakeScope([0.5]), averaging_settings(record_length=100), running=running_for(1))
    assert avg.mean_a is None and avg.records == 0 and avg.discarded == 1


def test_max_records_and_a_single_record():
    avg = average_current(FakeScope([0.3] * 5), averaging_settings(record_length=100), running=lambda: True,
                          max_records=1)
    assert avg.records == 1 and avg.mean_a == pytest.approx(0.3) and avg.sem_a is None


def test_clipping_says_what_to_change():
    with pytest.raises(ClippedWaveform, match="ADC limits") as info:
        average_current(FakeScope([], clipped=True), averaging_settings(), running=lambda: True)
    assert "--vertical-scale" in info.value.hint


def test_averaging_settings_are_checked():
    s = averaging_settings(channel="ch2", vertical_scale_a=0.5, record_length=10_000, sample_interval_s=1e-4)
    assert (s.channel, s.window_s, s.trigger_mode, s.width_bytes) == ("CH2", 1.0, "auto", 2)
    with pytest.raises(UsageError):
        averaging_settings(vertical_scale_a=-1.0)
    with pytest.raises(UsageError, match="max_records"):
        average_current(FakeScope([]), replace(s), running=lambda: True, max_records=0)

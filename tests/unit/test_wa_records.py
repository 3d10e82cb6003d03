"""charz.wa's typed settings, steps and records; the request built without Typer; the bench protocol.

The archive in ``tests/fixtures/wa_archive_v1`` was written by charz before these types
existed (``charz wa run --mock --volume 4m --files wa-w100-rd-align.fio --sizes 4k
--subtests 2`` at commit 8588f61): it is the outside truth that old archives still read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from charz.archive import read_wa_archive
from charz.errors import UsageError
from charz.logic import LogicSpec
from charz.wa import (
    BENCH_SETTLE_S,
    DeviceWaBench,
    FileWaBench,
    HostVolume,
    MockOptions,
    WaBench,
    WaRequest,
    WaSettings,
    WaStep,
)

OLD = Path(__file__).parent.parent / "fixtures" / "wa_archive_v1"


def test_an_archive_written_before_the_types_reads_and_writes_back_the_same_json():
    settings, records = read_wa_archive(OLD)
    s = WaSettings.from_dict(settings)
    assert [st.kind for st in s.plan] == ["calibrate", "benchmark", "subtest", "subtest"]
    assert s.plan[3].subtest == 1 and s.plan[3].op_percent is None and s.plan[0].bs is None
    assert s.geometry.dies == 4 and s.windows.program_us == (200.0, 2200.0)
    again = s.to_dict()
    assert again == {k: settings[k] for k in again}  # every key this charz writes, as the old one wrote it
    for r in records.values():
        assert WaStep.from_dict(r["step"]).to_dict() == r["step"]


def test_a_recorded_step_keeps_its_host_volume_and_layout():
    d = {"kind": "calibrate", "recorded": True, "file": "/x/a.sr", "input_format": None, "label": "a.sr",
         "volume": {"host_bytes": None, "fio_json": None, "blockstat": ["/x/b", "/x/a"]}}
    step = WaStep.from_dict(d)
    assert step.host_volume == HostVolume(blockstat=("/x/b", "/x/a")) and step.recorded
    assert step.to_dict() == d
    assert json.loads(json.dumps(step.to_dict())) == d


def test_a_step_of_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="calibrate, benchmark, subtest"):
        WaStep("erase", "x.fio")


def test_the_request_is_checked_without_typer(tmp_path):
    with pytest.raises(UsageError, match="exactly one of --mock and --device"):
        WaRequest.build()
    with pytest.raises(UsageError, match="exactly one"):
        WaRequest.build(mock=MockOptions(), device=Path("/dev/null"))
    with pytest.raises(UsageError, match="--device needs --logic"):
        WaRequest.build(device=Path("/dev/sdx"), channels=1, chips=1, dies=1, page_size="4k")
    with pytest.raises(UsageError, match="micron, intel or nvme"):
        WaRequest.build(mock=MockOptions(counters="samsung"))
    with pytest.raises(UsageError, match="LOW,HIGH"):
        WaRequest.build(mock=MockOptions(), program_window="200")
    with pytest.raises(UsageError, match="nothing to run"):
        WaRequest.build(mock=MockOptions(), benchmarks=False, mp=2)
    with pytest.raises(UsageError, match="needs --channels"):
        WaRequest.build(device=Path("/dev/sdx"), logic="demo:D0")


def test_the_mock_request_takes_the_mock_s_stop_rule_and_the_bench_one_000_s():
    req = WaRequest.build(mock=MockOptions(), mock_stop_rule=(0.05, 20.0), volume="8m", sizes="4k,8k",
                          files="wa-w100-rd-align.fio", samplerate="100k", out=Path("o"))
    assert (req.settle_s, req.min_gap_us, req.settle_timeout_s) == (0.05, 20.0, 300.05)
    assert [(s.kind, s.bs, s.volume) for s in req.plan] == [("calibrate", None, 8 << 20), ("benchmark", 4096, 8 << 20),
                                                            ("benchmark", 8192, 8 << 20)]
    assert req.samplerate_hz == 100e3 and req.geometry is None
    bench = WaRequest.build(device=Path("/dev/sdx"), logic="demo:D0,D1", channels=2, chips=1, dies=2,
                            page_size="16k", mp=2, settle=10, out=Path("o"))
    assert bench.settle_s == 10 and bench.min_gap_us == 10.0 and bench.logic.bits == (0, 1)
    assert bench.geometry.dies == 4 and bench.geometry.page_size.value == 16384
    assert any("shorter than 000's" in n for n in bench.notes)
    assert BENCH_SETTLE_S == 300.0
    s = bench.settings({"kind": "device"})
    assert s.geometry is bench.geometry and s.bench == {"kind": "device"} and s.m_p_given == 2


def test_the_device_and_file_benches_answer_the_protocol():
    spec = LogicSpec("demo", "D0", 0, ("D0",), (0,))
    dev = DeviceWaBench(None, {}, {}, spec, 1e5, 1.0)
    assert isinstance(dev, WaBench) and isinstance(FileWaBench(["D0"]), WaBench)


def test_the_mock_bench_answers_the_protocol(tmp_path):
    from charz.sim import MockWaBench, mock_config  # the simulator: tests may import it
    assert isinstance(MockWaBench(mock_config(), tmp_path, samplerate_hz=1e5, settle_s=0.05), WaBench)


def test_every_record_of_an_old_archive_reads_typed_and_writes_back_the_same_json():
    from charz.wa import read_wa

    _, stored = read_wa_archive(OLD)
    settings, records = read_wa(OLD)
    assert sorted(records) == sorted(stored) == [0, 1, 2, 3]
    # 000 §3.5 on a fresh drive: WA with M_p = 1 is 1/2, so M_p is 2 and the true WA 1
    assert records[0].m_p.value == 2 and records[0].m_p.details["wa_mp1"] == pytest.approx(0.5, abs=0.05)
    assert records[0].estimate.wa.value == pytest.approx(1.0, abs=0.1)
    assert all(r.trusted for r in records.values()) and records[3].step.subtest == 1
    for i, r in records.items():
        assert {"index": i, **r.to_dict()} == stored[i]

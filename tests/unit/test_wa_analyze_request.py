"""``charz wa analyze``'s options checked without a command line: plain values in, a request
(one recorded step per file) or a UsageError out.

What is expected is written from the command's help and 000's text (§3.5's calibration run
first, §4.2's 300 s settle, Eq. 7's geometry and L_Volume_Data per step), not from charz's
defaults."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from charz.errors import UsageError
from charz.wa import HostVolume, WaAnalyzeRequest

pytestmark = pytest.mark.unit

GEOMETRY = dict(channels=2, chips=1, dies=1, page_size="16k")  # two dies in all (Eq. 7)


def recordings(tmp_path: Path, n: int) -> list[Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    files = []
    for k in range(n):
        f = tmp_path / f"step{k}.sr"
        f.write_bytes(b"PK")  # only its existence is checked here; sigrok-cli reads it later
        files.append(f)
    return files


def build(tmp_path, n=2, **kw) -> WaAnalyzeRequest:
    kw = {"mp": 2, "host_bytes": ["128m"] * n, **GEOMETRY, **kw}
    return WaAnalyzeRequest.build(recordings(tmp_path, n), **kw)


def test_each_file_is_one_recorded_step_with_its_own_host_volume(tmp_path):
    req = build(tmp_path, 2, host_bytes=["128m", "64m"], input_format="vcd")
    assert [s.kind for s in req.plan] == ["benchmark", "benchmark"]
    assert all(s.recorded and s.input_format == "vcd" for s in req.plan)
    assert [s.label for s in req.plan] == ["step0.sr", "step1.sr"]
    assert [s.host_volume for s in req.plan] == [HostVolume(host_bytes=128 << 20), HostVolume(host_bytes=64 << 20)]
    assert req.m_p_given == 2 and req.channels == ("D0",)


def test_the_calibration_recording_comes_first(tmp_path):
    req = build(tmp_path, 3, mp=None, calibration=True)
    assert [s.kind for s in req.plan] == ["calibrate", "benchmark", "benchmark"]
    assert req.m_p_given is None


@pytest.mark.parametrize("kw, message", [
    (dict(mp=None), "give --mp N, or --calibration"),
    (dict(calibration=True), "--mp and --calibration both set M_p"),
    (dict(channel="D0,D0"), "--channel names each R/B channel once"),
    (dict(channel=" , "), "--channel names each R/B channel once"),
    (dict(host_bytes=["1m"]), "2 files but 1 --host-bytes"),
    (dict(host_bytes=[], fio_json=[Path("a.json")] * 2, blockstat=["a,b"] * 2), "give the host's written bytes one way"),
    (dict(host_bytes=[]), "give the host's written bytes one way"),
    (dict(host_bytes=[], blockstat=["before", "after"]), "--blockstat wants BEFORE,AFTER"),
    (dict(program_window="200"), "a window is 'LOW,HIGH'"),
    (dict(settle=-1.0), "--settle is a time"),
    (dict(min_gap=0.0), "--min-gap is a time > 0"),
    (dict(channels=None), "Eq. 7 needs --channels"),
    (dict(channel="D0,D1,D2"), "3 dies counted but the geometry has 2"),
])
def test_bad_options_are_refused_with_what_to_give(tmp_path, kw, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        build(tmp_path, 2, **kw)


def test_a_missing_recording_is_named(tmp_path):
    with pytest.raises(UsageError, match="nowhere.sr: no such file"):
        WaAnalyzeRequest.build([tmp_path / "nowhere.sr"], mp=1, host_bytes=["1m"], **GEOMETRY)


def test_the_stop_rule_and_one_die_of_several_are_said(tmp_path):
    req = build(tmp_path, 1, settle=10.0)
    assert req.settle_s == 10.0
    assert any("shorter than 000's 300 s" in n for n in req.notes)
    assert any("shortest high gap between two operations assumed" in n for n in req.notes)
    assert any("one die of 2 counted" in n and "--channel D0,D1" in n for n in req.notes)
    assert not any("one die of" in n for n in build(tmp_path / "two", 1, channel="D0,D1").notes)


def test_settings_carry_the_bench_and_no_settle_timeout(tmp_path):
    req = build(tmp_path, 1, out=tmp_path / "wa")
    settings = req.settings({"kind": "files"})
    assert settings.bench == {"kind": "files"} and settings.settle_timeout_s is None
    assert settings.plan == req.plan and settings.geometry == req.geometry
    assert req.out == tmp_path / "wa"
    stamped = WaAnalyzeRequest.build(recordings(tmp_path / "x", 1), mp=1, host_bytes=["1m"], **GEOMETRY,
                                     now=datetime.datetime(2026, 11, 27, 9, 5, 3))
    assert stamped.out == Path("runs") / "wa-20261127-090503"

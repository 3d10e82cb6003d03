"""Resuming a WA run: after a sigrok-cli that failed mid-run, and inside a sub-test series (replay)."""

from __future__ import annotations

import json
import shutil

import pytest

from charz.analysis._pulses import WINDOWS_MLC
from charz.archive._wa import WaArchive, read_wa_archive
from charz.errors import LogicError
from charz.session._wa_run import build_plan, run_plan
from charz.sim._wa_bench import MockWaBench, mock_config

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

RATE = 100_000.0


def settings(plan, **kw):
    return {"plan": plan, "windows": WINDOWS_MLC.to_dict(), "samplerate_hz": RATE, "settle_s": 0.02,
            "settle_timeout_s": 5.0, **kw}


def test_failed_sigrok_keeps_partial_counts_and_resume_runs_the_step_again(tmp_path):
    plan = build_plan(volume_bytes=8 << 20, files=("wa-w100-rd-align.fio",), sizes=(4096, 8192))
    root = tmp_path / "wa"
    with WaArchive.create(root, settings(plan)) as a:
        run_plan(a, MockWaBench(mock_config(), tmp_path / "sr", samplerate_hz=RATE, settle_s=0.02),
                 log=lambda t: None)
    good = read_wa_archive(root)[1]

    root2 = tmp_path / "wa2"
    broken = MockWaBench(mock_config(), tmp_path / "sr2", samplerate_hz=RATE, settle_s=0.02,
                         sigrok=shutil.which("false"))
    with WaArchive.create(root2, settings(plan)) as a:
        with pytest.raises(LogicError, match="step 0"):
            run_plan(a, broken, log=lambda t: None)
    partial = json.loads((root2 / "steps" / "0000.partial.json").read_text())
    assert any("exited with code 1" in e for e in partial["errors"])
    assert read_wa_archive(root2)[1] == {}  # nothing committed: the step runs again on resume
    with WaArchive.resume(root2) as a:
        run_plan(a, MockWaBench(mock_config(), tmp_path / "sr3", samplerate_hz=RATE, settle_s=0.02),
                 log=lambda t: None)
    again = read_wa_archive(root2)[1]
    assert [r["counts"]["programs"] for r in again.values()] == [r["counts"]["programs"] for r in good.values()]


def test_resume_inside_a_subtest_series_replays_the_drive(tmp_path):
    plan = build_plan(volume_bytes=24 << 20, benchmarks=False, calibrate=False, subtests=4)
    root = tmp_path / "full"
    with WaArchive.create(root, settings(plan, m_p_given=2)) as a:
        run_plan(a, MockWaBench(mock_config(), tmp_path / "s1", samplerate_hz=RATE, settle_s=0.02),
                 log=lambda t: None)
    full = read_wa_archive(root)[1]
    # a run killed after two sub-tests: its archive holds exactly those records
    cut = tmp_path / "cut"
    with WaArchive.create(cut, settings(plan, m_p_given=2)) as a:
        for i in (0, 1):
            rec = {k: v for k, v in full[i].items() if k != "index"}
            a.commit(i, rec)
    with WaArchive.resume(cut) as a:  # a new process: a new simulated drive, replayed to sub-test 3
        run_plan(a, MockWaBench(mock_config(), tmp_path / "s2", samplerate_hz=RATE, settle_s=0.02),
                 log=lambda t: None)
    resumed = read_wa_archive(cut)[1]
    for i in (2, 3):
        assert resumed[i]["counts"]["programs"] == full[i]["counts"]["programs"]
        assert resumed[i]["truth"]["true_wa"] == full[i]["truth"]["true_wa"]
    assert full[0]["estimate"]["wa"]["value"] == max(r["estimate"]["wa"]["value"] for r in full.values())


def test_single_plane_mock_calibrates_to_mp_1(tmp_path):
    plan = build_plan(volume_bytes=8 << 20, benchmarks=False)
    root = tmp_path / "sp"
    with WaArchive.create(root, settings(plan)) as a:
        run_plan(a, MockWaBench(mock_config(multi_plane=False), tmp_path / "s", samplerate_hz=RATE,
                                settle_s=0.02), log=lambda t: None)
    rec = read_wa_archive(root)[1][0]
    assert rec["m_p"]["value"] == 1 and rec["estimate"]["wa"]["value"] == pytest.approx(1.0, abs=0.01)

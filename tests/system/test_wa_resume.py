"""Resuming a WA run: after a sigrok-cli that failed mid-run, and inside a sub-test series (replay)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from charz.analysis import WaGeometry
from charz.analysis._pulses import WINDOWS_MLC
from charz.archive._wa import WaArchive, read_wa_archive
from charz.errors import LogicError
from charz.wa import build_plan, run_plan
from charz.sim import MockWaBench, mock_config

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

RATE = 100_000.0


def settings(plan, **kw):
    """As ``charz wa run --mock`` writes them: Eq. 7's geometry is the simulated drive's."""
    cfg = mock_config()
    geometry = WaGeometry.given(cfg.channels, cfg.chips_per_channel, cfg.dies_per_chip, cfg.page_size)
    return {"plan": [s.to_dict() for s in plan], "windows": WINDOWS_MLC.to_dict(), "samplerate_hz": RATE,
            "settle_s": 0.02, "settle_timeout_s": 5.0, "geometry": geometry.to_dict(), **kw}


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


# -- a bench run (real fio on a loop device, real sigrok-cli's demo analyser), killed and resumed --

@pytest.mark.root
def test_bench_run_killed_after_a_step_resumes_on_the_same_drive_only(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from conftest_device import LoopDevice, need_root, need_tools
    need_root()
    need_tools("losetup", "fio")
    charz = [str(Path(sys.executable).parent / "charz")]
    (tmp_path / "d").mkdir()
    (tmp_path / "e").mkdir()
    loop = LoopDevice(tmp_path / "d", size_bytes=64 << 20)
    other = LoopDevice(tmp_path / "e", size_bytes=48 << 20)  # loops have no serial: told by size
    try:
        out = tmp_path / "bench"
        # three steps of 4 MiB each; the demo pattern never settles, so each step lasts the
        # settle timeout (2 s) after fio: time enough to kill the run inside step 1
        args = ["wa", "run", "--device", loop.path, "--logic", "demo:analog_channels=0:D0", "--channels", "4",
                "--chips", "1", "--dies", "1", "--page-size", "4k", "--mp", "1", "--volume", "4m", "--sizes",
                "4k,8k,16k", "--files", "wa-w100-sq-align.fio", "--settle", "0.01", "--settle-timeout", "2",
                "--confirm-serial", loop.kname, "--out", str(out), "--samplerate", "100k", "--quiet"]
        proc = subprocess.Popen([*charz, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out / "steps" / "0000.json").exists():
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = read_wa_archive(out)[1]
        assert list(before) == [0], "killed inside step 1"

        # another drive is refused before anything is written to it or to the archive
        p = subprocess.run([*charz, "wa", "resume", str(out), "--device", other.path, "--confirm-serial",
                            other.kname, "--quiet"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "not the drive this run measured" in p.stderr, p.stdout + p.stderr
        assert "size_bytes 50331648" in p.stderr
        assert list(read_wa_archive(out)[1]) == [0]

        # with the progress bars (not --quiet): the step's bar reads the loop device's written sectors
        p = subprocess.run([*charz, "wa", "resume", str(out), "--confirm-serial", loop.kname],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 4, p.stdout + p.stderr  # the demo pattern has no program pulse: untrusted, kept
        assert "resuming" in p.stdout and "step 1 restarts" in p.stdout
        assert "2/2" in p.stderr and max(len(line) for line in p.stderr.splitlines()) <= 80
        after = read_wa_archive(out)[1]
        assert sorted(after) == [0, 1, 2] and after[0] == before[0]
        for i, bs in ((1, 8192), (2, 16384)):
            r = after[i]
            assert r["job"]["block_size"] == bs
            assert r["logical_bytes"] == 4 << 20 and r["u_logical_bytes"] == 0, r["volume_evidence"]
            fio = json.loads((out / "steps" / r["fio_json_file"]).read_text())
            assert fio["jobs"][0]["write"]["io_bytes"] == 4 << 20 and fio["global options"]["bs"] == str(bs)
    finally:
        other.close()
        loop.close()


@pytest.mark.parametrize("index", [0, 1, 3])  # the calibration, a benchmark, the second sub-test
def test_an_archive_written_before_charz_wa_s_types_resumes_to_the_same_record(tmp_path, index):
    """tests/fixtures/wa_archive_v1 was written by charz at 8588f61 (before charz.wa's typed
    records): a step of it, run again by today's executor, is the same JSON document."""
    from charz.sim.ftl import FtlConfig

    root = tmp_path / "old"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "wa_archive_v1", root)
    step = root / "steps" / f"{index:04d}.json"
    stored = json.loads(step.read_text())
    step.unlink()
    s = json.loads((root / "wa.json").read_text())
    cfg = FtlConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in s["bench"]["ftl"].items()})
    with WaArchive.resume(root) as a:
        run_plan(a, MockWaBench(cfg, tmp_path / "sr", samplerate_hz=s["samplerate_hz"], settle_s=s["settle_s"],
                                counters=s["bench"]["counters"]), log=lambda t: None)
    assert json.loads(step.read_text()) == stored

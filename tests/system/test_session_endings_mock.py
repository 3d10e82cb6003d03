"""Issue 25 (3): how a mock-bench session ends, as a person meets it.

A full disk is named as one (on the scratch file or on the archive) with the resume line;
a session directory can be moved and resumed from anywhere, its scratch file given anew
(``resume --scratch``); a run that ends with captures missing exits non-zero and says so;
a scope-link stop prints the "N of M captures kept; continue with" line.  ``charz`` runs
as a user runs it (a child process); the small file systems are real tmpfs mounts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.system]

SWEEP = ["--mock", "--preset", "mxp", "--sizes", "4k:32k:4k", "--read-sizes", "none", "--repeats", "2",
         "--no-analyze", "--quiet", "--scope-timeout", "0.5"]  # 16 captures; lost replies waited out 0.5 s, not 2


def charz(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "charz", *argv], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def captures(out: Path) -> int:
    return len(list((out / "captures").glob("[0-9]*.json")))


@pytest.fixture
def small_fs(tmp_path):
    """A tmpfs of the given size, unmounted afterwards (root only)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    mounted: list[Path] = []

    def make(size: str) -> Path:
        point = tmp_path / f"fs{len(mounted)}"
        point.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], check=True)
        mounted.append(point)
        return point

    yield make
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_no_room_for_the_scratch_file_is_disk_full_and_resume_scratch_goes_on(small_fs, tmp_path):
    out = small_fs("40m") / "run"  # the default scratch (inside --out) needs ~100 MiB
    p = charz("characterize", *SWEEP, "--out", str(out))
    assert p.returncode == 7, p.stderr
    assert "disk full: the scratch file needs" in p.stderr and "short write" not in p.stderr
    assert f"stopped: 0 of 16 captures kept; continue with: charz resume {out}" in p.stderr
    assert not (out / "scratch.bin").exists()  # not left behind, taking the space
    elsewhere = tmp_path / "scratch.bin"
    done = charz("resume", str(out), "--scratch", str(elsewhere), "--no-analyze")
    assert done.returncode == 0, done.stderr
    assert captures(out) == 16 and f"scratch file: {elsewhere}" in done.stderr
    change = json.loads((out / "session.json").read_text())["bench"]["changes"][-1]
    assert (change["field"], change["from"], change["to"]) == ("target", "scratch.bin", str(elsewhere))


def test_a_full_archive_disk_is_named_and_the_moved_session_resumes(small_fs, tmp_path):
    out = small_fs("160k") / "run"  # room for a few captures of 10 000 points (~16 KiB each)
    scratch = tmp_path / "scratch.bin"
    p = charz("characterize", *SWEEP, "--out", str(out), "--scratch", str(scratch))
    assert p.returncode == 3, p.stderr
    assert re.search(r"disk full: no space left for capture \d+", p.stderr), p.stderr
    kept = captures(out)
    assert 0 < kept < 16
    assert f"stopped: {kept} of 16 captures kept; continue with: charz resume {out}" in p.stderr
    # Moved to a disk with room, the session goes on.
    moved = tmp_path / "moved" / "run"
    shutil.copytree(out, moved)
    done = charz("resume", str(moved), "--no-analyze")
    assert done.returncode == 0, done.stderr
    assert captures(moved) == 16


def test_missed_triggers_end_non_zero_and_resume_takes_them(tmp_path):
    out = tmp_path / "run"
    # every attempt of one capture misses its trigger (3 attempts), the rest go on
    p = charz("characterize", *SWEEP, "--out", str(out), "--mock-fault", "no_trigger:count=3,at_capture=8")
    assert p.returncode == 5, p.stdout + p.stderr
    assert f"incomplete: 15 of 16 captures kept, 1 never captured (no trigger); continue with: charz resume {out}" \
        in p.stderr
    summary = charz("analyze", str(out))
    assert summary.returncode == 0, summary.stderr
    assert "15 of 16 captures used" in summary.stdout and "1 never taken" in summary.stdout
    done = charz("resume", str(out), "--no-analyze")
    assert done.returncode == 0, done.stderr
    assert captures(out) == 16
    assert json.loads((out / "session.json").read_text())["finished"] is True
    again = charz("resume", str(out))
    assert again.returncode == 0 and "is finished: all 16 captures are taken; there is nothing to resume" \
        in again.stderr and "charz analyze" in again.stderr
    assert "captures:" not in again.stdout  # not analysed again unasked


def test_a_scope_link_stop_keeps_the_captures_and_the_moved_session_resumes(tmp_path):
    out = tmp_path / "run"
    p = charz("characterize", *SWEEP, "--out", str(out), "--mock-fault", "no_reply:count=None,at_capture=8")
    assert p.returncode == 5, p.stderr
    kept = captures(out)
    assert kept >= 1
    assert f"stopped: {kept} of 16 captures kept; continue with: charz resume {out}" in p.stderr
    assert "Traceback" not in p.stderr
    # Moved elsewhere and resumed from another working directory: the scratch file is found
    # inside the moved directory (stored by its name), the old path is never used.
    moved = tmp_path / "elsewhere" / "run"
    shutil.move(out, moved)
    assert json.loads((moved / "session.json").read_text())["bench"]["target"] == "scratch.bin"
    done = charz("resume", "run", "--no-analyze", cwd=moved.parent)
    assert done.returncode == 0, done.stderr
    assert captures(moved) == 16 and not out.exists()
    assert not (moved / "scratch.bin").exists()  # the scratch file goes at the end, as always


@pytest.mark.parametrize("fault, says", [
    ("reset:count=1,at_capture=8", "the scope was reset or power-cycled"),
    ("reset:power_cycle=true,count=1,at_capture=8", "the scope was reset or power-cycled"),
    ("error_queue:count=1,at_capture=8", "the scope reported an error"),
    # at the set-up: the autoset's configure meets the error, and the autoset runs again
    ("error_queue:count=1,match=HORizontal:SCAle", "autoset: the scope objected"),
], ids=["reset", "power-cycle", "error-queue", "error-at-set-up"])
def test_a_scope_reset_mid_sweep_is_configured_again_and_the_session_goes_on(tmp_path, fault, says):
    out = tmp_path / "run"
    p = charz("characterize", *[a for a in SWEEP if a != "--quiet"], "--out", str(out), "--mock-fault", fault)
    assert p.returncode == 0, p.stderr
    assert captures(out) == 16
    if says.startswith("autoset"):
        assert f"{says} (" in p.stderr and "running the autoset again" in p.stderr
        return
    assert f"{says}; configuring it again and taking the capture anew" in p.stderr
    warned = [json.loads(r.read_text())["warnings"] for r in (out / "captures").glob("[0-9]*.json")]
    assert sum(any(says in w for w in ws) for ws in warned) == 1  # the capture taken anew says why


def test_intermittent_link_faults_are_ridden_out(tmp_path):
    # 5 % of the scope's replies answer the previous query (the mock's stale_reply), from the start
    out = tmp_path / "run"
    p = charz("characterize", *SWEEP, "--out", str(out), "--mock-fault", "stale_reply:count=None,rate=0.05,seed=3")
    assert p.returncode == 0, p.stderr
    assert captures(out) == 16
    assert json.loads((out / "session.json").read_text())["run"]["link_retries"] >= 1

"""Issue 25 (1, 2): nothing changes on a drive before it is confirmed, and every ending puts
its settings back.

The whole real path on a real loop device: ``charz`` as a user runs it (a child process,
signals from outside), real pyvisa-py to the mock scope over loopback, and the drive's
read-ahead read with the real ``blockdev --getra`` — not with charz — before, during and
after each way a run ends.  The loop device starts at a read-ahead no kernel default has
(``ORIGINAL``), so a value put back by accident cannot pass for the original.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools, run, sha256
from test_session_scope_first import BlockStatProbe as _BlockStatProbe

from charz.sim import SimulatedBench, load_preset
from charz.sim.scope_server import MockScopeServer

pytestmark = [pytest.mark.system, pytest.mark.root]

ORIGINAL = "4104"  # sectors; the loop driver's default is 256 or 5120, never this


class BlockStatProbe(_BlockStatProbe):
    """The probe, for a whole module of runs: fio's flushes (writes of no sectors) draw
    nothing, and are not told."""

    def run(self) -> None:
        from charz.sim.scope_server import MockScopeControl

        with MockScopeControl(self.port) as control:
            last = self._read()
            while not self.stopped.is_set():
                now = self._read()
                if now[0] > last[0] and now[1] > last[1]:
                    control.io("write", (now[1] - last[1]) * 512, 0)
                    self.writes += now[0] - last[0]
                last = now
                time.sleep(0.0005)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """One loop device and one mock scope for the module; the probe tells the mock's drive
    of every write the loop device completes (on a bench the physics does)."""
    need_root()
    need_tools("losetup", "blockdev")
    loop = LoopDevice(tmp_path_factory.mktemp("drive"), size_bytes=128 * MIB)
    try:
        with MockScopeServer(SimulatedBench(load_preset("mxp"))) as server:
            probe = BlockStatProbe(loop.kname, server.control_port)
            probe.start()
            try:
                yield loop, server
            finally:
                probe.stopped.set()
                probe.join()
    finally:
        loop.close()


@pytest.fixture
def drive(bench):
    loop, server = bench
    run("blockdev", "--setra", ORIGINAL, loop.path)
    return loop, server


def getra(loop: LoopDevice) -> str:
    return run("blockdev", "--getra", loop.path).stdout.strip()


def charz_argv(*argv: str) -> list[str]:
    return [sys.executable, "-m", "charz", *argv]


def charz(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(charz_argv(*argv), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def sweep(loop: LoopDevice, resource: str, out: Path, *extra: str) -> list[str]:
    # 15 sizes × 2 repeats: long enough to be stopped mid-sweep, short enough to finish quickly.
    return ["characterize", "--device", loop.path, "--scope", resource, "--channels", "8", "--packages", "16",
            "--page-size", "4k", "--sizes", "4k:60k:4k", "--read-sizes", "none", "--repeats", "2",
            "--out", str(out), "--no-analyze", *extra]


def wait_for(condition, what: str, proc: subprocess.Popen | None = None, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"charz ended ({proc.returncode}) before {what}: {proc.stderr.read()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout_s} s")
        time.sleep(0.005)


def captures(out: Path) -> int:
    return len(list((out / "captures").glob("[0-9]*.json"))) if (out / "captures").exists() else 0


def initializations(out: Path) -> list[dict]:
    return json.loads((out / "session.json").read_text())["bench"].get("initializations", [])


# -- 1. nothing before the confirmation ---------------------------------------------------------

def at_the_prompt(argv: list[str], loop: LoopDevice, answer: str) -> tuple[int, str, str]:
    """Run ``argv`` on a terminal, read the read-ahead while it asks, answer; (exit, read-ahead
    at the prompt, everything it printed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(charz_argv(*argv), stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    try:
        while b"to go on" not in seen:
            assert time.monotonic() < deadline and proc.poll() is None, seen.decode(errors="replace")
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 65536)
        asked = getra(loop)
        os.write(master, answer.encode() + b"\n")
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        return proc.wait(timeout=60), asked, seen.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def test_characterize_refused_at_the_prompt_changes_nothing(drive, tmp_path):
    loop, server = drive
    before = sha256(loop.image)
    code, asked, text = at_the_prompt(sweep(loop, server.resource, tmp_path / "run"), loop, "not-it")
    assert code == 6, text
    assert asked == ORIGINAL and getra(loop) == ORIGINAL
    assert "not confirmed" in text and "nothing was changed" in text
    # The plan is shown in the future tense; no line says a setting changed.
    assert "read-ahead: to be set to 0" in text and "→" not in text
    assert sha256(loop.image) == before


def test_resume_refused_for_want_of_a_terminal_changes_nothing(drive, tmp_path):
    # The case: a resume with a new --scope, refused because nobody can type the name.
    loop, server = drive
    out = tmp_path / "run"
    first = charz(*sweep(loop, "TCPIP::127.0.0.1::9::SOCKET", out, "--confirm-serial", loop.kname))
    assert first.returncode == 5, first.stderr
    before = sha256(loop.image)
    again = charz("resume", str(out), "--scope", server.resource)
    assert again.returncode == 6, again.stderr
    assert getra(loop) == ORIGINAL and sha256(loop.image) == before
    assert "→" not in again.stderr and not initializations(out)


def test_validate_refused_at_the_prompt_changes_nothing(drive):
    need_tools("fio")
    loop, server = drive
    before = sha256(loop.image)
    code, asked, text = at_the_prompt(["validate", "--device", loop.path, "--scope", server.resource,
                                       "--file-size", "2M", "--record-sizes", "4k"], loop, "not-it")
    assert code == 6, text
    assert asked == ORIGINAL and getra(loop) == ORIGINAL and sha256(loop.image) == before


def wa_argv(loop: LoopDevice, out: Path) -> list[str]:
    return ["wa", "run", "--device", loop.path, "--logic", "demo:analog_channels=0:D0", "--channels", "4",
            "--chips", "1", "--dies", "1", "--page-size", "4k", "--mp", "1", "--volume", "4m", "--sizes", "4k",
            "--files", "wa-w100-sq-align.fio", "--settle", "0.01", "--settle-timeout", "2", "--out", str(out)]


def test_wa_run_refused_at_the_prompt_changes_nothing_and_a_run_records_its_restore(drive, tmp_path):
    need_tools("fio", "sigrok-cli")
    loop, _ = drive
    before = sha256(loop.image)
    code, asked, text = at_the_prompt(wa_argv(loop, tmp_path / "wa"), loop, "not-it")
    assert code == 6, text
    assert asked == ORIGINAL and getra(loop) == ORIGINAL and sha256(loop.image) == before
    # Confirmed, the run ends (the demo analyser has no program pulses: exit 4) with the
    # drive put back, and the archive's record says so (it said "restored: []" before).
    done = charz(*wa_argv(loop, tmp_path / "wa2"), "--confirm-serial", loop.kname)
    assert done.returncode == 4, done.stderr
    assert getra(loop) == ORIGINAL
    record = json.loads((tmp_path / "wa2" / "wa.json").read_text())["bench"]["initialization"]
    assert record["state"] == "restored"
    assert [(r["key"], str(r["value"]), r["ok"]) for r in record["restored"]] == [("read_ahead", ORIGINAL, True)]


# -- 2. every ending puts the drive back -------------------------------------------------------

def started(loop: LoopDevice, argv: list[str], stage: str) -> subprocess.Popen:
    """A run at ``stage``: "set-up" (the read-ahead just changed, the scope's autoset to come)
    or "mid-sweep" (a capture is in the archive)."""
    proc = subprocess.Popen(charz_argv(*argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else Path(argv[1])
    wait_for(lambda: getra(loop) == "0", "read-ahead 0", proc)
    if stage == "mid-sweep":
        wait_for(lambda: captures(out) >= 1, "capture", proc)
    return proc


@pytest.mark.parametrize("signum, stage", [(signal.SIGINT, "mid-sweep"), (signal.SIGTERM, "mid-sweep"),
                                           (signal.SIGHUP, "set-up"), (signal.SIGHUP, "mid-sweep")],
                         ids=["SIGINT", "SIGTERM", "SIGHUP-set-up", "SIGHUP-mid-sweep"])
def test_a_signal_stops_cleanly_and_puts_the_read_ahead_back(drive, tmp_path, signum, stage):
    loop, server = drive
    out = tmp_path / "run"
    assert getra(loop) == ORIGINAL
    proc = started(loop, sweep(loop, server.resource, out, "--confirm-serial", loop.kname), stage)
    assert getra(loop) == "0"  # during
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert getra(loop) == ORIGINAL
    assert re.search(rf"stopped: \d+ of 30 captures kept; continue with: charz resume {out}", err), err
    assert "read-ahead: put back to " + ORIGINAL in err and "Traceback" not in err
    last = initializations(out)[-1]
    assert last["state"] == "restored"
    assert [(r["key"], str(r["value"]), r["ok"]) for r in last["restored"]] == [("read_ahead", ORIGINAL, True)]


def test_kill_9_then_resume_puts_back_what_the_first_initialization_found(drive, tmp_path):
    loop, server = drive
    out = tmp_path / "run"
    proc = started(loop, sweep(loop, server.resource, out, "--confirm-serial", loop.kname), "mid-sweep")
    proc.kill()
    proc.communicate(timeout=30)
    assert getra(loop) == "0"  # nobody put it back: the archive says what to
    first = initializations(out)[0]
    assert first["state"] == "applied" and first["to_restore"][0]["value"] == int(ORIGINAL)
    # A resume killed in its own set-up reads charz's 0 as the drive's "before" ...
    again = subprocess.Popen(charz_argv("resume", str(out), "--confirm-serial", loop.kname, "--no-analyze"),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(initializations(out)) == 2 and initializations(out)[1]["state"] == "applied",
             "the resume's initialization", again)
    again.kill()
    again.communicate(timeout=30)
    assert getra(loop) == "0"
    second = initializations(out)[1]
    assert second["applied"][0]["before"] == 0 and second["to_restore"][0]["value"] == int(ORIGINAL)
    # ... and the one that finishes puts back the first one's value, not 0.
    done = charz("resume", str(out), "--confirm-serial", loop.kname, "--no-analyze")
    assert done.returncode == 0, done.stderr
    assert getra(loop) == ORIGINAL and captures(out) == 30
    assert f"read-ahead: 0 (left by an unfinished run; {ORIGINAL} when first found) → 0" in done.stderr
    assert f"read-ahead: put back to {ORIGINAL}" in done.stderr
    last = initializations(out)[-1]
    assert last["state"] == "restored" and last["restored"][0]["value"] == int(ORIGINAL)
    # A finished session is not re-run: resume says so.
    finished = charz("resume", str(out), "--confirm-serial", loop.kname)
    assert finished.returncode == 0 and "is finished: all 30 captures are taken" in finished.stderr
    assert getra(loop) == ORIGINAL


def test_kill_9_then_restore_does_only_that(drive, tmp_path):
    loop, server = drive
    out = tmp_path / "run"
    proc = started(loop, sweep(loop, server.resource, out, "--confirm-serial", loop.kname), "mid-sweep")
    proc.kill()
    proc.communicate(timeout=30)
    assert getra(loop) == "0"
    kept, image = captures(out), sha256(loop.image)
    restored = charz("restore", str(out))
    assert restored.returncode == 0, restored.stderr
    assert getra(loop) == ORIGINAL
    assert f"read-ahead: put back to {ORIGINAL}" in restored.stderr
    # only that: no capture taken, no byte of the drive written, the record says what was done
    assert captures(out) == kept and sha256(loop.image) == image
    last = initializations(out)[-1]
    assert last["plan"].startswith("charz restore") and last["applied"] == []
    assert [(r["key"], str(r["value"]), r["ok"]) for r in last["restored"]] == [("read_ahead", ORIGINAL, True)]
    twice = charz("restore", str(out))
    assert twice.returncode == 0 and "nothing to restore" in twice.stderr


@pytest.mark.parametrize("command, signum", [("validate", signal.SIGTERM), ("wa", signal.SIGHUP)])
def test_validate_and_wa_run_stopped_by_a_signal_put_the_read_ahead_back(drive, tmp_path, command, signum):
    need_tools("fio", "sigrok-cli")
    loop, server = drive
    argv = (["validate", "--device", loop.path, "--scope", server.resource, "--file-size", "96M",
             "--record-sizes", "4k", "--confirm-serial", loop.kname] if command == "validate"
            else [*wa_argv(loop, tmp_path / "wa"), "--volume", "96m", "--confirm-serial", loop.kname])
    proc = subprocess.Popen(charz_argv(*argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for(lambda: getra(loop) == "0", "read-ahead 0", proc)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, err
    assert getra(loop) == ORIGINAL and "Traceback" not in err
    assert "stopped" in err

"""Issue 15 (1): the scope is reached before anything is asked or written, and a session that
could not reach it is continued by ``charz resume DIR --scope RES``.

The whole real path: ``charz`` as a user runs it (a child process), a real loop device as the
drive, real pyvisa-py talking to the mock scope over loopback.  The mock's simulated drive has
to hear of the requests the host sends to the loop device; on a bench the probe does that, here
a watcher does, from the loop device's own counters (``/sys/block/loopN/stat``): it never hears
from charz.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools, sha256

from charz.sim import SimulatedBench, load_preset
from charz.sim.scope_server import MockScopeControl, MockScopeServer

pytestmark = [pytest.mark.system, pytest.mark.root]


@pytest.fixture
def loop(tmp_path):
    need_root()
    need_tools("losetup", "blockdev")
    device = LoopDevice(tmp_path, size_bytes=128 * MIB)
    yield device
    device.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens on it once closed


def charz(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "charz", *argv], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


class BlockStatProbe(threading.Thread):
    """Tells the mock's drive of every write the loop device completes (the probe's job)."""

    def __init__(self, kname: str, control_port: int):
        super().__init__(daemon=True)
        self.stat = f"/sys/block/{kname}/stat"
        self.port = control_port
        self.stopped = threading.Event()
        self.writes = 0

    def _read(self) -> tuple[int, int]:
        fields = open(self.stat).read().split()
        return int(fields[4]), int(fields[6])  # writes completed, sectors written

    def run(self) -> None:
        with MockScopeControl(self.port) as control:
            last = self._read()
            while not self.stopped.is_set():
                now = self._read()
                if now[0] > last[0]:
                    control.io("write", (now[1] - last[1]) * 512, 0)
                    self.writes += now[0] - last[0]
                last = now
                time.sleep(0.0005)


def session_argv(loop: LoopDevice, resource: str, out) -> list[str]:
    return ["characterize", "--device", loop.path, "--scope", resource, "--channels", "8", "--packages", "16",
            "--page-size", "4k", "--sizes", "4k", "--read-sizes", "none", "--repeats", "1",
            "--confirm-serial", loop.kname, "--out", str(out), "--no-analyze"]


def test_a_wrong_scope_address_stops_before_the_confirmation_and_resume_scope_finishes(loop, tmp_path):
    out = tmp_path / "run"
    wrong = f"TCPIP::127.0.0.1::{closed_port()}::SOCKET"
    before = sha256(loop.image)

    first = charz(*session_argv(loop, wrong, out))
    assert first.returncode == 5, first.stderr  # a scope error
    assert "Traceback" not in first.stderr
    # *IDN? failed before the drive was identified, confirmed or touched
    assert "ALL DATA" not in first.stderr and "confirmed" not in first.stderr
    assert "initialization of" not in first.stderr
    assert f"charz resume {out} --scope" in first.stderr
    assert sha256(loop.image) == before
    assert json.loads((out / "session.json").read_text())["bench"]["scope_resource"] == wrong

    # The same --out again (the address still wrong): the empty session is started anew,
    # not refused as "exists and is not empty".
    again = charz(*session_argv(loop, wrong, out))
    assert again.returncode == 5, again.stderr
    assert "starting it anew" in again.stderr and "not empty" not in again.stderr

    # A resume that still cannot reach it: the settings given are recorded all the same, and
    # the hint says the same way on.
    wrong2 = f"TCPIP::127.0.0.1::{closed_port()}::SOCKET"
    still = charz("resume", str(out), "--scope", wrong2, "--channel", "CH2", "--visa-library", "@py",
                  "--confirm-serial", loop.kname)
    assert still.returncode == 5 and f"charz resume {out} --scope" in still.stderr, still.stderr
    assert "ALL DATA" not in still.stderr and sha256(loop.image) == before
    changes = json.loads((out / "session.json").read_text())["bench"]["changes"]
    assert [(c["field"], c["from"], c["to"]) for c in changes] == [
        ("scope_resource", wrong, wrong2), ("channel", "CH1", "CH2"), ("visa_library", "@auto", "@py")]
    back = charz("resume", str(out), "--channel", "CH1")  # the probe is on CH1 after all
    assert back.returncode == 5

    with MockScopeServer(SimulatedBench(load_preset("mxp"))) as server:
        # The scope answers now; a serial that does not match still stops it, showing the drive.
        wrong_serial = charz("resume", str(out), "--scope", server.resource, "--confirm-serial", "sdz")
        assert wrong_serial.returncode == 6, wrong_serial.stderr
        assert f"'sdz' is not the device name of {loop.path}" in wrong_serial.stderr
        assert f"of {loop.path}: ALL DATA ON IT WILL BE LOST" in wrong_serial.stderr
        assert "confirmed by" not in wrong_serial.stderr and sha256(loop.image) == before
        probe = BlockStatProbe(loop.kname, server.control_port)
        probe.start()
        try:
            done = charz("resume", str(out), "--scope", server.resource, "--confirm-serial", loop.kname,
                         "--no-analyze")
        finally:
            probe.stopped.set()
            probe.join()
    assert done.returncode == 0, done.stderr
    assert "captures: 1 taken" in done.stdout
    # Issue 15 (5): the confirmation names the device and what goes; --confirm-serial matched, so
    # nothing asks to type the name, and the log says what confirmed it.
    assert re.search(rf"the characterization sweep overwrites the first \d+ MiB of {loop.path}: "
                     "ALL DATA ON IT WILL BE LOST", done.stderr)
    assert "type the" not in done.stderr.lower()
    assert f"confirmed by --confirm-serial: {loop.kname} is the device name of {loop.path}" in done.stderr
    assert probe.writes >= 2  # the calibration write and the capture reached the loop device
    meta = json.loads((out / "session.json").read_text())
    assert meta["bench"]["scope_resource"] == server.resource
    change = meta["bench"]["changes"][-1]
    assert (change["at"], change["field"], change["from"], change["to"]) == (
        "resume", "scope_resource", wrong2, server.resource)
    assert meta["bench"]["channel"] == "CH1" and len(meta["bench"]["changes"]) == 5  # wrong2 → server once
    assert meta["bench"]["visa_library"] == "@py"  # the rest of the session went through pyvisa-py
    assert len(list((out / "captures").glob("[0-9]*.json"))) == 1
    assert sha256(loop.image) != before


def test_a_directory_with_anything_else_in_it_is_never_started_anew(loop, tmp_path):
    # Only an archive with nothing measured may be cleared: a file of the user's, and it is refused.
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    proc = charz(*session_argv(loop, f"TCPIP::127.0.0.1::{closed_port()}::SOCKET", out))
    assert proc.returncode == 2 and "exists and is not empty" in proc.stderr
    assert (out / "notes.txt").read_text() == "mine"


def test_a_mock_session_with_a_capture_is_refused_and_has_no_scope_to_change(tmp_path):
    out = tmp_path / "mock"
    argv = ["characterize", "--mock", "--preset", "mxp", "--sizes", "32k", "--read-sizes", "none", "--repeats", "1",
            "--no-analyze", "--quiet", "--out", str(out)]
    assert charz(*argv).returncode == 0
    again = charz(*argv)
    assert again.returncode == 2 and "exists and is not empty" in again.stderr
    assert len(list((out / "captures").glob("[0-9]*.json"))) == 1
    moved = charz("resume", str(out), "--scope", "TCPIP::10.0.0.1::4000::SOCKET")
    assert moved.returncode == 2 and "--scope: a mock-bench session has no scope address" in moved.stderr

"""``charz scope check`` and ``charz mock-scope`` against loopback servers."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading

import pytest
from charz_cli import run

from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeServer

pytestmark = pytest.mark.system


def test_check_takes_one_triggered_capture_and_says_ok(capsys):
    with MockScopeServer(SawtoothSource()) as server:
        # The host keeps writing until the check returns: an I/O before the check arms is
        # lost (as on a bench), so a single timed one races the check's start-up.
        done = threading.Event()

        def host():
            while not done.wait(0.2):
                server.host_io("write", 32768, 0)

        writer = threading.Thread(target=host)
        writer.start()
        try:
            code = run(["scope", "check", server.resource, "--timeout", "2"])
        finally:
            done.set()
            writer.join()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "TEKTRONIX DPO3014" in out and "triggered after" in out
    assert "10000 points, 2 us/sample, units 'A'" in out
    assert "min 100 mA" in out and "max 596 mA" in out and "verdict   OK" in out


def test_check_json_reports_forced_and_clipped_captures_with_advice(capsys):
    with MockScopeServer(SawtoothSource(), faults=[{"kind": "over_range", "gain": 40}]) as server:
        server.host_io("write", 32768, 0)  # before arming: the check has to force a trigger
        code = run(["scope", "check", server.resource, "--timeout", "0.5", "--json", "--no-headers"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    assert result["forced"] is True and result["ok"] is False
    assert result["sample_interval_s"] == 2e-6 and result["n_points"] == 10000
    assert any("nothing triggered" in a for a in result["advice"])


def test_check_reports_a_refused_connection_with_a_hint(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = run(["scope", "check", f"TCPIP::127.0.0.1::{port}::SOCKET", "--timeout", "0.5"])
    err = capsys.readouterr().err
    assert code == 5
    assert "error:" in err and "what to do:" in err


def test_mock_scope_runs_standalone_until_interrupted():
    proc = subprocess.Popen(
        [sys.executable, "-m", "charz", "mock-scope", "--dialect", "keysight", "--preset", "mxp",
         "--fault", "slow:delay_s=0.01"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = [proc.stdout.readline() for _ in range(4)]
        assert banner[0].startswith("mock scope keysight (keysight_dsox3000), source SimulatedBench")
        resource = banner[1].split()[1]
        assert banner[3].split() == ["faults", "slow"]
        port = int(resource.split("::")[2])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"*IDN?\n")
            assert s.recv(4096).startswith(b"KEYSIGHT TECHNOLOGIES,DSOX3024T")
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "stopped" in out

"""The mock scope as a network service: loopback only, ports, clients, blocking queries,
the control channel."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from charz.errors import UsageError
from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeControl, MockScopeServer

pytestmark = pytest.mark.system


def ask(sock: socket.socket, line: str, timeout_s: float = 2.0) -> bytes:
    sock.settimeout(timeout_s)
    sock.sendall(line.encode() + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        assert chunk
        data += chunk
    return data[:-1]


def test_binds_to_loopback_only_and_reports_its_ports():
    with pytest.raises(UsageError, match="loopback only"):
        MockScopeServer(host="0.0.0.0")
    with MockScopeServer() as server:
        assert server.port and server.control_port and server.port != server.control_port
        assert server.resource == f"TCPIP::127.0.0.1::{server.port}::SOCKET"
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            assert s.getpeername()[0] == "127.0.0.1"


def test_concatenated_queries_give_one_response_message():
    with MockScopeServer() as server, socket.create_connection(("127.0.0.1", server.port)) as s:
        assert ask(s, "HEADER ON;:HOR:RECO?;:ACQ:STATE?") == b":HORIZONTAL:RECORDLENGTH 10000;:ACQUIRE:STATE 1"
        assert ask(s, "HEADER OFF;:HOR:RECO?;:ACQ:STATE?") == b"10000;1"


def test_opc_blocks_until_the_sequence_completes_and_sequential_clients_share_the_scope():
    with MockScopeServer(SawtoothSource()) as server:
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(b"HEADER OFF;:CH1:POS -3;:TRIG:A:LEVEL:CH1 0.35;:TRIG:A:MODE NORMAL;:ACQ:STOPA SEQ;STATE RUN;:*OPC?\n")
            s.settimeout(0.3)
            with pytest.raises(TimeoutError):
                s.recv(10)  # nothing until the trigger
            timer = threading.Timer(0.1, server.host_io, args=("write", 4096, 0))
            timer.start()
            s.settimeout(2.0)
            assert s.recv(10) == b"1\n"
            timer.join()
        with socket.create_connection(("127.0.0.1", server.port)) as s2:
            assert ask(s2, "ACQ:NUMACQ?;:TRIGGER:STATE?").endswith(b";SAVE")
            assert ask(s2, "HEADER?") == b"0"  # one instrument, state kept between clients


def test_a_client_that_hangs_up_during_opc_does_not_block_the_next_one():
    with MockScopeServer(SawtoothSource()) as server:
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"TRIG:A:MODE NORM;:ACQ:STOPA SEQ;STATE RUN;:*OPC?\n")
        time.sleep(0.1)
        s.close()
        with socket.create_connection(("127.0.0.1", server.port)) as s2:
            assert ask(s2, "*IDN?").startswith(b"TEKTRONIX,")


def test_keysight_digitize_blocks_the_instrument_until_done():
    with MockScopeServer(SawtoothSource(), dialect="keysight") as server:
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            threading.Timer(0.2, server.host_io, args=("write", 4096, 0)).start()
            t0 = time.monotonic()
            # The query after :DIGitize is only answered once the acquisition is complete.
            assert ask(s, ":TRIG:SWE NORM;:TRIG:EDGE:LEV 0.35;:DIG CHAN1;:OPER:COND?;:TER?") == b"+0;+1"
            assert time.monotonic() - t0 >= 0.15


def test_control_channel_messages_and_errors():
    with MockScopeServer(SawtoothSource()) as server, MockScopeControl(server.control_port) as ctl:
        status = ctl.status()
        assert status["resource"] == server.resource and status["dialect"] == "tek"
        assert ctl.io("write", 32768, 1 << 20)["armed"] is False  # running free, not armed
        assert server.source.ios == [("write", 32768, 1 << 20)]
        assert ctl.fault("slow", delay_s=0.01, count=None)["faults"] == ["slow"]
        assert ctl.clear_faults()["faults"] == []
        with pytest.raises(ValueError, match="unknown control message"):
            ctl.request({"bogus": 1})
        with pytest.raises(ValueError, match="op must be"):
            ctl.io("erase", 1, 0)
        with socket.create_connection(("127.0.0.1", server.control_port)) as raw:
            raw.sendall(b"not json\n")
            assert json.loads(raw.recv(4096))["ok"] is False


def test_stopping_while_clients_connect_raises_in_no_thread(monkeypatch):
    # stop() once closed a client's socket before its thread had set the socket's timeout:
    # "OSError: [Errno 9] Bad file descriptor" in serve, reported by pytest as a thread exception
    seen = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(repr(args.exc_value)))
    for _ in range(20):
        with MockScopeServer() as server:
            for _ in range(3):
                socket.create_connection(("127.0.0.1", server.port)).close()
                socket.create_connection(("127.0.0.1", server.control_port)).close()
        assert all(not t.is_alive() for t in server._threads), "a server thread outlived stop()"
    assert seen == []


@pytest.mark.parametrize("dialect, record_length, interval_s, idn_model", [
    ("tek-dpo2000", 125_000, 1.6e-6, "MSO2024B"),      # 2000 series: its own record lengths
    ("tek-dpo4000", 10_000, 2e-6, "DPO4032"),
    ("keysight-x2000", 10_000, 2e-6, "DSOX1204G"),
])
def test_charz_drives_the_families_added_for_issue_24(dialect, record_length, interval_s, idn_model):
    # The 2000-series Tek and the 1000/2000 X-Series share their family's commands: charz's
    # own driver configures, arms and fetches them; the record follows the source.
    from charz.scope import ScopeSettings, open_scope

    source = SawtoothSource()
    with MockScopeServer(source, dialect=dialect) as server:
        scope = open_scope(server.resource, timeout_s=2.0)
        try:
            assert scope.identity.model == idn_model
            scope.configure(ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=record_length,
                                          sample_interval_s=interval_s, trigger_level=0.35))
            scope.arm()
            io = server.host_io("write", 32768, 0)
            assert io["triggered"], io
            scope.wait(timeout_s=2.0)
            record = scope.fetch()
            half_code = 0.1 / scope.model.codes_per_div / 2        # half an 8-bit ADC step at 0.1 A/div
        finally:
            scope.close()
    assert record.n_samples == record_length and record.sample_interval_s == pytest.approx(interval_s)
    expected = source.current_a(io["trigger_s"] + record.t_first_s, record.sample_interval_s, record.n_samples)
    assert abs(record.values() - expected).max() <= half_code + 1e-12

"""A client written from the Tektronix programmer manual alone drives the mock scope.

No charz code and no pyvisa on the client side: a plain socket, the commands and the
reply formats as the DPO4000 / MDO3000 manuals print them (``Command Syntax``,
``ACQuire``, ``DATa``, ``WFMOutpre``, ``CURVe``; Appendix D for the scaling).  The host
I/O goes over the mock's JSON control port, also with a plain socket.
"""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeServer

pytestmark = pytest.mark.system


class ManualClient:
    """Lines out, lines in; blocks per IEEE 488.2 (#<n><length><data>) then LF."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5.0)
        self.buf = b""

    def write(self, command: str) -> None:
        self.sock.sendall(command.encode("ascii") + b"\n")

    def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "connection closed"
            self.buf += chunk

    def query(self, command: str) -> str:
        self.write(command)
        while b"\n" not in self.buf:
            self._fill(len(self.buf) + 1)
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("ascii")

    def query_block(self, command: str) -> bytes:
        self.write(command)
        self._fill(2)
        assert self.buf[:1] == b"#", self.buf[:20]
        digits = int(self.buf[1:2])
        self._fill(2 + digits)
        length = int(self.buf[2:2 + digits])
        end = 2 + digits + length
        self._fill(end + 1)
        data, terminator, self.buf = self.buf[2 + digits:end], self.buf[end:end + 1], self.buf[end + 1:]
        assert terminator == b"\n"
        return data


def control(port: int, message: dict) -> dict:
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
        sock.sendall(json.dumps(message).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            reply += sock.recv(4096)
    return json.loads(reply)


@pytest.mark.parametrize("dialect", ["tek", "tek-mdo"])
def test_identify_arm_wait_fetch_from_the_manual(dialect):
    source = SawtoothSource()
    with MockScopeServer(source, dialect=dialect) as server:
        scope = ManualClient(server.port)
        idn = scope.query("*IDN?").split(",")
        assert idn[0] == "TEKTRONIX" and len(idn) == 4
        scope.write("HEADER OFF")
        scope.write("*RST;*CLS")
        scope.write("SELECT:CH1 ON;:CH1:SCALE 100E-3;POSITION -3;:CH1:YUNITS \"A\"")
        scope.write("HORIZONTAL:RECORDLENGTH 10000;:HORIZONTAL:SCALE 2E-3;POSITION 10")
        scope.write("TRIGGER:A:TYPE EDGE;:TRIGGER:A:EDGE:SOURCE CH1;SLOPE RISE;:TRIGGER:A:LEVEL:CH1 350E-3")
        scope.write("TRIGGER:A:MODE NORMAL")
        scope.write("ACQUIRE:MODE SAMPLE;STOPAFTER SEQUENCE;STATE RUN")
        assert scope.query("TRIGGER:STATE?") == "READY"
        assert scope.query("HORIZONTAL:SAMPLERATE?") == "500.0000E+3"

        io = control(server.control_port, {"io": {"op": "write", "size_bytes": 32768,
                                                   "offset_bytes": 1 << 20}})
        assert io["ok"] and io["triggered"]
        assert scope.query("*OPC?") == "1"  # the manual's way to wait for a single sequence
        assert scope.query("ACQUIRE:STATE?;:TRIGGER:STATE?") == "0;SAVE"
        assert scope.query("*ESR?") == "0"

        scope.write("DATA:SOURCE CH1;ENCDG RIBINARY;WIDTH 2;START 1;STOP 10000")
        fields = scope.query("WFMOUTPRE?").split(";")
        assert len(fields) == (16 if dialect == "tek" else 22)
        ymult, yoff, yzero, xincr, xzero = map(float, scope.query(
            "WFMOUTPRE:YMULT?;YOFF?;YZERO?;XINCR?;XZERO?").split(";"))
        assert scope.query("WFMOUTPRE:NR_PT?;YUNIT?") == '10000;"A"'
        data = scope.query_block("CURVE?")
        assert len(data) == 20000 and b"\n" in data  # LF bytes inside the block survive

        codes = np.frombuffer(data, ">i2").astype(float)
        amps = (codes - yoff) * ymult + yzero  # Appendix D
        times = xzero + np.arange(10000) * xincr
        assert xincr == 2e-6 and times[0] == pytest.approx(-2e-3)
        expected = source.current_a(io["trigger_s"] + xzero, xincr, 10000)
        assert np.abs(amps - expected).max() <= 0.1 / 25 / 2 + 1e-12  # half an 8-bit step
        scope.sock.close()

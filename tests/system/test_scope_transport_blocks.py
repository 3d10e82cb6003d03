"""query_binary / query_compound against a scripted loopback server, through charz's own socket
and through real pyvisa-py: headers split across packets, replies that are not blocks,
lengths nobody should allocate, and what is left for the next query after each."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from charz.errors import ScopeTransferError
from charz.scope import PyVisaTransport, SocketTransport

pytestmark = pytest.mark.system


@pytest.fixture(autouse=True, params=[SocketTransport, PyVisaTransport])
def transport_cls(request):
    """Every test twice: charz's own socket (a raw socket resource with @py), and pyvisa's
    public API over pyvisa-py (what NI / Keysight VISA, VXI-11 and USB get)."""
    Scripted.transport_cls = request.param
    return request.param


class Scripted:
    """Answers each line it receives with the next scripted reply (bytes, or a list of
    pieces sent 30 ms apart); ``*IDN?`` always gets the same line."""

    def __init__(self, replies: list):
        self.replies = list(replies)
        self.srv = socket.create_server(("127.0.0.1", 0))
        self.port = self.srv.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.srv.accept()
        with conn:
            buf = b""
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    reply = b"SCRIPTED,0,0,0\n" if line == b"*IDN?" else self.replies.pop(0)
                    for piece in reply if isinstance(reply, list) else [reply]:
                        conn.sendall(piece)
                        time.sleep(0.03)

    transport_cls: type = SocketTransport

    def __enter__(self) -> PyVisaTransport | SocketTransport:
        self.transport = self.transport_cls.open(f"TCPIP::127.0.0.1::{self.port}::SOCKET", timeout_s=1.0)
        return self.transport

    def __exit__(self, *exc) -> None:
        self.transport.close()
        self.srv.close()


def block(payload: bytes, head: bytes = b"") -> bytes:
    n = str(len(payload)).encode()
    return head + b"#" + str(len(n)).encode() + n + payload + b"\n"


CODES = np.array([10, -1, 2570, 0, 10], dtype="<i2")  # 0x0A in both bytes, and alone


def test_a_header_split_across_packets_and_lf_bytes_inside_the_data():
    data = block(CODES.tobytes(), b":CURVE ")
    with Scripted([[data[:3], data[3:9], data[9:]]]) as t:
        got = t.query_binary("CURVe?", datatype="h", big_endian=False)
    assert got.tolist() == CODES.tolist()


@pytest.mark.parametrize("reply, words", [
    (b"1.0E+0;:SOME:OTHER:REPLY " + b"x" * 80 + b"\n", "not a valid block"),  # text, longer than the head read
    (block(CODES.tobytes())[:-1] + b"\x00\x00\x00\n", "longer than announced"),
    (b"#9999999999" + b"\x00" * 16 + b"\n", "more than"),  # nothing is allocated for it
])
def test_bad_replies_are_transfer_errors_and_leave_nothing_for_the_next_query(reply, words):
    with Scripted([reply]) as t:
        t0 = time.monotonic()
        with pytest.raises(ScopeTransferError, match=words):
            t.query_binary("CURVe?", datatype="h", big_endian=False)
        assert time.monotonic() - t0 < 1.5
        assert t.query("*IDN?") == "SCRIPTED,0,0,0"  # not the rest of the bad reply


def test_the_preamble_bounds_the_block():
    with Scripted([block(CODES.tobytes())]) as t:
        with pytest.raises(ScopeTransferError, match="more than the 8 the preamble promised"):
            t.query_binary("CURVe?", datatype="h", big_endian=False, max_bytes=8)
        assert t.query("*IDN?") == "SCRIPTED,0,0,0"


def test_a_compound_reply_gives_the_text_around_its_block():
    # A '#' inside a quoted WFID is not the block; 0x0A and ';' bytes inside the data are data.
    data = np.array([10, 59, 2619, -1], dtype="<i2").tobytes()
    reply = (b':WFMO:WFID "Ch1 #3";NR_P 4;:ACQUIRE:NUMACQ 7;:CURVE #18' + data + b";0\n")
    seen = []

    def expect(before):
        seen.append(before)
        return np.dtype("<i2"), 8, "the preamble promised"

    with Scripted([[reply[:20], reply[20:50], reply[50:]]]) as t:
        got = t.query_compound("WFMO?;:ACQ:NUMAC?;:CURV?;*ESR?", expect=expect)
        assert t.query("*IDN?") == "SCRIPTED,0,0,0"
    assert seen == [':WFMO:WFID "Ch1 #3";NR_P 4;:ACQUIRE:NUMACQ 7;:CURVE ']
    assert got.data.tolist() == [10, 59, 2619, -1] and got.after == "0"


def test_what_expect_refuses_is_raised_and_the_block_is_discarded():
    payload = np.arange(20_000, dtype="<i2").tobytes()
    reply = b"2;16;BIN;:CURVE #520000" + payload[:20_000] + b";0\n"

    def expect(before):
        raise ScopeTransferError(f"refused {before!r}", code="test")

    with Scripted([reply]) as t:
        with pytest.raises(ScopeTransferError, match="refused '2;16;BIN;:CURVE '"):
            t.query_compound("X?", expect=expect)
        assert t.query("*IDN?") == "SCRIPTED,0,0,0"  # no block bytes read as the answer

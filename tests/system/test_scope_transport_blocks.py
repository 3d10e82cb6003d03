"""query_binary / query_compound against a scripted loopback server, through charz's own socket
and through real pyvisa-py: headers split across packets, replies that are not blocks,
lengths nobody should allocate, and what is left for the next query after each."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from charz.errors import ScopeConnectionError, ScopeTimeout, ScopeTransferError
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
        try:
            conn, _ = self.srv.accept()
        except OSError:  # closed by __exit__ before a client came (a test that skipped)
            return
        with conn:
            buf = b""
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    reply = b"SCRIPTED,0,0,0\n" if line == b"*IDN?" else self.replies.pop(0)  # b"": none
                    for piece in reply if isinstance(reply, list) else [reply]:
                        conn.sendall(piece)
                        if isinstance(reply, list):
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


def test_replies_that_arrive_together_are_read_one_at_a_time():
    with Scripted([b"1\n2\n", b"3\n"]) as t:
        assert t.query("A?") == "1"
        assert t.read() == "2"  # kept for the next read, not dropped with the packet
        assert t.query("B?") == "3"


def test_a_block_cut_short_times_out_with_visa_code_and_the_link_recovers():
    data = block(np.arange(5_000, dtype="<i2").tobytes(), b":CURVE ")
    with Scripted([data[:4_000]]) as t:
        t0 = time.monotonic()
        with pytest.raises(ScopeTimeout) as info:
            t.query_binary("CURVe?", datatype="h", big_endian=False, timeout_s=0.5)
        assert 0.5 <= time.monotonic() - t0 < 1.5
        assert info.value.code == -1073807339  # VI_ERROR_TMO, whichever transport
        t.discard_input()
        assert t.query("*IDN?") == "SCRIPTED,0,0,0"


class Dropping(Scripted):
    """Sends part of a block, then closes the connection (a scope rebooting mid-transfer)."""

    def _serve(self) -> None:
        conn, _ = self.srv.accept()
        conn.recv(4096)
        conn.sendall(block(np.arange(5_000, dtype="<i2").tobytes(), b":CURVE ")[:4_000])
        time.sleep(0.05)
        conn.close()


def test_a_scope_that_closes_mid_block(transport_cls):
    """charz's socket tells a closed connection from a timeout at once; through pyvisa's API,
    pyvisa-py reports it as a timeout after the full timeout (it cannot be told apart
    there) — and discarding input afterwards must not spin for ever, as viClear does."""
    with Dropping([]) as t:
        t0 = time.monotonic()
        if transport_cls is SocketTransport:
            with pytest.raises(ScopeConnectionError, match="closed the connection") as info:
                t.query_binary("CURVe?", datatype="h", big_endian=False)
            assert info.value.code == -1073807194  # VI_ERROR_CONN_LOST
            assert time.monotonic() - t0 < 0.5
        else:
            with pytest.raises(ScopeTimeout):
                t.query_binary("CURVe?", datatype="h", big_endian=False)
        t0 = time.monotonic()
        t.discard_input()
        assert time.monotonic() - t0 < 2.5
        with pytest.raises((ScopeConnectionError, ScopeTimeout)):
            t.query("*IDN?", timeout_s=0.3)


def test_commands_written_back_to_back_are_not_held_by_nagle():
    """A write right after a write waits for the peer's delayed ACK (~40 ms on Linux) unless
    TCP_NODELAY is on.  charz's socket sets it; pyvisa-py cannot through VISA."""
    with Scripted([b"", b"", b"1\n"] * 10) as t:
        if not isinstance(t, SocketTransport):
            pytest.skip("pyvisa-py 0.8 has no setter for VI_ATTR_TCPIP_NODELAY")
        t0 = time.monotonic()
        for _ in range(10):
            t.write("A")
            t.write("B")
            assert t.query("C?") == "1"
        assert time.monotonic() - t0 < 0.3  # Nagle: >= 10 x 40 ms

"""charz's own TCP socket to a scope's raw socket server (``TCPIP::host::port::SOCKET``).

A raw socket resource is plain TCP carrying newline-terminated messages: no VISA protocol
lives there, only the reading.  pyvisa-py's socket session cannot be tuned through pyvisa's
public API — it receives 4096 bytes per call with a ``select`` before each (a 2 MB record
then reads at 0.3x a plain socket), its VI_ATTR_TCPIP_NODELAY has no setter (so Nagle's
algorithm holds a command written right after another for the peer's delayed ACK, ~40 ms),
and it reads a closed connection as a timeout after spinning on it.  So
:func:`~charz.scope.open_transport` hands such a resource with ``@py`` to this transport,
which needs only the standard library; every other resource, and every other VISA library,
goes through :class:`~charz.scope.PyVisaTransport`.

Errors are those of the VISA transport: :class:`~charz.errors.ScopeTimeout` with
VI_ERROR_TMO's code, :class:`~charz.errors.ScopeConnectionError` with VI_ERROR_CONN_LOST's
when the scope closes the connection.

Example
-------
>>> t = SocketTransport.open("TCPIP::127.0.0.1::4000::SOCKET")       # doctest: +SKIP
>>> t.query("*IDN?")                                                # doctest: +SKIP
'TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14'
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import pyvisa.constants
import pyvisa.rname

from charz.errors import ScopeConnectionError, ScopeError, ScopeTimeout
from charz.scope._blocks import HINT_CONNECTION, HINT_RESOURCE, HINT_TIMEOUT, BlockReading

__all__ = ["SocketTransport", "is_socket_resource"]

_TMO = int(pyvisa.constants.StatusCode.error_timeout)
_CONN_LOST = int(pyvisa.constants.StatusCode.error_connection_lost)
# Text replies are received this much at a time; block data go straight into their array.
_RECV_BYTES = 64 * 1024
# discard_input: read until the link has been quiet this long, at most _DRAIN_MAX_S in all.
_DRAIN_QUIET_S = 0.1
_DRAIN_MAX_S = 2.0


def is_socket_resource(resource: str) -> bool:
    """True for a raw socket resource (``TCPIP[board]::host::port::SOCKET``).

    Example
    -------
    >>> is_socket_resource("TCPIP0::192.168.1.20::4000::SOCKET"), is_socket_resource("TCPIP::h::INSTR")
    (True, False)
    """
    try:
        return isinstance(pyvisa.rname.parse_resource_name(resource), pyvisa.rname.TCPIPSocket)
    except pyvisa.rname.InvalidResourceName:
        return False


class _Timeout(Exception):
    pass


class _PeerClosed(Exception):
    pass


class SocketTransport(BlockReading):
    """A :class:`~charz.scope.Transport` over charz's own TCP connection (Nagle off).

    Bytes received past a reply stay in this transport's buffer for the next read, as a
    VISA library keeps them.
    """

    def __init__(self, conn: socket.socket, resource: str, *, timeout_s: float = 2.0):
        self._conn: socket.socket | None = conn
        self._pending = bytearray()
        self.resource = resource
        self.timeout_s = float(timeout_s)
        self._deadline = 0.0  # of the operation under way (set by _guard)
        # A command written right after another would wait for the first one's ACK
        # (Nagle), and a delayed ACK makes that ~40 ms.
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    @classmethod
    def open(cls, resource: str, *, timeout_s: float = 2.0, open_timeout_s: float = 2.0) -> SocketTransport:
        """Connect to ``TCPIP::host::port::SOCKET``."""
        try:
            parsed = pyvisa.rname.parse_resource_name(resource)
        except pyvisa.rname.InvalidResourceName as exc:
            raise ScopeConnectionError(f"{resource!r} is not a VISA resource string: {exc}",
                                       hint=HINT_RESOURCE) from exc
        if not isinstance(parsed, pyvisa.rname.TCPIPSocket):
            raise ScopeConnectionError(f"{resource}: charz's socket transport takes only a raw socket "
                                       "resource (TCPIP::host::port::SOCKET)",
                                       hint="use --visa-library @py or @ivi for this resource")
        try:
            conn = socket.create_connection((parsed.host_address, int(parsed.port)), timeout=open_timeout_s)
        except TimeoutError as exc:
            raise ScopeConnectionError(f"{resource}: could not connect within {open_timeout_s:g} s",
                                       hint=HINT_CONNECTION) from exc
        except OSError as exc:
            raise _os_error(exc, "opening the connection", resource) from exc
        return cls(conn, resource, timeout_s=timeout_s)

    # ------------------------------------------------------------ the protocol

    def write(self, message: str) -> None:
        with self._guard(f"sending {message!r}", None):
            self._send(message)

    def read(self, timeout_s: float | None = None) -> str:
        with self._guard("reading a reply", timeout_s):
            return self._read_line()

    def query(self, message: str, timeout_s: float | None = None) -> str:
        with self._guard(f"waiting for the reply to {message!r}", timeout_s):
            self._send(message)
            return self._read_line()

    def discard_input(self) -> None:
        self._pending.clear()
        conn = self._conn
        if conn is None:
            return
        end = time.monotonic() + _DRAIN_MAX_S
        with contextlib.suppress(OSError):
            while time.monotonic() < end and select.select([conn], [], [], _DRAIN_QUIET_S)[0]:
                if not conn.recv(_RECV_BYTES):
                    break  # closed: the next operation says so

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()

    # ------------------------------------------------------------ the reading

    @contextlib.contextmanager
    def _guard(self, what: str, timeout_s: float | None) -> Iterator[None]:
        if self._conn is None:
            raise ScopeConnectionError(f"{self.resource}: the connection is closed", hint="connect again")
        self._deadline = time.monotonic() + (self.timeout_s if timeout_s is None else timeout_s)
        try:
            yield
        except _Timeout as exc:
            raise ScopeTimeout(f"{self.resource}: timeout while {what} (VI_ERROR_TMO)",
                               hint=HINT_TIMEOUT, code=_TMO) from exc
        except _PeerClosed as exc:
            raise ScopeConnectionError(f"{self.resource}: the scope closed the connection while {what}",
                                       hint=HINT_CONNECTION, code=_CONN_LOST) from exc
        except OSError as exc:
            raise _os_error(exc, what, self.resource) from exc

    def _send(self, message: str) -> None:
        conn = self._live()
        conn.settimeout(max(self._deadline - time.monotonic(), 1e-3))
        try:
            conn.sendall(message.encode("latin-1") + b"\n")
        except TimeoutError:
            raise _Timeout from None

    def _live(self) -> socket.socket:
        if self._conn is None:
            raise _PeerClosed
        return self._conn

    def _recv_into(self, view: memoryview) -> int:
        """One receive into ``view``, bounded by what is left of the timeout: the kernel
        wakes us when data arrive (no select() per chunk)."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise _Timeout
        conn = self._live()
        conn.settimeout(remaining)
        try:
            n = conn.recv_into(view, len(view))
        except TimeoutError:
            raise _Timeout from None
        if n == 0:
            raise _PeerClosed
        return n

    def _fill(self) -> None:
        buf = bytearray(_RECV_BYTES)
        n = self._recv_into(memoryview(buf))
        self._pending += memoryview(buf)[:n]

    def _read_line(self) -> str:
        start = 0
        while (end := self._pending.find(b"\n", start)) < 0:
            start = len(self._pending)
            self._fill()
        line = bytes(self._pending[:end])
        del self._pending[:end + 1]
        return line.decode("latin-1")

    def _reader(self) -> _Reader:
        return _Reader(self)


class _Reader:
    """One reply's bytes from a :class:`SocketTransport` (its buffer first, then the socket)."""

    def __init__(self, transport: SocketTransport):
        self._t = transport

    def read_some(self, size: int) -> bytes:
        pending = self._t._pending
        if pending:
            out = bytes(pending[:size])
            del pending[:size]
            return out
        # Only what was asked: a larger receive would pull block data into the buffer,
        # to be copied out again.
        buf = bytearray(size)
        return bytes(buf[:self._t._recv_into(memoryview(buf))])

    def read_into(self, body: memoryview, got: int, message: str) -> None:
        pending = self._t._pending
        take = min(len(pending), len(body) - got)
        body[got:got + take] = pending[:take]
        del pending[:take]
        got += take
        while got < len(body):
            got += self._t._recv_into(body[got:])

    def unread(self, data: bytes) -> None:
        self._t._pending[:0] = data

    def close(self) -> None:
        pass  # unread bytes are already back in the transport's buffer


def _os_error(exc: OSError, what: str, resource: str) -> ScopeError:
    if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
        return ScopeConnectionError(f"{resource}: the scope closed the connection while {what} "
                                    f"({exc.strerror or exc})", hint=HINT_CONNECTION, code=_CONN_LOST)
    return ScopeConnectionError(f"{resource}: {exc.strerror or exc} while {what}",
                                hint=HINT_CONNECTION, code=exc.errno)

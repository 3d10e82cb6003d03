"""The transport seam: a small interface, and its PyVISA implementation.

Drivers speak only to :class:`Transport`; :class:`PyVisaTransport` is the real one
(pyvisa-py ``@py`` by default, NI / Keysight VISA when asked), and
:class:`charz.scope.ReplayTransport` replays recorded command/response pairs for
protocol tests.  Every pyvisa or socket failure leaves this module as a
:class:`~charz.errors.ScopeError` subclass carrying the VISA status code.

Binary blocks: the header is located and read by the pure functions of
:mod:`charz.scope._wire` (``block_start``, ``block_header``), also when the block is one
unit of a compound reply (:meth:`PyVisaTransport.query_compound`: preamble, acquisition
count, block and ``*ESR?`` in one round trip); the data are read as an exact byte count
with the termination character off, straight into the array returned (see
:meth:`PyVisaTransport.query_binary` for why not ``query_binary_values``).

Example
-------
>>> t = PyVisaTransport.open("TCPIP::127.0.0.1::4000::SOCKET")     # doctest: +SKIP
>>> t.query("*IDN?")                                                # doctest: +SKIP
'TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14'
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pyvisa
import pyvisa.constants
import pyvisa.errors


from charz.errors import (
    ScopeConnectionError,
    ScopeError,
    ScopeTimeout,
    ScopeTransferError,
)
from charz.scope._wire import block_header, block_start

__all__ = ["Transport", "PyVisaTransport", "CompoundReply", "BlockExpectation", "visa_error"]

# pyvisa-py's socket session receives at most 4096 bytes per recv() by default.  Block data
# are read as exact counts of this size (termination character off): 128-256 KiB reads
# matched a raw socket over loopback, 64 KiB cost more Python-level iterations, and 512 KiB
# and more fell off a cliff (2-3x slower: recv rarely fills a read that large, and pyvisa-py
# re-copies its pending buffer per recv).  benchmarks/transfer.py --chunk-kib.
DEFAULT_CHUNK_BYTES = 128 * 1024
# First read of a block reply: its header (Tek ":CURVE #72000000" is 16 bytes) and a little data;
# a compound reply's text ahead of the block (a preamble: 300-500 bytes) takes larger reads.
_HEAD_BYTES = 64
_HEAD_MORE_BYTES = 1024
# Text ahead of a block beyond this is not a reply charz asked for.
_MAX_HEAD_BYTES = 64 * 1024
# A lone block's own header (":CURVE ", ":WAVEFORM:DATA ") is short; pyvisa allows 25 bytes.
_MAX_LONE_HEADER = 25
# Without a preamble's promise, a header asking for more than this is damage, not data: the
# largest record of instruments/ is 62.5 M points x 2 B = 125 MB, and nine length digits
# could ask for 1 GB.
_MAX_BLOCK_BYTES = 256 << 20


#: ``expect(text before the block) -> (numpy dtype, most bytes allowed, what promised that)``
BlockExpectation = Callable[[str], tuple[np.dtype, int, str]]


@dataclass(frozen=True)
class CompoundReply:
    """A reply holding one block among text units.

    Example
    -------
    >>> r = CompoundReply(':WFMO:NR_P 3;:ACQ:NUMAC 7;:CURVE ', np.array([1, 2, 3]), '0')
    >>> r.after
    '0'
    """

    before: str  # the units ahead of the block, as sent, with the block's own header
    data: np.ndarray
    after: str  # the units after the block, without the ';' that joins them


@runtime_checkable
class Transport(Protocol):
    """A message-based connection to one instrument.

    Example
    -------
    >>> transport.query("*IDN?")                     # doctest: +SKIP
    'TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14'
    """

    resource: str
    timeout_s: float

    def write(self, message: str) -> None:
        """Send one program message (termination added)."""

    def read(self, timeout_s: float | None = None) -> str:
        """Read one response message, termination stripped."""

    def query(self, message: str, timeout_s: float | None = None) -> str:
        """write + read; ``timeout_s`` overrides the transport timeout for this call."""

    def query_binary(
        self, message: str, *, datatype: str, big_endian: bool, timeout_s: float | None = None,
        max_bytes: int | None = None,
    ) -> np.ndarray:
        """write + read an IEEE 488.2 definite-length block; e.g. ``array([0, 5, -3], dtype=int16)``.

        A block announcing more than ``max_bytes`` (what the preamble promised) is refused
        before anything is allocated."""

    def query_compound(self, message: str, *, expect: BlockExpectation,
                       timeout_s: float | None = None) -> CompoundReply:
        """write + read a reply of text units around one definite-length block; ``expect``
        sees the text before the block and bounds it (see PyVisaTransport.query_compound)."""

    def discard_input(self) -> None:
        """Drop whatever the instrument has sent and nobody has read yet."""

    def close(self) -> None:
        """Release the connection (idempotent)."""


_CONNECTION_CODES = {
    pyvisa.constants.StatusCode.error_connection_lost,
    pyvisa.constants.StatusCode.error_resource_not_found,
    pyvisa.constants.StatusCode.error_resource_busy,
    pyvisa.constants.StatusCode.error_invalid_resource_name,
    pyvisa.constants.StatusCode.error_io,
    pyvisa.constants.StatusCode.error_closing_failed,
    pyvisa.constants.StatusCode.error_no_listeners,
    pyvisa.constants.StatusCode.error_system_error,
    pyvisa.constants.StatusCode.error_resource_locked,
    pyvisa.constants.StatusCode.error_invalid_object,
}

_HINT_TIMEOUT = (
    "the scope did not answer in time: check that the resource string is right, that the "
    "scope's socket server is enabled with protocol NONe (not TERMinal), and that no other "
    "program holds the connection; raise the timeout if records are very long"
)
_HINT_RESOURCE = (
    "write the resource like TCPIP::192.168.1.20::4000::SOCKET (Tek socket server), "
    "TCPIP::192.168.1.20::INSTR (VXI-11) or USB0::0x0699::0x0410::C012345::INSTR"
)
_HINT_CONNECTION = (
    "check the network cable / USB, the scope's IP address and port "
    "(Utility > I/O > Socket Server), and that the scope is powered on; then reconnect"
)


# pyvisa-py says a ValueError for a resource it cannot open for want of a Python package
# or a library (pyvisa_py/usb.py, serial.py, gpib.py, tcpip.py): the resource is fine, the
# install is not.  Message text → (what is missing, what to do).
_MISSING_BACKEND = (
    ("Please install PyUSB", "pyvisa-py needs PyUSB for USB resources, and it is not installed",
     "pip install pyusb libusb-package (or: pip install 'charz[usb]'); then charz scope list shows the scope"),
    ("PyUSB does not seem to be properly installed", "PyUSB finds no libusb library",
     "pip install libusb-package (or: apt install libusb-1.0-0)"),
    ("Please install PySerial", "pyvisa-py needs PySerial for serial (ASRL) resources",
     "pip install pyserial"),
    ("Please install PyVICP", "pyvisa-py needs PyVICP for VICP resources", "pip install pyvicp"),
    ("Please install linux-gpib", "pyvisa-py finds no GPIB library",
     "install linux-gpib (Linux) or pip install gpib-ctypes with its C library"),
    ("No device found", "no USB instrument with that vendor id, product id and serial is connected",
     "check the cable and that the scope's USB port is set to USBTMC (Utility > I/O); charz scope list "
     "shows what is connected; as a non-root user a udev rule must give access to the device"),
)


def _value_error(resource: str, exc: ValueError) -> ScopeConnectionError:
    text = str(exc)
    for marker, what, fix in _MISSING_BACKEND:
        if marker in text:
            return ScopeConnectionError(f"{resource}: {what}", hint=fix)
    return ScopeConnectionError(f"{resource!r} is not a VISA resource string: {text}", hint=_HINT_RESOURCE)


def visa_error(exc: BaseException, what: str, resource: str) -> ScopeError:
    """Translate a pyvisa / socket failure into the charz hierarchy, keeping its code.

    Example
    -------
    >>> e = pyvisa.errors.VisaIOError(pyvisa.constants.StatusCode.error_timeout)
    >>> err = visa_error(e, "reading *IDN?", "TCPIP::h::4000::SOCKET")
    >>> type(err).__name__, err.code
    ('ScopeTimeout', -1073807339)
    """
    if isinstance(exc, pyvisa.errors.VisaIOError):
        code = int(exc.error_code)
        name = exc.abbreviation
        if exc.error_code == pyvisa.constants.StatusCode.error_timeout:
            return ScopeTimeout(f"{resource}: timeout while {what} ({name})", hint=_HINT_TIMEOUT,
                                code=code)
        if exc.error_code in _CONNECTION_CODES:
            hint = (_HINT_RESOURCE if exc.error_code == pyvisa.constants.StatusCode.error_invalid_resource_name
                    else _HINT_CONNECTION)
            return ScopeConnectionError(f"{resource}: {name} while {what}: {exc.description}",
                                        hint=hint, code=code)
        return ScopeError(f"{resource}: {name} while {what}: {exc.description}",
                          hint=_HINT_CONNECTION, code=code)
    if isinstance(exc, pyvisa.errors.InvalidBinaryFormat):
        return ScopeTransferError(f"{resource}: malformed binary block while {what}: {exc}",
                                  hint="the block header or length is wrong; fetch again",
                                  code="invalid-block")
    if isinstance(exc, OSError):
        return ScopeConnectionError(f"{resource}: {exc.strerror or exc} while {what}",
                                    hint=_HINT_CONNECTION, code=exc.errno)
    return ScopeError(f"{resource}: {exc} while {what}", hint=_HINT_CONNECTION)


class PyVisaTransport:
    """A :class:`Transport` over a pyvisa message-based resource.

    Parameters
    ----------
    resource : pyvisa.resources.MessageBasedResource
        An open resource; use :meth:`open` to make one.
    timeout_s : float
        Default per-operation timeout.
    chunk_bytes : int
        Read chunk for blocks (also raises pyvisa-py's socket receive size).
    """

    def __init__(self, resource: pyvisa.resources.MessageBasedResource, *,
                 timeout_s: float = 2.0, chunk_bytes: int = DEFAULT_CHUNK_BYTES):
        self._inst = resource
        self._closed = False
        self.resource = str(resource.resource_name)
        self.timeout_s = float(timeout_s)
        self.chunk_bytes = int(chunk_bytes)
        # Without read_termination every text read on a pyvisa-py socket waits for the
        # timeout (pyvisa #98/#518, pyvisa-py #301); without write_termination the
        # scope never sees the end of a command.
        resource.read_termination = "\n"
        resource.write_termination = "\n"
        # latin-1 decodes any byte, so stray block bytes read as text become a protocol
        # error with the bytes shown, not a UnicodeDecodeError out of pyvisa.
        resource.encoding = "latin-1"
        resource.chunk_size = self.chunk_bytes
        resource.timeout = self.timeout_s * 1000.0
        self._tune_socket_session()

    @classmethod
    def open(cls, resource: str, *, visa_library: str = "@py", timeout_s: float = 2.0,
             open_timeout_s: float = 2.0, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> PyVisaTransport:
        """Open ``resource`` (e.g. ``TCPIP::192.168.1.20::4000::SOCKET``).

        ``visa_library`` is ``"@py"`` (pyvisa-py), ``"@ivi"`` / ``""`` (the installed
        NI or Keysight VISA), or a path to a VISA shared library.
        """
        try:
            rm = pyvisa.ResourceManager(visa_library)
        except (OSError, ValueError) as exc:
            raise ScopeConnectionError(
                f"cannot load the VISA library {visa_library!r}: {exc}",
                hint="use --visa-library @py (pyvisa-py, installed with charz) or install "
                     "NI-VISA / Keysight IO Libraries for @ivi",
            ) from exc
        try:
            inst = rm.open_resource(resource, open_timeout=int(open_timeout_s * 1000))
        except (pyvisa.errors.Error, OSError) as exc:
            raise visa_error(exc, "opening the connection", resource) from exc
        except ValueError as exc:  # pyvisa: unparseable resource name, or a backend pyvisa-py lacks
            raise _value_error(resource, exc) from exc
        except Exception as exc:  # noqa: BLE001 - narrowed below, everything else re-raised
            # pyvisa-py raises a plain Exception("could not connect: ...") when the TCP
            # connect times out (pyvisa_py/tcpip.py); nothing more specific exists.
            if type(exc) is Exception and "could not connect" in str(exc):
                raise ScopeConnectionError(f"{resource}: {exc}", hint=_HINT_CONNECTION) from exc
            raise
        if not isinstance(inst, pyvisa.resources.MessageBasedResource):
            inst.close()
            raise ScopeConnectionError(f"{resource} is not a message-based instrument",
                                       hint="use a SOCKET, INSTR (VXI-11/USBTMC) or HiSLIP resource")
        return cls(inst, timeout_s=timeout_s, chunk_bytes=chunk_bytes)

    def _tune_socket_session(self) -> None:
        # A command written right after another waits for the first one's ACK under
        # Nagle's algorithm, and a delayed ACK makes that ~40 ms per query pair.
        session = self._backend_session()
        sock = getattr(session, "interface", None)
        if isinstance(sock, socket.socket):
            # pyvisa-py: its VI_ATTR_TCPIP_NODELAY setter is not implemented, set the option.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        elif self.resource.upper().startswith("TCPIP"):
            with contextlib.suppress(pyvisa.errors.Error):
                self._inst.set_visa_attribute(pyvisa.constants.ResourceAttribute.tcpip_nodelay,
                                              pyvisa.constants.VisaBoolean.true)
        # pyvisa-py specific: lift the 4096-byte receive size of the raw-socket session.
        if session is not None and hasattr(session, "max_recv_size"):
            session.max_recv_size = max(int(session.max_recv_size), self.chunk_bytes)

    def _backend_session(self) -> object | None:
        sessions = getattr(self._inst.visalib, "sessions", None)
        if not isinstance(sessions, dict):
            return None
        return sessions.get(self._inst.session)

    def _peer_closed(self) -> bool:
        """pyvisa-py reports a closed socket as a timeout; look at the socket itself."""
        session = self._backend_session()
        sock = getattr(session, "interface", None)
        if not isinstance(sock, socket.socket):
            return False
        try:
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    @contextlib.contextmanager
    def _guard(self, what: str, timeout_s: float | None) -> Iterator[None]:
        if self._closed:
            raise ScopeConnectionError(f"{self.resource}: the connection is closed",
                                       hint="connect again")
        old = self._inst.timeout
        self._inst.timeout = (self.timeout_s if timeout_s is None else timeout_s) * 1000.0
        try:
            yield
        except pyvisa.errors.VisaIOError as exc:
            if (exc.error_code == pyvisa.constants.StatusCode.error_timeout
                    and self._peer_closed()):
                raise ScopeConnectionError(
                    f"{self.resource}: the scope closed the connection while {what}",
                    hint=_HINT_CONNECTION,
                    code=int(pyvisa.constants.StatusCode.error_connection_lost),
                ) from exc
            raise visa_error(exc, what, self.resource) from exc
        except (pyvisa.errors.Error, OSError) as exc:
            raise visa_error(exc, what, self.resource) from exc
        finally:
            with contextlib.suppress(pyvisa.errors.Error, OSError, AttributeError):
                self._inst.timeout = old

    def write(self, message: str) -> None:
        with self._guard(f"sending {message!r}", None):
            self._inst.write(message)

    def read(self, timeout_s: float | None = None) -> str:
        with self._guard("reading a reply", timeout_s):
            return self._inst.read()

    def query(self, message: str, timeout_s: float | None = None) -> str:
        with self._guard(f"waiting for the reply to {message!r}", timeout_s):
            return self._inst.query(message)

    def query_binary(self, message: str, *, datatype: str, big_endian: bool,
                     timeout_s: float | None = None, max_bytes: int | None = None) -> np.ndarray:
        """Send ``message`` and read its definite-length block (IEEE 488.2 ``#N<len><data>``)
        and the terminator after it.

        Why not ``query_binary_values``: it reads the data with the termination character
        on, and a termchar read ends at every 0x0A byte *inside* the data — pyvisa-py then
        copies its whole pending buffer once per such byte.  8-bit codes at ADC code 10, or
        16-bit codes with 10 in either byte, are exactly that: 20× slower at one 0x0A per
        1000 bytes, 180× at one per 10 (benchmarks/transfer.py).  So the header is read as
        text (a reply that is not a block still ends at its newline) and the announced byte
        count is read with the termination character off.
        """
        dtype = np.dtype(datatype).newbyteorder(">" if big_endian else "<")
        limit = _MAX_BLOCK_BYTES if max_bytes is None else max_bytes
        promise = "the preamble promised" if max_bytes is not None else "charz accepts"

        def expect(before: str) -> tuple[np.dtype, int, str]:
            if len(before) > _MAX_LONE_HEADER:  # a header is ':CURVE ' or nothing
                raise ScopeTransferError(
                    f"{self.resource}: the reply to {message!r} is not a valid block: "
                    f"{before[:24]!r} comes before its '#'", code="invalid-block",
                    hint="the scope sent text where a binary block was expected; check the "
                         "error queue (charz scope check) and fetch again")
            return dtype, limit, promise

        reply = self.query_compound(message, expect=expect, timeout_s=timeout_s)
        if reply.after:
            self._too_long(message, reply.after)
        return reply.data

    def query_compound(self, message: str, *, expect: BlockExpectation,
                       timeout_s: float | None = None) -> CompoundReply:
        """Send a compound query whose reply holds one definite-length block among text
        units (``…;:WFMOutpre?;:CURVe?;*ESR?`` → ``<preamble>;:CURVE #…<data>;0``).

        ``expect(before)`` receives the text ahead of the block as soon as it has arrived,
        before a byte of data is read, and returns ``(dtype, max_bytes, why)``: the data's
        numpy type and the most it may hold (``why`` names the promise in the error).
        Whatever it raises leaves here with the rest of the reply discarded.  One message
        per capture instead of one per query: a round trip costs 0.1-0.2 ms to the mock and
        milliseconds to a real scope.
        """
        what = f"reading the block of {message!r}"
        try:
            with self._guard(what, timeout_s):
                self._inst.write(message)
                reader = self._reader()
                try:
                    head, start, offset, length = self._read_head(message, reader)
                    before = bytes(head[:start]).decode("latin-1")
                    dtype, max_bytes, why = expect(before)
                    if max_bytes > _MAX_BLOCK_BYTES:
                        max_bytes, why = _MAX_BLOCK_BYTES, "charz accepts"
                    if length > max_bytes:
                        raise ScopeTransferError(
                            f"{self.resource}: the block of {message!r} announces {length} bytes, "
                            f"more than the {max_bytes} {why}", code="length-mismatch",
                            hint="fetch again; a garbled length digit is a damaged transfer")
                    if length % dtype.itemsize:
                        raise ScopeTransferError(
                            f"{self.resource}: the block of {message!r} holds {length} bytes, not "
                            f"a whole number of {dtype.itemsize}-byte points", code="length-mismatch",
                            hint="fetch again; if it persists check DATa:WIDth / :WAVeform:FORMat")
                    # The data land in the array that is returned: no copy after the socket's.
                    data = np.empty(length // dtype.itemsize, dtype=dtype)
                    body = memoryview(data).cast("B")
                    got = min(len(head) - offset, length)
                    body[:got] = head[offset:offset + got]
                    reader.unread(bytes(head[offset + got:]))
                    if got < length:
                        reader.read_into(body, got, message)
                    after = self._read_tail(message, reader)
                finally:
                    reader.close()
        except (ScopeConnectionError, ScopeTimeout):
            raise  # nothing to discard on a lost link; after a timeout the driver resynchronises
        except ScopeError:
            # The rest of a bad reply must not become the answer to the next query.
            with contextlib.suppress(ScopeError):
                self.discard_input()
            raise
        return CompoundReply(before, data, after)

    def _reader(self) -> _SocketReader | _VisaReader:
        """Straight from pyvisa-py's socket when that is the backend (its own reads copy each
        chunk three times — pending buffer, slice, bytes — and cost ~30 us of attribute
        look-ups per call, a third of a loopback transfer), else through VISA reads."""
        session = self._backend_session()
        sock = getattr(session, "interface", None)
        if isinstance(sock, socket.socket) and isinstance(getattr(session, "_pending_buffer", None), bytearray):
            return _SocketReader(session, self._inst.timeout / 1000.0)
        return _VisaReader(self)

    def _read_head(self, message: str, reader: _SocketReader | _VisaReader) -> tuple[bytearray, int, int, int]:
        """Read up to and including the block header; ``(head, '#' index, data offset, length)``."""
        head = bytearray()
        while True:
            head += reader.read_some(_HEAD_BYTES if not head else _HEAD_MORE_BYTES)
            start = block_start(head)
            if start is not None:
                found = block_header(head, start)
                if found is not None:
                    return head, start, found[0], found[1]
            elif b"\n" in head or len(head) > _MAX_HEAD_BYTES:
                line, sep, rest = bytes(head).partition(b"\n")
                reader.unread(rest)
                raise ScopeTransferError(
                    f"{self.resource}: the reply to {message!r} is not a valid block: "
                    f"{(line + sep)[:48]!r}",
                    hint="the scope sent text where a binary block was expected; check the "
                         "error queue (charz scope check) and fetch again",
                    code="invalid-block",
                )

    def _read_tail(self, message: str, reader: _SocketReader | _VisaReader) -> str:
        """After the data: the terminator, or ``;`` and the units that follow, then it."""
        tail = reader.read_some(_HEAD_MORE_BYTES)
        if tail[:1] == b";":
            while b"\n" not in tail and len(tail) <= _MAX_HEAD_BYTES:
                tail += reader.read_some(_HEAD_MORE_BYTES)
        end = tail.find(b"\n")
        if end >= 0:
            reader.unread(tail[end + 1:])  # not ours: left for whoever reads next
            tail = tail[:end + 1]
        if tail == b"\n":
            return ""
        if tail[:1] != b";" or not tail.endswith(b"\n"):
            self._too_long(message, tail.decode("latin-1"))
        return tail[1:-1].decode("latin-1")

    def _too_long(self, message: str, after: str) -> None:
        raise ScopeTransferError(
            f"{self.resource}: the block of {message!r} is longer than announced: after the "
            f"bytes its header announces comes {after[:16]!r}, not the newline",
            hint="fetch again; if it persists the scope's firmware or the link is faulty",
            code="block-too-long",
        )

    @contextlib.contextmanager
    def _termchar_off(self) -> Iterator[None]:
        attr = pyvisa.constants.ResourceAttribute.termchar_enabled
        self._inst.set_visa_attribute(attr, pyvisa.constants.VI_FALSE)
        try:
            yield
        finally:
            with contextlib.suppress(pyvisa.errors.Error, OSError):
                self._inst.set_visa_attribute(attr, pyvisa.constants.VI_TRUE)

    def discard_input(self) -> None:
        session = self._backend_session()
        sock = getattr(session, "interface", None)
        pending = getattr(session, "_pending_buffer", None)
        if isinstance(sock, socket.socket) and isinstance(pending, bytearray):
            # pyvisa-py's clear() does this too, but spins for ever once the peer has closed.
            pending.clear()
            with contextlib.suppress(OSError):
                while select.select([sock], [], [], 0.1)[0]:
                    if not sock.recv(self.chunk_bytes):
                        break
            return
        with self._guard("discarding unread input", 0.5):
            self._inst.clear()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(pyvisa.errors.Error, OSError):
            self._inst.close()


class _SocketReader:
    """Reads a reply straight from pyvisa-py's socket, starting with what pyvisa-py has
    already buffered; bytes read past the reply go back into that buffer (pyvisa-py
    re-binds it only in its own reads, none of which run meanwhile)."""

    def __init__(self, session: object, timeout_s: float):
        self._session = session
        self._sock: socket.socket = session.interface  # type: ignore[attr-defined]
        self._deadline = time.monotonic() + timeout_s
        self._mode = self._sock.gettimeout()  # pyvisa-py's: blocking, its own select() waits

    def _pending(self) -> bytearray:
        return self._session._pending_buffer  # type: ignore[attr-defined]  # re-bound by pyvisa-py's reads

    def _recv_into(self, view: memoryview) -> int:
        # A blocking receive bounded by what is left of the timeout: the kernel wakes us
        # when data arrive, as a plain socket reader's would (no select() per chunk).
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise pyvisa.errors.VisaIOError(pyvisa.constants.StatusCode.error_timeout)
        self._sock.settimeout(remaining)
        try:
            n = self._sock.recv_into(view, len(view))
        except TimeoutError:
            raise pyvisa.errors.VisaIOError(pyvisa.constants.StatusCode.error_timeout) from None
        if n == 0:  # the peer closed: _guard tells that apart from a timeout
            raise pyvisa.errors.VisaIOError(pyvisa.constants.StatusCode.error_timeout)
        return n

    def read_some(self, size: int) -> bytes:
        pending = self._pending()
        if pending:
            out = bytes(pending[:size])
            del pending[:size]
            return out
        buf = bytearray(size)
        n = self._recv_into(memoryview(buf))
        return bytes(buf[:n])

    def read_into(self, body: memoryview, got: int, message: str) -> None:
        pending = self._pending()
        take = min(len(pending), len(body) - got)
        body[got:got + take] = pending[:take]
        del pending[:take]
        got += take
        while got < len(body):
            got += self._recv_into(body[got:])

    def unread(self, data: bytes) -> None:
        self._pending()[:0] = data

    def close(self) -> None:
        # Unread bytes are already back in pyvisa-py's buffer; its socket mode is restored.
        with contextlib.suppress(OSError):
            self._sock.settimeout(self._mode)


class _VisaReader:
    """Reads a reply through the VISA library (NI / Keysight VISA, VXI-11, USB)."""

    def __init__(self, transport: PyVisaTransport):
        self._t = transport
        self._inst = transport._inst
        self._back = bytearray()

    def read_some(self, size: int) -> bytes:
        if self._back:
            out = bytes(self._back[:size])
            del self._back[:size]
            return out
        return self._inst.read_bytes(size, break_on_termchar=True)

    def read_into(self, body: memoryview, got: int, message: str) -> None:
        """Exact-count reads with the termination character off (they end on the count,
        not on a 0x0A byte inside the data)."""
        take = min(len(self._back), len(body) - got)
        body[got:got + take] = self._back[:take]
        del self._back[:take]
        got += take
        lib, session = self._inst.visalib, self._inst.session
        status = pyvisa.constants.StatusCode
        with self._t._termchar_off(), self._inst.ignore_warning(
                status.success_max_count_read, status.success_device_not_present):
            while got < len(body):
                chunk, _ = lib.read(session, min(self._t.chunk_bytes, len(body) - got))
                if not chunk:
                    raise ScopeTransferError(
                        f"{self._t.resource}: the block of {message!r} stopped after {got} of "
                        f"{len(body)} bytes", hint="fetch again", code="truncated-block")
                body[got:got + len(chunk)] = chunk
                got += len(chunk)

    def unread(self, data: bytes) -> None:
        self._back[:0] = data

    def close(self) -> None:
        pass  # a VISA library keeps no buffer charz can return bytes to

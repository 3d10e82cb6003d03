"""The transport seam: a small interface, and its PyVISA implementation.

Drivers speak only to :class:`Transport`; :class:`PyVisaTransport` is the real one
(pyvisa-py ``@py`` by default, NI / Keysight VISA when asked), and
:class:`charz.scope.ReplayTransport` replays recorded command/response pairs for
protocol tests.  Every pyvisa or socket failure leaves this module as a
:class:`~charz.errors.ScopeError` subclass carrying the VISA status code.

Binary blocks: pyvisa parses the header (``parse_ieee_block_header``) and converts the
data (``from_binary_block``); the data themselves are read as an exact byte count with
the termination character off (see :meth:`PyVisaTransport.query_binary` for why not
``query_binary_values``).

Example
-------
>>> t = PyVisaTransport.open("TCPIP::127.0.0.1::4000::SOCKET")     # doctest: +SKIP
>>> t.query("*IDN?")                                                # doctest: +SKIP
'TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14'
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np
import pyvisa
import pyvisa.constants
import pyvisa.errors
import pyvisa.util

from charz.errors import (
    ScopeConnectionError,
    ScopeError,
    ScopeTimeout,
    ScopeTransferError,
)

__all__ = ["Transport", "PyVisaTransport", "visa_error"]

# pyvisa-py's socket session receives at most 4096 bytes per recv() by default.  Block data
# are read as exact counts of this size (termination character off): 128-256 KiB reads
# matched a raw socket over loopback, 64 KiB cost more Python-level iterations, and 512 KiB
# and more fell off a cliff (2-3x slower: recv rarely fills a read that large, and pyvisa-py
# re-copies its pending buffer per recv).  benchmarks/transfer.py --chunk-kib.
DEFAULT_CHUNK_BYTES = 128 * 1024
# First read of a block reply: its header (Tek ":CURVE #72000000" is 16 bytes) and a little data.
_HEAD_BYTES = 64
# Without a preamble's promise, a header asking for more than this is damage, not data: the
# largest record of instruments/ is 62.5 M points x 2 B = 125 MB, and nine length digits
# could ask for 1 GB.
_MAX_BLOCK_BYTES = 256 << 20


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
        text (a reply that is not a block still ends at its newline), pyvisa parses it, and
        the announced byte count is read with the termination character off.
        """
        try:
            with self._guard(f"reading the block of {message!r}", timeout_s):
                self._inst.write(message)
                head = self._inst.read_bytes(_HEAD_BYTES, break_on_termchar=True)
                offset, length = self._block_header(message, head, max_bytes)
                total = offset + length + 1  # the terminator follows the block
                block = bytearray(total)  # read into in place: pyvisa's read_bytes would copy twice more
                got = min(len(head), total)
                block[:got] = head[:got]
                if len(head) <= total:
                    with self._termchar_off():
                        self._read_into(block, got, message)
            if len(head) > total or block[-1] != 0x0A:
                raise ScopeTransferError(
                    f"{self.resource}: the block of {message!r} is longer than announced: after the "
                    f"{length} bytes its header announces comes {bytes(block[-1:])!r}, not the newline",
                    hint="fetch again; if it persists the scope's firmware or the link is faulty",
                    code="block-too-long",
                )
        except ScopeTransferError:
            # The rest of a bad reply must not become the answer to the next query.
            with contextlib.suppress(ScopeError):
                self.discard_input()
            raise
        return pyvisa.util.from_binary_block(block, offset, length, datatype, big_endian, container=np.array)

    def _read_into(self, block: bytearray, got: int, message: str) -> None:
        """Fill ``block[got:]`` with exact-count VISA reads (which end on the count, not on a byte)."""
        lib, session = self._inst.visalib, self._inst.session
        status = pyvisa.constants.StatusCode
        with self._inst.ignore_warning(status.success_max_count_read, status.success_device_not_present):
            while got < len(block):
                chunk, _ = lib.read(session, min(self.chunk_bytes, len(block) - got))
                if not chunk:
                    raise ScopeTransferError(
                        f"{self.resource}: the block of {message!r} stopped after {got} of "
                        f"{len(block)} bytes", hint="fetch again", code="truncated-block")
                block[got:got + len(chunk)] = chunk
                got += len(chunk)

    def _block_header(self, message: str, head: bytes, max_bytes: int | None) -> tuple[int, int]:
        try:
            offset, length = pyvisa.util.parse_ieee_block_header(head, raise_on_late_block=True)
        except (ValueError, RuntimeError) as exc:  # no '#', bad length digits, '#' too late
            raise ScopeTransferError(
                f"{self.resource}: the reply to {message!r} is not a valid block: {exc}",
                hint="the scope sent text where a binary block was expected; check the "
                     "error queue (charz scope check) and fetch again",
                code="invalid-block",
            ) from exc
        if length < 0 or offset > len(head):
            raise ScopeTransferError(
                f"{self.resource}: the reply to {message!r} starts {head[:24]!r}, not a "
                "definite-length block",
                hint="charz reads #N<length> blocks; check the scope's data format settings",
                code="invalid-block",
            )
        limit = _MAX_BLOCK_BYTES if max_bytes is None else max_bytes
        if length > limit:
            raise ScopeTransferError(
                f"{self.resource}: the block of {message!r} announces {length} bytes, more than "
                f"the {limit} {'the preamble promised' if max_bytes is not None else 'charz accepts'}",
                hint="fetch again; a garbled length digit is a damaged transfer",
                code="length-mismatch",
            )
        return offset, length

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
        with self._guard("discarding unread input", 0.5):
            self._inst.clear()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(pyvisa.errors.Error, OSError):
            self._inst.close()

"""The transport seam: a small interface, and its implementations.

Drivers speak only to :class:`Transport`.  :func:`open_transport` picks the real one:

* :class:`PyVisaTransport` — pyvisa's public API over any VISA library: pyvisa-py
  (``@py``) for VXI-11, HiSLIP, USBTMC and GPIB, or NI / Keysight VISA (``@ivi``, a path);
* :class:`~charz.scope.SocketTransport` — charz's own TCP socket, for a raw socket
  resource (``TCPIP::host::port::SOCKET``, the Tek socket server) with the default
  ``@auto``, or anywhere with ``visa_library="@socket"``; ``@py`` given by name keeps
  pyvisa-py for raw sockets too (the fallback if charz's socket ever misbehaves).  pyvisa-py's socket session cannot be tuned
  through pyvisa's API (4096-byte receives, Nagle on, a closed peer read as a timeout),
  and charz no longer reaches into its private state; its own socket needs only the
  standard library (see :mod:`charz.scope._rawsocket`).

:class:`charz.scope.ReplayTransport` replays recorded command/response pairs for protocol
tests.  Every failure leaves a transport as a :class:`~charz.errors.ScopeError` subclass
carrying the VISA status code; blocks are read by :class:`~charz.scope._blocks.BlockReading`.

Example
-------
>>> t = open_transport("TCPIP::127.0.0.1::4000::SOCKET")          # doctest: +SKIP
>>> t.query("*IDN?")                                                # doctest: +SKIP
'TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14'
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np
import pyvisa
import pyvisa.constants
import pyvisa.errors

from charz.errors import ScopeConnectionError, ScopeError, ScopeTimeout, ScopeTransferError
from charz.scope._blocks import (
    HINT_CONNECTION,
    HINT_RESOURCE,
    HINT_TIMEOUT,
    BlockExpectation,
    BlockReading,
    CompoundReply,
)
from charz.scope._rawsocket import SocketTransport, is_socket_resource

__all__ = ["Transport", "PyVisaTransport", "SocketTransport", "CompoundReply", "BlockExpectation",
           "open_transport", "visa_error"]

_log = logging.getLogger(__name__)

# Block data are read as exact counts of this size (termination character off).  With
# pyvisa-py each read is many 4096-byte receives whatever the count; NI-VISA takes the count
# as given.  benchmarks/transfer.py --chunk-kib.
DEFAULT_CHUNK_BYTES = 128 * 1024
# discard_input on a raw socket: read until the link has been quiet this long, at most
# _DRAIN_MAX_S in all (a scope streaming for ever must not hang the resynchronisation).
_DRAIN_QUIET_S = 0.1
_DRAIN_MAX_S = 2.0


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
        sees the text before the block and bounds it (see BlockReading.query_compound)."""

    def discard_input(self) -> None:
        """Drop whatever the instrument has sent and nobody has read yet."""

    def close(self) -> None:
        """Release the connection (idempotent)."""


AUTO = "@auto"
"""The default ``visa_library``: charz's own socket for a raw socket resource, pyvisa-py
(``@py``) for every other."""


def open_transport(resource: str, *, visa_library: str = AUTO, timeout_s: float = 2.0,
                   open_timeout_s: float = 2.0) -> Transport:
    """The transport for ``resource``: charz's own socket for a raw socket resource with
    ``@auto`` (the default) or when ``visa_library`` is ``"@socket"``; else pyvisa with
    ``visa_library`` (``@auto`` meaning pyvisa-py).

    Example
    -------
    >>> type(open_transport("TCPIP::127.0.0.1::4000::SOCKET")).__name__  # doctest: +SKIP
    'SocketTransport'
    """
    if visa_library == "@socket" or (visa_library == AUTO and is_socket_resource(resource)):
        return SocketTransport.open(resource, timeout_s=timeout_s, open_timeout_s=open_timeout_s)
    if visa_library == AUTO:
        visa_library = "@py"
    return PyVisaTransport.open(resource, visa_library=visa_library, timeout_s=timeout_s,
                                open_timeout_s=open_timeout_s)


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
    return ScopeConnectionError(f"{resource!r} is not a VISA resource string: {text}", hint=HINT_RESOURCE)


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
            return ScopeTimeout(f"{resource}: timeout while {what} ({name})", hint=HINT_TIMEOUT,
                                code=code)
        if exc.error_code in _CONNECTION_CODES:
            hint = (HINT_RESOURCE if exc.error_code == pyvisa.constants.StatusCode.error_invalid_resource_name
                    else HINT_CONNECTION)
            return ScopeConnectionError(f"{resource}: {name} while {what}: {exc.description}",
                                        hint=hint, code=code)
        return ScopeError(f"{resource}: {name} while {what}: {exc.description}",
                          hint=HINT_CONNECTION, code=code)
    if isinstance(exc, pyvisa.errors.InvalidBinaryFormat):
        return ScopeTransferError(f"{resource}: malformed binary block while {what}: {exc}",
                                  hint="the block header or length is wrong; fetch again",
                                  code="invalid-block")
    if isinstance(exc, OSError):
        return ScopeConnectionError(f"{resource}: {exc.strerror or exc} while {what}",
                                    hint=HINT_CONNECTION, code=exc.errno)
    return ScopeError(f"{resource}: {exc} while {what}", hint=HINT_CONNECTION)


class PyVisaTransport(BlockReading):
    """A :class:`Transport` over a pyvisa message-based resource, through pyvisa's public
    API only (attributes, ``read_bytes``, ``visalib.read``, ``clear``): any VISA library,
    any pyvisa-py release.

    Parameters
    ----------
    resource : pyvisa.resources.MessageBasedResource
        An open resource; use :meth:`open` to make one.
    timeout_s : float
        Default per-operation timeout.
    chunk_bytes : int
        Read size for block data (the resource's ``chunk_size``).
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
        self._raw_socket = is_socket_resource(self.resource)
        if self.resource.upper().startswith("TCPIP"):
            self._no_delay()

    @classmethod
    def open(cls, resource: str, *, visa_library: str = "@py", timeout_s: float = 2.0,
             open_timeout_s: float = 2.0, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> PyVisaTransport:
        """Open ``resource`` (e.g. ``TCPIP::192.168.1.20::INSTR``) through pyvisa.

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
                raise ScopeConnectionError(f"{resource}: {exc}", hint=HINT_CONNECTION) from exc
            raise
        if not isinstance(inst, pyvisa.resources.MessageBasedResource):
            inst.close()
            raise ScopeConnectionError(f"{resource} is not a message-based instrument",
                                       hint="use a SOCKET, INSTR (VXI-11/USBTMC) or HiSLIP resource")
        return cls(inst, timeout_s=timeout_s, chunk_bytes=chunk_bytes)

    def _no_delay(self) -> None:
        # A command written right after another waits for the first one's ACK under Nagle's
        # algorithm, and a delayed ACK makes that ~40 ms per query pair.  NI-VISA has
        # VI_ATTR_TCPIP_NODELAY on by default; pyvisa-py 0.8 registers the attribute
        # without a setter and raises its own UnknownAttribute (a bare Exception subclass)
        # — then Nagle stays on, which is one reason a raw socket with @py is charz's own.
        try:
            self._inst.set_visa_attribute(pyvisa.constants.ResourceAttribute.tcpip_nodelay,
                                          pyvisa.constants.VisaBoolean.true)
        except Exception as exc:  # noqa: BLE001 - see above; the link works, only slower
            _log.debug("%s: TCP_NODELAY not settable through VISA: %r", self.resource, exc)

    @contextlib.contextmanager
    def _guard(self, what: str, timeout_s: float | None) -> Iterator[None]:
        if self._closed:
            raise ScopeConnectionError(f"{self.resource}: the connection is closed",
                                       hint="connect again")
        old = self._inst.timeout
        self._inst.timeout = (self.timeout_s if timeout_s is None else timeout_s) * 1000.0
        try:
            yield
        except (pyvisa.errors.Error, OSError) as exc:
            raise visa_error(exc, what, self.resource) from exc
        finally:
            with contextlib.suppress(pyvisa.errors.Error, OSError, AttributeError):
                self._inst.timeout = old

    def _send(self, message: str) -> None:
        self._inst.write(message)

    def _reader(self) -> _VisaReader:
        return _VisaReader(self)

    def write(self, message: str) -> None:
        with self._guard(f"sending {message!r}", None):
            self._inst.write(message)

    def read(self, timeout_s: float | None = None) -> str:
        with self._guard("reading a reply", timeout_s):
            return self._inst.read()

    def query(self, message: str, timeout_s: float | None = None) -> str:
        with self._guard(f"waiting for the reply to {message!r}", timeout_s):
            return self._inst.query(message)

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
        if not self._raw_socket:
            # VXI-11, HiSLIP, USBTMC: a device clear, which also empties the scope's output queue.
            with self._guard("discarding unread input", 0.5):
                self._inst.clear()
            return
        # A raw socket has no device clear, and pyvisa-py's viClear spins for ever once the
        # peer has closed: read until the link is quiet instead (a closed peer reads as
        # quiet with pyvisa-py, as an error with NI-VISA — both end the loop).
        lib, session = self._inst.visalib, self._inst.session
        status = pyvisa.constants.StatusCode
        old = self._inst.timeout
        self._inst.timeout = _DRAIN_QUIET_S * 1000.0
        try:
            with self._termchar_off(), self._inst.ignore_warning(
                    status.success_max_count_read, status.success_device_not_present):
                for _ in range(max(1, int(_DRAIN_MAX_S / _DRAIN_QUIET_S))):
                    lib.read(session, self.chunk_bytes)
        except (pyvisa.errors.Error, OSError):
            pass  # quiet (a timeout) or gone: nothing left to discard either way
        finally:
            with contextlib.suppress(pyvisa.errors.Error, OSError, AttributeError):
                self._inst.timeout = old

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(pyvisa.errors.Error, OSError):
            self._inst.close()


class _VisaReader:
    """Reads a reply through pyvisa: text as termchar reads, data as exact counts."""

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
        not on a 0x0A byte inside the data), each straight into ``body``: pyvisa's
        ``read_bytes`` would gather the chunks into a bytes object and copy twice more."""
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
        pass  # a VISA library keeps no buffer charz can give bytes back to: see unread's callers

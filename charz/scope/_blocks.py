"""Reading a reply that holds an IEEE 488.2 definite-length block, whatever carries the bytes.

Both transports (:class:`~charz.scope.PyVisaTransport` over pyvisa's public API,
:class:`~charz.scope.SocketTransport` over charz's own socket) read a block the same way:
the header is located and parsed by the pure functions of :mod:`charz.scope._wire`
(``block_start``, ``block_header``), also when the block is one unit of a compound reply
(preamble, acquisition count, block and ``*ESR?`` in one round trip); the data are read as
an exact byte count straight into the array returned, and the terminator is checked.
Only the :class:`Reader` differs.

Why not pyvisa's ``query_binary_values``: its first read and its data read stop at the
termination character, and a termchar read ends at every 0x0A byte *inside* the data —
8-bit codes at ADC code 10, or 16-bit codes with 10 in either byte, are exactly that, and
pyvisa-py copies its whole pending buffer once per such byte (20x slower at one 0x0A per
1000 bytes, 180x at one per 10: benchmarks/transfer.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from charz.errors import ScopeConnectionError, ScopeError, ScopeTimeout, ScopeTransferError
from charz.scope._wire import block_header, block_start

__all__ = ["BlockExpectation", "BlockReading", "CompoundReply", "Reader"]

# First read of a block reply: its header (Tek ":CURVE #72000000" is 16 bytes) and a little data;
# a compound reply's text ahead of the block (a preamble: 300-500 bytes) takes larger reads.
HEAD_BYTES = 64
HEAD_MORE_BYTES = 1024
# Text ahead of a block beyond this is not a reply charz asked for.
MAX_HEAD_BYTES = 64 * 1024
# A lone block's own header (":CURVE ", ":WAVEFORM:DATA ") is short; pyvisa allows 25 bytes.
MAX_LONE_HEADER = 25
# Without a preamble's promise, a header asking for more than this is damage, not data: the
# largest record of instruments/ is 62.5 M points x 2 B = 125 MB, and nine length digits
# could ask for 1 GB.
MAX_BLOCK_BYTES = 256 << 20

HINT_TIMEOUT = (
    "the scope did not answer in time: check that the resource string is right, that the "
    "scope's socket server is enabled with protocol NONe (not TERMinal), and that no other "
    "program holds the connection; raise the timeout if records are very long"
)
HINT_RESOURCE = (
    "write the resource like TCPIP::192.168.1.20::4000::SOCKET (Tek socket server), "
    "TCPIP::192.168.1.20::INSTR (VXI-11) or USB0::0x0699::0x0410::C012345::INSTR"
)
HINT_CONNECTION = (
    "check the network cable / USB, the scope's IP address and port "
    "(Utility > I/O > Socket Server), and that the scope is powered on; then reconnect"
)
_HINT_NOT_BLOCK = ("the scope sent text where a binary block was expected; check the "
                   "error queue (charz scope check) and fetch again")

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


class Reader(Protocol):
    """One reply's bytes, as a transport delivers them."""

    def read_some(self, size: int) -> bytes:
        """At most ``size`` bytes, ending early at a newline or when the link pauses."""

    def read_into(self, body: memoryview, got: int, message: str) -> None:
        """Fill ``body[got:]`` exactly: the count ends the read, not a 0x0A byte."""

    def unread(self, data: bytes) -> None:
        """Give back bytes read past the reply (they belong to whoever reads next)."""

    def close(self) -> None:
        """End of this reply."""


class BlockReading:
    """``query_binary`` and ``query_compound`` for a transport that supplies ``resource``,
    ``_guard(what, timeout_s)``, ``_send(message)``, ``_reader()`` and ``discard_input()``."""

    resource: str

    def _guard(self, what: str, timeout_s: float | None) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def _send(self, message: str) -> None:
        raise NotImplementedError

    def _reader(self) -> Reader:
        raise NotImplementedError

    def discard_input(self) -> None:
        raise NotImplementedError

    def query_binary(self, message: str, *, datatype: str, big_endian: bool,
                     timeout_s: float | None = None, max_bytes: int | None = None) -> np.ndarray:
        """Send ``message`` and read its definite-length block (IEEE 488.2 ``#N<len><data>``)
        and the terminator after it; a block announcing more than ``max_bytes`` is refused
        before anything is allocated."""
        dtype = np.dtype(datatype).newbyteorder(">" if big_endian else "<")
        limit = MAX_BLOCK_BYTES if max_bytes is None else max_bytes
        promise = "the preamble promised" if max_bytes is not None else "charz accepts"

        def expect(before: str) -> tuple[np.dtype, int, str]:
            if len(before) > MAX_LONE_HEADER:  # a header is ':CURVE ' or nothing
                raise ScopeTransferError(
                    f"{self.resource}: the reply to {message!r} is not a valid block: "
                    f"{before[:24]!r} comes before its '#'", code="invalid-block", hint=_HINT_NOT_BLOCK)
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
        try:
            with self._guard(f"reading the block of {message!r}", timeout_s):
                self._send(message)
                reader = self._reader()
                try:
                    before, data, after = self._read_reply(message, expect, reader)
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

    def _read_reply(self, message: str, expect: BlockExpectation,
                    reader: Reader) -> tuple[str, np.ndarray, str]:
        head, start, offset, length = self._read_head(message, reader)
        before = bytes(head[:start]).decode("latin-1")
        dtype, max_bytes, why = expect(before)
        if max_bytes > MAX_BLOCK_BYTES:
            max_bytes, why = MAX_BLOCK_BYTES, "charz accepts"
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
        # The data land in the array that is returned: no copy after the transport's.
        data = np.empty(length // dtype.itemsize, dtype=dtype)
        body = memoryview(data).cast("B")
        got = min(len(head) - offset, length)
        body[:got] = head[offset:offset + got]
        reader.unread(bytes(head[offset + got:]))
        if got < length:
            reader.read_into(body, got, message)
        return before, data, self._read_tail(message, reader)

    def _read_head(self, message: str, reader: Reader) -> tuple[bytearray, int, int, int]:
        """Read up to and including the block header; ``(head, '#' index, data offset, length)``."""
        head = bytearray()
        while True:
            head += reader.read_some(HEAD_BYTES if not head else HEAD_MORE_BYTES)
            start = block_start(head)
            if start is not None:
                found = block_header(head, start)
                if found is not None:
                    return head, start, found[0], found[1]
            elif b"\n" in head or len(head) > MAX_HEAD_BYTES:
                line, sep, rest = bytes(head).partition(b"\n")
                reader.unread(rest)
                raise ScopeTransferError(
                    f"{self.resource}: the reply to {message!r} is not a valid block: "
                    f"{(line + sep)[:48]!r}", hint=_HINT_NOT_BLOCK, code="invalid-block")

    def _read_tail(self, message: str, reader: Reader) -> str:
        """After the data: the terminator, or ``;`` and the units that follow, then it."""
        tail = reader.read_some(HEAD_MORE_BYTES)
        if tail[:1] == b";":
            while b"\n" not in tail and len(tail) <= MAX_HEAD_BYTES:
                tail += reader.read_some(HEAD_MORE_BYTES)
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


"""A :class:`Transport` that replays recorded command/response pairs (no socket).

Protocol tests give a driver this transport and a list of ``(sent, reply)`` pairs;
every message the driver sends must match the next pair, and :meth:`assert_done`
fails if any pair was left unused (pymeasure's ``expected_protocol`` habit).

Pairs
-----
``("CH1:SCAle 0.1", None)``          a write, no reply
``("CH1:SCAle?", "100.0000E-3")``    a query and its text reply
``("CURVe?", b"#14\\x00\\x01\\x00\\x0a\\n")``  a binary query and its raw block
``("WFMO?;:CURVe?", b':WFMO:NR_P 2;:CURVE #14\\x00\\x01\\x00\\x0a\\n')``  a compound query (query_compound)
``("*OPC?", ScopeTimeout("..."))``   a query whose reply never comes (the error is raised)
``(None, "1")``                      a bare read

Example
-------
>>> t = ReplayTransport([("*IDN?", "TEKTRONIX,DPO3014,C1,FV:v2.14"), ("HEADer OFF", None)])
>>> t.query("*IDN?")
'TEKTRONIX,DPO3014,C1,FV:v2.14'
>>> t.write("HEADer OFF")
>>> t.assert_done()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pyvisa import util as visa_util

from charz.errors import ScopeTransferError
from charz.scope._transport import CompoundReply
from charz.scope._wire import block_header, block_start

__all__ = ["ReplayTransport", "Pair"]

Pair = tuple[str | Callable[[str], bool] | None, str | bytes | BaseException | None]


class ReplayTransport:
    """Replays ``pairs`` in order; see the module docstring for the pair forms."""

    def __init__(self, pairs: Sequence[Pair], *, resource: str = "REPLAY::INSTR",
                 timeout_s: float = 1.0):
        self._pairs = list(pairs)
        self._next = 0
        self.resource = resource
        self.timeout_s = timeout_s
        self.closed = False
        self.sent: list[str] = []

    def _take(self, sent: str | None) -> str | bytes | BaseException | None:
        if self._next >= len(self._pairs):
            raise AssertionError(f"unexpected message {sent!r}: all {len(self._pairs)} pairs used")
        want, reply = self._pairs[self._next]
        ok = want(sent) if callable(want) and sent is not None else want == sent
        if not ok:
            raise AssertionError(
                f"pair {self._next}: expected {want!r}, driver sent {sent!r}"
            )
        self._next += 1
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def write(self, message: str) -> None:
        self.sent.append(message)
        reply = self._take(message)
        if reply is not None:
            raise AssertionError(f"{message!r} was sent as a write but the pair has a reply")

    def read(self, timeout_s: float | None = None) -> str:
        reply = self._take(None)
        if not isinstance(reply, str):
            raise AssertionError(f"a read needs a text reply, the pair has {reply!r}")
        return reply

    def query(self, message: str, timeout_s: float | None = None) -> str:
        self.sent.append(message)
        reply = self._take(message)
        if isinstance(reply, bytes):
            return reply.decode("latin-1").rstrip("\n")
        if reply is None:
            raise AssertionError(f"{message!r} was sent as a query but the pair has no reply")
        return reply

    def query_binary(self, message: str, *, datatype: str, big_endian: bool,
                     timeout_s: float | None = None, max_bytes: int | None = None) -> np.ndarray:
        self.sent.append(message)
        reply = self._take(message)
        raw = reply.encode("latin-1") if isinstance(reply, str) else reply
        if raw is None:
            raise AssertionError(f"{message!r} was sent as a binary query but the pair has no reply")
        try:
            # pyvisa's own block parser, as the real transport uses.
            data = visa_util.from_ieee_block(raw, datatype, big_endian, container=np.array)
        except ValueError as exc:
            raise ScopeTransferError(f"replayed block for {message!r} is invalid: {exc}",
                                     code="invalid-block") from exc
        data = np.asarray(data)
        if max_bytes is not None and data.nbytes > max_bytes:
            raise ScopeTransferError(f"replayed block for {message!r} holds {data.nbytes} bytes, more than "
                                     f"the {max_bytes} promised", code="length-mismatch")
        return data

    def query_compound(self, message: str, *, expect, timeout_s: float | None = None):  # noqa: ANN001
        """The recorded reply read as BlockReading.query_compound (both transports) reads a live one."""
        self.sent.append(message)
        reply = self._take(message)
        raw = reply.encode("latin-1") if isinstance(reply, str) else reply
        if raw is None:
            raise AssertionError(f"{message!r} was sent as a query but the pair has no reply")
        start = block_start(raw)
        found = None if start is None else block_header(raw, start)
        if found is None:
            raise ScopeTransferError(f"replayed reply to {message!r} is not a valid block: {raw[:48]!r}",
                                     code="invalid-block")
        offset, length = found
        dtype, max_bytes, why = expect(raw[:start].decode("latin-1"))
        if length > max_bytes:
            raise ScopeTransferError(f"replayed block for {message!r} announces {length} bytes, more "
                                     f"than the {max_bytes} {why}", code="length-mismatch")
        body = raw[offset:offset + length]
        if len(body) < length:
            raise ScopeTransferError(f"replayed block for {message!r} stopped after {len(body)} of "
                                     f"{length} bytes", code="truncated-block")
        tail = raw[offset + length:]
        if tail != b"\n" and not (tail[:1] == b";" and tail.endswith(b"\n")):
            raise ScopeTransferError(f"replayed block for {message!r} is longer than announced: "
                                     f"{tail[:16]!r} follows it", code="block-too-long")
        data = np.frombuffer(bytearray(body), dtype=dtype)
        return CompoundReply(raw[:start].decode("latin-1"), data, tail[1:-1].decode("latin-1"))

    def discard_input(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    @property
    def remaining(self) -> list[Pair]:
        return self._pairs[self._next:]

    def assert_done(self) -> None:
        """Fail when pairs are left over (the driver skipped part of the protocol)."""
        if self._next != len(self._pairs):
            left = ", ".join(repr(p[0]) for p in self.remaining[:5])
            raise AssertionError(f"{len(self.remaining)} pairs unused, next: {left}")

    def __enter__(self) -> ReplayTransport:
        return self

    def __exit__(self, exc_type: type | None, *_: object) -> None:
        if exc_type is None:
            self.assert_done()


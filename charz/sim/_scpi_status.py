"""IEEE 488.2 status for the mock scope: the Event Status Register and the event queue.

ESR bits (both vendors): 0 OPC, 2 QYE (query error), 3 DDE (device error),
4 EXE (execution error), 5 CME (command error), 7 PON (power on).

Tektronix keeps events in a queue that ``*ESR?`` makes visible: until ``*ESR?`` has
been read, ``EVMsg?`` / ``ALLEv?`` answer ``1,"No events to report - new events
pending *ESR?"``.  Keysight's ``:SYSTem:ERRor?`` reads a plain FIFO.

Example
-------
>>> st = Status(tek_visibility=True)
>>> st.record(113, "Undefined header; Command not found; FOO 1")
>>> st.allev()
'1,"No events to report - new events pending *ESR?"'
>>> st.read_esr(), st.allev()
(32, '113,"Undefined header; Command not found; FOO 1"')
"""

from __future__ import annotations

import threading

__all__ = ["Status", "esr_bit"]

MAX_QUEUE = 32


def esr_bit(code: int) -> int:
    """The ESR bit an event sets (Tek positive codes, SCPI negative codes).

    Example
    -------
    >>> esr_bit(113), esr_bit(221), esr_bit(-410), esr_bit(401)
    (32, 16, 4, 128)
    """
    c = abs(code)
    if code == 401:
        return 0x80
    if 100 <= c < 200:
        return 0x20
    if 200 <= c < 300:
        return 0x10
    if 300 <= c < 400:
        return 0x08
    if 400 <= c < 500:
        return 0x04
    return 0


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class Status:
    """ESR + event queue; thread-safe."""

    def __init__(self, *, tek_visibility: bool):
        self._lock = threading.Lock()
        self._tek = tek_visibility
        self.esr = 0
        self._pending: list[tuple[int, str]] = []  # not yet made visible by *ESR?
        self._visible: list[tuple[int, str]] = []

    def record(self, code: int, message: str) -> None:
        with self._lock:
            self.esr |= esr_bit(code)
            target = self._pending if self._tek else self._visible
            if len(self._pending) + len(self._visible) < MAX_QUEUE:
                target.append((code, message))
            elif target:
                # A full queue keeps its oldest entries and says so in the last one.
                target[-1] = (350, "Queue overflow") if self._tek else (-350, "Queue overflow")

    def set_bits(self, bits: int) -> None:
        with self._lock:
            self.esr |= bits

    def read_esr(self) -> int:
        with self._lock:
            value, self.esr = self.esr, 0
            self._visible.extend(self._pending)
            self._pending.clear()
            return value

    def clear(self) -> None:
        """``*CLS``."""
        with self._lock:
            self.esr = 0
            self._pending.clear()
            self._visible.clear()

    def count(self) -> int:
        with self._lock:
            return len(self._visible)

    def _empty(self) -> str:
        if self._pending:
            return '1,"No events to report - new events pending *ESR?"'
        return '0,"No events to report - queue empty"'

    def evmsg(self) -> str:
        """Tek ``EVMsg?``: the oldest visible event."""
        with self._lock:
            if not self._visible:
                return self._empty()
            code, message = self._visible.pop(0)
            return f"{code},{_q(message)}"

    def allev(self) -> str:
        """Tek ``ALLEv?``: all visible events, comma-separated."""
        with self._lock:
            if not self._visible:
                return self._empty()
            out = ",".join(f"{c},{_q(m)}" for c, m in self._visible)
            self._visible.clear()
            return out

    def next_error(self) -> str:
        """Keysight ``:SYSTem:ERRor?``."""
        with self._lock:
            if not self._visible:
                return '+0,"No error"'
            code, message = self._visible.pop(0)
            return f"{code:+d},{_q(message)}"

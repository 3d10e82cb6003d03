"""Faults the mock scope can inject, selectable per test, over the control channel or
from the command line (``--fault kind[:key=value,...]``).

=================  ===========================================================
kind               what the mock does
=================  ===========================================================
drop_mid_block     sends part of a waveform block, then closes the connection
no_reply           swallows the reply to a query (the client times out)
truncated_block    announces a block, sends only part of it, then nothing
long_block         sends more bytes than the block header announces
bad_preamble       garbles (``mode=garbage``) or drops (``mode=missing``) a preamble field
error_queue        queues an error event (``code``, ``message``) and sets its ESR bit
over_range         multiplies the rendered current by ``gain`` (clipping at the ADC)
no_trigger         the trigger never fires, whatever the current does
slow               delays every reply by ``delay_s``
wrong_idn          answers ``*IDN?`` with ``idn``
stale_reply        answers a query with the reply to the previous query
reset              reverts to factory settings as Default Setup does (``power_cycle``
                   also resets HEADer/VERBose/DATa and reports power-on)
=================  ===========================================================

Every fault fires ``count`` times (None: until cleared) and, when ``match`` is given,
only on program units whose text starts with it (case-insensitive), e.g.
``match="CURV"`` for ``no_reply`` on ``CURVe?`` only.

Example
-------
>>> parse_fault("slow:delay_s=0.5,count=3")
Fault(kind='slow', count=3, match=None, delay_s=0.5, fraction=0.5, extra_bytes=64, mode='garbage', code=221, message='Settings conflict', gain=50.0, idn='RIGOL TECHNOLOGIES,DS1054Z,DS1ZA000000000,00.04.04', power_cycle=False)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["FAULT_KINDS", "Fault", "FaultBook", "parse_fault"]

FAULT_KINDS = (
    "drop_mid_block",
    "no_reply",
    "truncated_block",
    "long_block",
    "bad_preamble",
    "error_queue",
    "over_range",
    "no_trigger",
    "slow",
    "wrong_idn",
    "stale_reply",
    "reset",
)


@dataclass(frozen=True)
class Fault:
    """One fault and its parameters (only those of its kind matter)."""

    kind: str
    count: int | None = 1
    match: str | None = None
    delay_s: float = 0.0
    fraction: float = 0.5
    extra_bytes: int = 64
    mode: str = "garbage"
    code: int = 221
    message: str = "Settings conflict"
    gain: float = 50.0
    idn: str = "RIGOL TECHNOLOGIES,DS1054Z,DS1ZA000000000,00.04.04"
    power_cycle: bool = False

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(FAULT_KINDS)}")
        if self.count is not None and self.count < 1:
            raise ValueError("count must be >= 1 or None (until cleared)")
        if not 0.0 <= self.fraction < 1.0:
            raise ValueError("fraction must be within 0 ... 1 (exclusive)")
        if self.mode not in ("garbage", "missing"):
            raise ValueError("mode must be 'garbage' or 'missing'")
        if self.delay_s < 0 or self.extra_bytes < 1:
            raise ValueError("delay_s must be >= 0 and extra_bytes >= 1")

    def applies_to(self, unit_text: str | None) -> bool:
        if self.match is None:
            return True
        return unit_text is not None and unit_text.lstrip(":").upper().startswith(
            self.match.lstrip(":").upper())


_TYPES = {f.name: f.type for f in fields(Fault)}


def _coerce(name: str, text: str) -> Any:
    kind = str(_TYPES[name])
    if name == "count":
        return None if text.lower() in ("none", "inf", "always") else int(text)
    if "bool" in kind:
        return text.lower() in ("1", "true", "yes", "on")
    if "int" in kind:
        return int(text)
    if "float" in kind:
        return float(text)
    return text


def parse_fault(spec: str | dict[str, Any] | Fault) -> Fault:
    """A fault from ``"kind[:key=value,...]"``, a JSON object, or a Fault.

    Example
    -------
    >>> parse_fault({"kind": "error_queue", "code": 222, "message": "Data out of range"}).code
    222
    """
    if isinstance(spec, Fault):
        return spec
    if isinstance(spec, dict):
        unknown = set(spec) - set(_TYPES)
        if unknown:
            raise ValueError(f"unknown fault parameters {sorted(unknown)}")
        return Fault(**spec)
    kind, _, rest = str(spec).partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in _TYPES or key == "kind":
            raise ValueError(f"bad fault parameter {item!r} (use key=value; keys: "
                             f"{', '.join(k for k in _TYPES if k != 'kind')})")
        params[key] = _coerce(key, value)
    return Fault(kind=kind.strip(), **params)


class FaultBook:
    """The active faults; thread-safe, counts down as faults fire."""

    def __init__(self, faults: list[Fault] | tuple[Fault, ...] = ()):
        self._lock = threading.Lock()
        self._faults: list[Fault] = list(faults)

    def add(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def active(self) -> list[Fault]:
        with self._lock:
            return list(self._faults)

    def take(self, kind: str, unit_text: str | None = None) -> Fault | None:
        """The first matching fault of ``kind``, counted as fired; None when there is none."""
        with self._lock:
            for i, fault in enumerate(self._faults):
                if fault.kind != kind or not fault.applies_to(unit_text):
                    continue
                if fault.count is not None:
                    if fault.count <= 1:
                        del self._faults[i]
                    else:
                        self._faults[i] = replace(fault, count=fault.count - 1)
                return fault
        return None

    def peek(self, kind: str) -> Fault | None:
        with self._lock:
            return next((f for f in self._faults if f.kind == kind), None)

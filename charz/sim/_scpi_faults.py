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

A schedule says *when* a fault may strike (all given conditions must hold), so a
fault can be rehearsed mid-sweep rather than always at the set-up:

* ``at=N``: the Nth matching opportunity (e.g. the 40th ``CURVe?`` with ``match``)
  is the first one struck; the earlier ones pass;
* ``at_capture=k``: only once the drive has been told of k host requests (the
  autoset's calibration requests count too);
* ``after_s`` / ``until_s``: only within this window, in seconds since the mock
  started;
* ``rate=p``: each opportunity is struck with probability p (seeded by ``seed``,
  so a run is repeatable).

Example
-------
>>> f = parse_fault("slow:delay_s=0.5,count=3")
>>> f.kind, f.count, f.delay_s, f.at
('slow', 3, 0.5, 1)
>>> parse_fault("drop_mid_block:match=CURV,at_capture=20").at_capture
20
"""

from __future__ import annotations

import random
import threading
import time
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
    # the schedule
    at: int = 1
    at_capture: int = 0
    after_s: float = 0.0
    until_s: float | None = None
    rate: float = 1.0
    seed: int = 0

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
        if self.at < 1 or self.at_capture < 0:
            raise ValueError("at must be >= 1 (the first opportunity struck) and at_capture >= 0")
        if self.after_s < 0 or (self.until_s is not None and self.until_s <= self.after_s):
            raise ValueError("after_s must be >= 0 and until_s, if given, later than after_s")
        if not 0.0 < self.rate <= 1.0:
            raise ValueError("rate must be within 0 (exclusive) ... 1")

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
    if name == "until_s":
        return None if text.lower() in ("none", "inf") else float(text)
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
    text = str(spec)
    sep = ":" if ":" in text.split(",")[0] or "," not in text else ","  # "no_reply,at=3" too
    kind, _, rest = text.partition(sep)
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

    def __init__(self, faults: list[Fault] | tuple[Fault, ...] = (), *, clock=time.monotonic):
        self._lock = threading.Lock()
        self._faults: list[Fault] = list(faults)
        self._clock = clock
        self._t0 = clock()
        self.ios = 0  # host requests the drive was told of (at_capture)
        self._random = random.Random(sum(f.seed for f in self._faults))

    def note_io(self) -> None:
        """A host request reached the simulated drive."""
        with self._lock:
            self.ios += 1

    def _due(self, i: int, fault: Fault) -> bool:
        """Whether the schedule lets ``fault`` (at index i) strike this opportunity."""
        if self.ios < fault.at_capture:
            return False
        elapsed = self._clock() - self._t0
        if elapsed < fault.after_s or (fault.until_s is not None and elapsed >= fault.until_s):
            return False
        if fault.at > 1:  # an opportunity passed: count it down
            self._faults[i] = replace(fault, at=fault.at - 1)
            return False
        return fault.rate >= 1.0 or self._random.random() < fault.rate

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
                if fault.kind != kind or not fault.applies_to(unit_text) or not self._due(i, fault):
                    continue
                if fault.count is not None:
                    if fault.count <= 1:
                        del self._faults[i]
                    else:
                        self._faults[i] = replace(fault, count=fault.count - 1)
                return fault
        return None

    def peek(self, kind: str) -> Fault | None:
        """The first fault of ``kind`` whose schedule window is open now (``at_capture``,
        ``after_s``/``until_s``), not counted as fired.  Before its window a fault is not
        there: an ``over_range`` meant for mid-sweep must not strike the autoset's idle record."""
        with self._lock:
            elapsed = self._clock() - self._t0
            return next((f for f in self._faults if f.kind == kind and self.ios >= f.at_capture
                         and elapsed >= f.after_s and (f.until_s is None or elapsed < f.until_s)), None)

"""The command-table machinery the mock scope's dialects share.

A dialect declares ``Command(pattern, set=..., query=...)`` entries; this module finds
the entry for each program unit, runs it, turns :class:`ScpiError` into queued events,
and formats query replies (with the header when the dialect's HEADer is ON).

Example
-------
>>> from charz.sim._scpi_status import Status
>>> class Demo(Dialect):
...     lenient = True
...     def __init__(self):
...         super().__init__(Status(tek_visibility=True))
...         self.n = 10000
...         self.table = [Command("HORizontal:RECOrdlength", set=self._set, query=lambda u, x: str(self.n))]
...     def _set(self, u, x): self.n = int(u.args[0])
>>> d = Demo(); d.header_on = True
>>> [r.data for r in d.run_line("hor:reco 1000;RECO?")]
[b':HORIZONTAL:RECORDLENGTH 1000']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from charz.sim._scpi_parse import Pattern, ScpiError, Unit, match_pattern, reply_header, split_message
from charz.sim._scpi_status import Status

__all__ = ["Reply", "Wait", "Command", "Dialect", "arg_number", "arg_int", "arg_bool", "arg_enum",
           "nr3", "eng"]


@dataclass(frozen=True)
class Reply:
    """One response message unit: ``kind`` is text, block, idn or preamble (for faults)."""

    data: bytes
    kind: str = "text"
    unit_text: str = ""


@dataclass(frozen=True)
class Wait:
    """Returned by handlers that block (``*OPC?``): the connection waits outside the lock."""

    until: Callable[[Callable[[], bool]], bool]
    then: Callable[[], Reply | None]


Handler = Callable[[Unit, list[int]], object]


@dataclass(frozen=True)
class Command:
    """One entry of a dialect's command table."""

    pattern_text: str
    set: Handler | None = None
    query: Handler | None = None
    kind: str = "text"  # reply kind for fault injection
    raw: bool = False  # the handler formats its own reply (no header added)
    pattern: Pattern = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", Pattern(self.pattern_text))


class Dialect:
    """Shared behaviour; subclasses fill ``table`` and the header/verbose state."""

    lenient = True  # Tek abbreviation rule; strict SCPI when False
    undefined_code = 113
    header_on = False
    verbose = True

    def __init__(self, status: Status):
        self.status = status
        self.table: list[Command] = []

    def find(self, unit: Unit) -> tuple[Command, list[int]] | None:
        # A client sends the same few headers over and over; matching one against the
        # whole table costs ~40 us, which would make the mock, not the client, the
        # cost of a compound query.  The table never changes after __init__.
        key = (id(self.table), tuple(unit.path))
        cache: dict = self.__dict__.setdefault("_found", {})
        if key not in cache:
            if len(cache) > 4096:  # garbage headers (fuzzing) must not grow it without bound
                cache.clear()
            cache[key] = next(((command, numbers) for command in self.table
                               if (numbers := match_pattern(unit.path, command.pattern,
                                                            self.lenient)) is not None), None)
        found = cache[key]
        return None if found is None else (found[0], list(found[1]))

    def undefined(self, unit: Unit) -> None:
        self.status.record(self.undefined_code, f"Undefined header; Command not found; {unit.text}")

    def execute(self, unit: Unit) -> Reply | Wait | None:
        """Run one unit; errors become queued events, never exceptions."""
        found = self.find(unit)
        handler = None
        if found is not None:
            handler = found[0].query if unit.query else found[0].set
        if found is None or handler is None:
            self.undefined(unit)
            return None
        command, numbers = found
        try:
            value = handler(unit, numbers)
        except ScpiError as exc:
            self.status.record(exc.code, exc.message)
            return None
        if not unit.query or value is None or isinstance(value, (Reply, Wait)):
            return value  # type: ignore[return-value]
        text = str(value)
        if self.header_on and not unit.common and not command.raw:
            text = f"{reply_header(command.pattern, numbers, self.verbose)} {text}"
        return Reply(text.encode("latin-1"), command.kind, unit.text)

    def run_line(self, line: str) -> list[Reply | Wait]:
        """All units of one message (used by tests; the server interleaves waits)."""
        try:
            units = split_message(line, [])
        except ScpiError as exc:
            self.status.record(exc.code, exc.message)
            return []
        out = []
        for unit in units:
            result = self.execute(unit)
            if result is not None:
                out.append(result)
        return out


# ---------------------------------------------------------------- argument helpers


def _one(unit: Unit) -> str:
    if len(unit.args) != 1:
        raise ScpiError(109 if not unit.args else 108,
                        "Missing parameter" if not unit.args else "Parameter not allowed")
    return unit.args[0]


def arg_number(unit: Unit) -> float:
    text = _one(unit)
    try:
        value = float(text)
    except ValueError:
        raise ScpiError(104, f"Data type error; {text} is not a number") from None
    if not math.isfinite(value):
        raise ScpiError(222, "Data out of range")
    return value


def arg_int(unit: Unit) -> int:
    return int(round(arg_number(unit)))


def arg_bool(unit: Unit) -> bool:
    text = _one(unit).upper()
    if text in ("ON", "OFF"):
        return text == "ON"
    try:
        return float(text) != 0
    except ValueError:
        raise ScpiError(104, f"Data type error; {text} is not ON, OFF or a number") from None


def arg_enum(unit: Unit, choices: dict[str, str], lenient: bool = True) -> str:
    """Match an argument against manual mnemonics; returns the canonical key."""
    text = _one(unit).upper()
    for key, mnemonic in choices.items():
        longf = mnemonic.upper()
        short = "".join(c for c in mnemonic if not c.islower()).upper()
        ok = (longf.startswith(text) and text.startswith(short)) if lenient else text in (longf, short)
        if ok:
            return key
    raise ScpiError(224 if lenient else -224, f"Illegal parameter value; {unit.args[0]}")


def nr3(x: float) -> str:
    """Tektronix NR3 in engineering notation (``400.0000E-9``, ``0.0E+0``).

    Example
    -------
    >>> nr3(0.0004), nr3(-2e-3), nr3(0.0), nr3(15.625e-3)
    ('400.0000E-6', '-2.0000E-3', '0.0E+0', '15.6250E-3')
    """
    if x == 0:
        return "0.0E+0"
    exp = 3 * math.floor(math.log10(abs(x)) / 3)
    mant = x / 10**exp
    if round(abs(mant), 4) >= 1000.0:
        exp += 3
        mant = x / 10**exp
    return f"{mant:.4f}E{exp:+d}"


_PREFIX = {-12: "p", -9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G"}


def eng(x: float, unit: str) -> str:
    """A WFID-style value with an SI prefix and four digits (``5.000mV``, ``400.0us``).

    Example
    -------
    >>> eng(0.005, "V"), eng(4e-4, "s"), eng(0.1, "A")
    ('5.000mV', '400.0us', '100.0mA')
    """
    if x == 0:
        return f"0.000{unit}"
    exp = max(min(3 * math.floor(math.log10(abs(x)) / 3), 9), -12)
    mant = x / 10**exp
    digits = 3 if abs(mant) < 10 else 2 if abs(mant) < 100 else 1
    return f"{mant:.{digits}f}{_PREFIX[exp]}{unit}"

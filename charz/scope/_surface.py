"""Declaring a scope's SCPI surface as a table of descriptors.

A driver lists each setting once, with its header as printed in the programmer manual
and a value codec; the descriptor knows how to set it, query it and check that the
reply's header (when the scope sends one) names the same setting, so a stale or
misrouted reply becomes a :class:`~charz.errors.ScopeProtocolError` instead of a value.

A setting that must be read back after ``configure`` says how beside its declaration
(:class:`ReadBack`: what it is called, the value asked for, the tolerance); the driver
skeleton reads them all back in one loop (:func:`read_backs` gives them in order).

Example
-------
>>> from charz.scope._replay import ReplayTransport
>>> class Demo:
...     scale = Control("CH<x>:SCAle", NR3)
...     def __init__(self, t): self._t = t
...     def _write(self, m): self._t.write(m)
...     def _query(self, m, timeout_s=None): return self._t.query(m, timeout_s)
>>> d = Demo(ReplayTransport([("CH1:SCAle 0.05", None), ("CH1:SCAle?", ":CH1:SCALE 50.0000E-3")]))
>>> d.scale.set(0.05, 1)
>>> d.scale.get(1)
0.05
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from charz.errors import ScopeProtocolError
from charz.scope._wire import parse_nr1, parse_nr3, parse_qstring, reply_value

__all__ = ["Codec", "Control", "NR1", "NR3", "QSTRING", "BOOL", "ReadBack", "enum_codec", "format_number",
           "read_backs"]

T = TypeVar("T")


def format_number(x: float) -> str:
    """A number as sent to the scope: 7 significant digits (float noise snapped away).

    Example
    -------
    >>> format_number(0.019999999999999997), format_number(1e-9), format_number(10000)
    ('0.02', '1E-09', '10000')
    """
    if isinstance(x, int):
        return str(x)
    return f"{x:.7G}"


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How a value goes onto the wire (``fmt``) and comes back (``parse``)."""

    parse: Callable[[str], T]
    fmt: Callable[[T], str]


NR1: Codec[int] = Codec(lambda s: parse_nr1(s), str)
NR3: Codec[float] = Codec(lambda s: parse_nr3(s), format_number)
QSTRING: Codec[str] = Codec(lambda s: parse_qstring(s), lambda v: '"' + v.replace('"', '""') + '"')
def _parse_bool(text: str) -> bool:
    value = {"1": True, "0": False, "ON": True, "OFF": False}.get(text.strip().upper())
    if value is None:
        return _bad_enum(text, "ON/OFF/1/0")
    return value


BOOL: Codec[bool] = Codec(_parse_bool, lambda v: "ON" if v else "OFF")


def _bad_enum(text: str, allowed: str) -> Any:
    raise ScopeProtocolError(f"unexpected value {text!r} (expected {allowed})",
                             hint="the scope answered another query or a newer firmware "
                                  "changed the reply; run charz scope check")


def enum_codec(table: Mapping[str, str]) -> Codec[str]:
    """An enumerated setting: ``table`` maps charz's name to the manual's mnemonic.

    Replies are accepted in long, short or intermediate form, any case.

    Example
    -------
    >>> c = enum_codec({"rise": "RISe", "fall": "FALL"})
    >>> c.fmt("rise"), c.parse("RISE"), c.parse("ris")
    ('RISe', 'rise', 'rise')
    >>> enum_codec({"CH1": "CHANnel1", "CH2": "CHANnel2"}).parse("CHAN2")
    'CH2'

    """
    def split(word: str) -> tuple[str, str]:
        m = re.fullmatch(r"(.*?)(\d*)", word)
        assert m is not None
        return m.group(1), m.group(2)

    def parse(text: str) -> str:
        got, got_digits = split(text.strip().strip('"').upper())
        for name, mnemonic in table.items():
            word, digits = split(mnemonic)
            short = "".join(ch for ch in word if not ch.islower()).upper()
            if digits == got_digits and word.upper().startswith(got) and got.startswith(short):
                return name
        return _bad_enum(text, "/".join(table.values()))

    return Codec(parse, lambda name: table[name])


def _as_is(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class ReadBack:
    """How a setting is read back after ``configure`` and compared with what was asked.

    Parameters
    ----------
    label : str
        What a problem calls it; ``{channel}`` is the probe's channel (``"{channel} scale"``).
    asked : callable
        The value asked for, from the settings.
    x : callable, optional
        The ``<x>`` of the header, from the settings (None: the header has none).
    rel_tol : float
        Numbers: agree within this relative tolerance (0: must be equal).
    abs_tol : callable, optional
        Numbers: agree within this absolute tolerance, from the settings (wins over ``rel_tol``).
    normalise : callable
        Applied to the reply before comparing (e.g. strip and upper-case a quoted string).
    show : callable
        How both values are written in a problem.
    read : callable, optional
        A reading other than the control's own query: ``read(owner, x)`` returns the value.
    key : str, optional
        What is checked (default the label); a subclass's control with the same key takes
        the place of its base's in the order of checks.

    Example
    -------
    >>> rb = ReadBack("{channel} scale", lambda s: s.vertical_scale, rel_tol=0.01)
    >>> from types import SimpleNamespace
    >>> s = SimpleNamespace(vertical_scale=0.1, channel="CH1")
    >>> rb.problem(0.1005, s) is None, rb.problem(0.2, s)
    (True, 'CH1 scale is 0.2 (asked for 0.1)')
    """

    label: str
    asked: Callable[[Any], Any]
    x: Callable[[Any], int] | None = None
    rel_tol: float = 0.0
    abs_tol: Callable[[Any], float] | None = None
    normalise: Callable[[Any], Any] = _as_is
    show: Callable[[Any], str] = str
    read: Callable[[Any, int | None], Any] | None = None
    key: str | None = None

    def agrees(self, got: Any, asked: Any, settings: Any) -> bool:
        got = self.normalise(got)
        if self.abs_tol is not None:
            # 1e-12: the scope's NR3 reply of an exactly right value must not fail by rounding
            return abs(got - asked) <= self.abs_tol(settings) + 1e-12
        if self.rel_tol:
            return math.isclose(got, asked, rel_tol=self.rel_tol)
        return bool(got == asked)

    def problem(self, got: Any, settings: Any) -> str | None:
        """None when ``got`` agrees with what ``settings`` asked for, else the line that says so."""
        asked = self.asked(settings)
        if self.agrees(got, asked, settings):
            return None
        label = self.label.format(channel=getattr(settings, "channel", ""))
        return f"{label} is {self.show(got)} (asked for {self.show(asked)})"


class Control(Generic[T]):
    """One settable / queryable SCPI setting; a descriptor on the driver class.

    The owner must provide ``_write(message)`` and ``_query(message) -> str``.
    ``<x>`` in the header is replaced by the channel number given to get/set.
    ``read_back`` says how the setting is checked after ``configure`` (:class:`ReadBack`).
    """

    def __init__(self, header: str, codec: Codec[T], *, query_only: bool = False,
                 read_back: ReadBack | None = None):
        self.header = header
        self.codec = codec
        self.query_only = query_only
        self.read_back = read_back
        self.name = header

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return _Bound(self, obj)

    def resolve(self, x: int | None = None) -> str:
        """The header with ``<x>`` filled in (``CH<x>:SCAle`` → ``CH1:SCAle``)."""
        if "<x>" in self.header:
            if x is None:
                raise TypeError(f"{self.header} needs a channel number")
            return self.header.replace("<x>", str(x))
        return self.header

    def command(self, value: T, x: int | None = None) -> str:
        if self.query_only:
            raise TypeError(f"{self.header} is query-only")
        return f"{self.resolve(x)} {self.codec.fmt(value)}"

    def query(self, x: int | None = None) -> str:
        return f"{self.resolve(x)}?"

    def parse_reply(self, reply: str, x: int | None = None) -> T:
        return self.codec.parse(reply_value(reply, self.resolve(x)))


def read_backs(owner: type) -> tuple[Control[Any], ...]:
    """The controls of a driver class that are read back, in the order they are checked.

    The order is the declaration order, base classes first; a subclass's control whose
    :class:`ReadBack` has the same key takes its base's place (the wire order of the checks
    is what the replay tests pin).
    """
    found: dict[str, Control[Any]] = {}
    for klass in reversed(owner.__mro__):
        for value in vars(klass).values():
            if isinstance(value, Control) and value.read_back is not None:
                found[value.read_back.key or value.read_back.label] = value
    return tuple(found.values())


class _Bound(Generic[T]):
    def __init__(self, control: Control[T], owner: Any):
        self._c = control
        self._owner = owner

    def set(self, value: T, x: int | None = None) -> None:
        self._owner._write(self._c.command(value, x))

    def get(self, x: int | None = None, *, timeout_s: float | None = None) -> T:
        return self._c.parse_reply(self._owner._query(self._c.query(x), timeout_s), x)

    def command(self, value: T, x: int | None = None) -> str:
        return self._c.command(value, x)

    def query(self, x: int | None = None) -> str:
        """The query as sent, for joining into a compound message (``ACQuire:NUMACq?``)."""
        return self._c.query(x)

    def parse_reply(self, reply: str, x: int | None = None) -> T:
        """One unit of a compound reply, its header checked as :meth:`get` does."""
        return self._c.parse_reply(reply, x)

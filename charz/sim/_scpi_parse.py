"""SCPI program messages as the mock scope reads them (pure; no sockets).

Written from the programmer manuals' "Command Syntax" chapters, not from charz's
driver:

* a message is ``unit;unit;...``; ``;`` inside quoted strings does not split;
* a unit starting with ``:`` is absolute; one without it, after a ``;``, reuses the
  previous unit's path minus its last mnemonic (``ACQuire:MODe SAMple;NUMAVg 8``);
  star commands (``*OPC``) never change that path;
* mnemonics are case-insensitive; Tektronix accepts anything from the short form
  (the capitals in the manual) to the long form, strict SCPI (Keysight) accepts
  exactly the short or the long form; ``CH<x>`` carries its number;
* the header ends at white space; arguments are comma-separated.

Example
-------
>>> units = split_message(":acq:mode sample;NUMAVG 8;*OPC;:hor:reco?", [])
>>> [(u.path, u.query, u.args) for u in units]
[(['ACQ', 'MODE'], False, ['sample']), (['ACQ', 'NUMAVG'], False, ['8']), (['*OPC'], False, []), (['HOR', 'RECO'], True, [])]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ScpiError",
    "Unit",
    "Pattern",
    "split_message",
    "split_args",
    "match_pattern",
    "reply_header",
    "unquote",
]


class ScpiError(Exception):
    """An error the instrument would queue (code and message as in the manuals)."""

    def __init__(self, code: int, message: str):
        super().__init__(f"{code} {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Unit:
    """One program message unit, header resolved against the current path."""

    path: list[str]  # mnemonics, upper case, e.g. ["CH1", "SCALE"] or ["*IDN"]
    query: bool
    args: list[str]
    text: str  # as received, for error messages

    @property
    def common(self) -> bool:
        return self.path[0].startswith("*")


def _split_outside_quotes(text: str, sep: str) -> list[str]:
    if '"' not in text and "'" not in text:
        return text.split(sep)  # the common case, without a Python step per character
    parts, cur, quote = [], [], None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if quote:
        raise ScpiError(-151 if sep == "," else 151, "Invalid string data; unterminated quote")
    parts.append("".join(cur))
    return parts


def split_args(text: str) -> list[str]:
    """Comma-separated arguments, white space around them removed.

    Example
    -------
    >>> split_args(' CH1 , "a,b" ')
    ['CH1', '"a,b"']
    """
    text = text.strip()
    if not text:
        return []
    return [a.strip() for a in _split_outside_quotes(text, ",")]


def unquote(text: str) -> str:
    """A quoted string argument without its quotes (doubled quotes collapsed).

    Example
    -------
    >>> unquote('"A"'), unquote("'say ''hi'''")
    ('A', "say 'hi'")
    """
    t = text.strip()
    if len(t) >= 2 and t[0] in "\"'" and t[-1] == t[0]:
        return t[1:-1].replace(t[0] * 2, t[0])
    raise ScpiError(104, "Data type error; expected a quoted string")


_HEADER = re.compile(r"^\s*(:?)([A-Za-z*][A-Za-z0-9_:*]*)(\?)?(?:\s+(.*))?\s*$", re.S)


def split_message(line: str, path: list[str]) -> list[Unit]:
    """Parse one line into units; ``path`` is the path left by the previous unit.

    Returns the units; the path for the next message starts at the root again (a new
    message always does), so callers pass ``[]``.
    """
    units: list[Unit] = []
    current = list(path)
    for raw in _split_outside_quotes(line, ";"):
        if not raw.strip():
            continue
        m = _HEADER.match(raw)
        if m is None:
            raise ScpiError(113, f"Undefined header; Command not found; {raw.strip()}")
        absolute, header, query, rest = m.groups()
        nodes = [n.upper() for n in header.split(":") if n]
        if not nodes:
            raise ScpiError(113, f"Undefined header; Command not found; {raw.strip()}")
        if nodes[0].startswith("*"):
            units.append(Unit(nodes, bool(query), split_args(rest or ""), raw.strip()))
            continue  # star commands leave the path alone
        full = nodes if (absolute or not current) else current + nodes
        units.append(Unit(full, bool(query), split_args(rest or ""), raw.strip()))
        current = full[:-1]
    return units


@dataclass(frozen=True)
class Pattern:
    """A header as the manual prints it, e.g. ``TRIGger:A:LEVel:CH<x>``."""

    text: str

    @property
    def nodes(self) -> list[str]:
        return self.text.lstrip(":").split(":")


def _node(received: str, pattern: str, lenient: bool) -> int | None | bool:
    """Match one mnemonic; returns the ``<x>`` number, True for a plain match, None for none."""
    number: int | None = None
    word = received
    if pattern.endswith("<x>"):
        m = re.fullmatch(r"([A-Z_]+)(\d+)", received)
        if m is None:
            return None
        word, number = m.group(1), int(m.group(2))
        pattern = pattern[:-3]
    longf = pattern.upper()
    short = "".join(c for c in pattern if not c.islower()).upper()
    if lenient:
        ok = longf.startswith(word) and word.startswith(short)
    else:
        ok = word in (longf, short)
    if not ok:
        return None
    return number if number is not None else True


def match_pattern(path: list[str], pattern: Pattern, lenient: bool) -> list[int] | None:
    """The ``<x>`` numbers when ``path`` names ``pattern``, else None.

    Example
    -------
    >>> match_pattern(["TRIG", "A", "LEV", "CH2"], Pattern("TRIGger:A:LEVel:CH<x>"), True)
    [2]
    >>> match_pattern(["TRIGG", "A", "LEV", "CH2"], Pattern("TRIGger:A:LEVel:CH<x>"), False) is None
    True
    """
    nodes = pattern.nodes
    if len(path) != len(nodes):
        return None
    numbers = []
    for got, want in zip(path, nodes):
        r = _node(got, want, lenient)
        if r is None:
            return None
        if r is not True:
            numbers.append(int(r))
    return numbers


def reply_header(pattern: Pattern, numbers: list[int], verbose: bool) -> str:
    """The header a query reply carries with HEADer ON: long (VERBose ON) or short.

    Example
    -------
    >>> reply_header(Pattern("HORizontal:RECOrdlength"), [], True)
    ':HORIZONTAL:RECORDLENGTH'
    >>> reply_header(Pattern("CH<x>:SCAle"), [1], False)
    ':CH1:SCA'
    """
    out, it = [], iter(numbers)
    for node in pattern.nodes:
        suffix = ""
        if node.endswith("<x>"):
            node, suffix = node[:-3], str(next(it))
        word = node.upper() if verbose else "".join(c for c in node if not c.islower()).upper()
        out.append(word + suffix)
    return ":" + ":".join(out)

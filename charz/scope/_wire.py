"""Wire formats of the oscilloscopes charz drives: pure functions, no I/O.

Each reply format has a ``parse_*`` and a ``format_*`` function so that the pair
can be round-trip tested; malformed input raises :class:`ScopeProtocolError`
naming the field and quoting the text.  Binary blocks are *not* parsed here:
pyvisa's block header parser and converter handle them (see ``_transport.py``).

Formats
-------
``*IDN?``                 ``TEKTRONIX,DPO3014,C012345,CF:91.1CT FV:v2.14``
Tek ``WFMOutpre?``        16 fields (DPO/MSO 2k/3k/4k), 22 fields (MDO3/4),
                          keyed (HEADer ON, long or short keys) or bare (HEADer OFF)
Tek reply with header     ``:HORIZONTAL:RECORDLENGTH 10000`` (VERBose ON),
                          ``:HOR:RECO 10000`` (VERBose OFF), ``10000`` (HEADer OFF)
Tek ``ALLEv?``            ``113,"Undefined header; Command not found; HOR:FOO 1"``
Keysight ``:WAV:PRE?``    ``+1,+0,+10000,+1,+2.0E-06,-2.0E-03,+0,+1.2E-05,+0.0E+00,+0``
Keysight ``:SYST:ERR?``   ``-113,"Undefined header"``

Example
-------
>>> p = parse_wfmoutpre('1;8;BIN;RI;MSB;"Ch1, DC coupling, 5.000mV/div, 400.0us/div, '
...                     '10000 points, Sample mode";10000;Y;"s";400.0000E-9;-2.0000E-3;'
...                     '0;"V";200.0000E-6;0.0E+0;0.0E+0')
>>> p.nr_pt, p.xincr, p.ymult
(10000, 4e-07, 0.0002)
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from charz.errors import ScopeProtocolError, ScopeTransferError

__all__ = [
    "Identity",
    "TekPreamble",
    "KeysightPreamble",
    "ScopeEvent",
    "parse_idn",
    "format_idn",
    "split_units",
    "split_header",
    "header_matches",
    "reply_value",
    "parse_nr1",
    "parse_nr3",
    "parse_qstring",
    "format_nr3",
    "format_qstring",
    "parse_wfmoutpre",
    "format_wfmoutpre",
    "parse_tek_events",
    "format_tek_events",
    "parse_keysight_preamble",
    "format_keysight_preamble",
    "parse_keysight_error",
    "format_keysight_error",
    "block_datatype",
    "block_dtype",
    "raise_reply_mismatch",
    "block_start",
    "block_header",
    "split_compound",
]

_HINT_PROTOCOL = (
    "the scope answered something the programmer manual does not allow; check that the "
    "resource string points at the oscilloscope (not another instrument on that port) "
    "and that nothing else is talking to it"
)


def _bad(what: str, text: str) -> ScopeProtocolError:
    shown = text if len(text) <= 200 else text[:200] + "…"
    return ScopeProtocolError(f"{what}: {shown!r}", hint=_HINT_PROTOCOL)


# ---------------------------------------------------------------- identity


@dataclass(frozen=True)
class Identity:
    """The four fields of an IEEE 488.2 ``*IDN?`` reply.

    Example
    -------
    >>> parse_idn("TEKTRONIX,DPO3014,C012345,CF:91.1CT FV:v2.14").model
    'DPO3014'
    """

    manufacturer: str
    model: str
    serial: str
    firmware: str

    def __str__(self) -> str:
        return format_idn(self)


def parse_idn(reply: str) -> Identity:
    """Split an ``*IDN?`` reply into its four comma-separated fields.

    Example
    -------
    >>> parse_idn("KEYSIGHT TECHNOLOGIES,DSOX3024T,MY12345678,07.50.2021102830")
    Identity(manufacturer='KEYSIGHT TECHNOLOGIES', model='DSOX3024T', serial='MY12345678', firmware='07.50.2021102830')
    """
    text = reply.strip()
    # Some firmwares answer *IDN? with a header when HEADer is ON (``:IDN ...``) — never for
    # the star form on the scopes we know, but tolerate it rather than fail on the bench.
    if text.upper().startswith(":IDN "):
        text = text[5:].strip()
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 4 or not parts[0] or not parts[1]:
        raise _bad("*IDN? reply is not 'manufacturer,model,serial,firmware'", reply)
    return Identity(*parts)


def format_idn(identity: Identity) -> str:
    """Inverse of :func:`parse_idn`.

    Example
    -------
    >>> format_idn(Identity("TEKTRONIX", "DPO3014", "C1", "FV:v2.14"))
    'TEKTRONIX,DPO3014,C1,FV:v2.14'
    """
    return ",".join((identity.manufacturer, identity.model, identity.serial, identity.firmware))


# ---------------------------------------------------------------- SCPI reply pieces


def split_units(reply: str, sep: str = ";") -> list[str]:
    """Split a response message on ``sep`` outside quoted strings.

    Quotes are Tek's: ``"..."`` or ``'...'``, a doubled quote stands for itself.

    Example
    -------
    >>> split_units(':A 1;B "x;y";C 2')
    [':A 1', 'B "x;y"', 'C 2']
    """
    if '"' not in reply and "'" not in reply:
        return [u.strip() for u in reply.split(sep)]
    # One regex step per unit, not a Python step per character: a preamble is parsed on
    # every fetch.  "x""y" is two adjacent quoted runs, so doubled quotes need no rule.
    pattern = _unit_pattern(sep)
    units: list[str] = []
    pos = 0
    while True:
        end = pattern.match(reply, pos).end()  # type: ignore[union-attr] - matches "" at least
        units.append(reply[pos:end].strip())
        if end == len(reply):
            return units
        if reply[end] != sep:
            raise _bad("unterminated quoted string in reply", reply)
        pos = end + 1


@functools.lru_cache(maxsize=8)
def _unit_pattern(sep: str) -> re.Pattern[str]:
    return re.compile(f"(?:[^{re.escape(sep)}\"']|\"[^\"]*\"|'[^']*')*", re.S)


_KEYED = re.compile(r"^(:?[A-Za-z*][A-Za-z0-9_:*]*)\s+(.*)$", re.S)


def split_header(unit: str) -> tuple[str | None, str]:
    """Split one response unit into ``(header, value)``; header is None when absent.

    Example
    -------
    >>> split_header(":HORIZONTAL:RECORDLENGTH 10000")
    (':HORIZONTAL:RECORDLENGTH', '10000')
    >>> split_header("10000")
    (None, '10000')
    >>> split_header("SAMPLE")
    (None, 'SAMPLE')
    """
    text = unit.strip()
    m = _KEYED.match(text)
    if m is None:
        return None, text
    head, value = m.group(1), m.group(2).strip()
    # A bare enum value never contains a space, so a match means a real header —
    # except values like ``ARMED`` followed by nothing, which do not match at all.
    return head, value


def _node_matches(received: str, pattern: str) -> bool:
    """Tek abbreviation rule for one mnemonic: ``SCAle`` accepts SCA, SCAL and SCALE.

    The manuals print the shortest acceptable form in capitals; anything from that to
    the full word is accepted, in any case.  ``CH<x>`` needs its number.
    """
    if pattern.endswith("<x>"):
        m = re.fullmatch(r"([A-Za-z_]+)(\d+)", received)
        if m is None:
            return False
        word, pat = m.group(1), pattern[:-3]
    else:
        word, pat = received, pattern
    short = "".join(c for c in pat if not c.islower())
    w = word.upper()
    return pat.upper().startswith(w) and w.startswith(short.upper())


@functools.lru_cache(maxsize=512)  # pure; the same few headers come back on every capture
def header_matches(received: str, pattern: str) -> bool:
    """True when a header from the scope names the command ``pattern``.

    ``pattern`` is written the manuals' way (``HORizontal:RECOrdlength``, ``CH<x>:SCAle``);
    ``received`` may be long, short or anything between, in any case, with or without
    the leading colon.

    Example
    -------
    >>> header_matches(":HOR:RECO", "HORizontal:RECOrdlength")
    True
    >>> header_matches(":CH1:SCALE", "CH<x>:SCAle")
    True
    >>> header_matches(":CH1:POSITION", "CH<x>:SCAle")
    False
    """
    got = received.strip().lstrip(":").split(":")
    want = pattern.strip().lstrip(":").split(":")
    return len(got) == len(want) and all(_node_matches(g, w) for g, w in zip(got, want))


def reply_value(reply: str, pattern: str | None = None) -> str:
    """The value of a single-unit reply, header stripped and checked when present.

    A header that does not name ``pattern`` means the reply belongs to another query
    (a stale or misrouted answer), which is a protocol error, never a value.

    Example
    -------
    >>> reply_value(":HORIZONTAL:RECORDLENGTH 10000", "HORizontal:RECOrdlength")
    '10000'
    >>> reply_value("10000", "HORizontal:RECOrdlength")
    '10000'
    """
    units = split_units(reply.strip())
    if len(units) != 1:
        raise _bad(f"expected one value for {pattern or 'the query'}, got {len(units)}", reply)
    head, value = split_header(units[0])
    if head is not None and pattern is not None and not header_matches(head, pattern):
        err = _bad(f"reply to {pattern}? carries the header of another query ({head})", reply)
        err.hint = ("replies and queries are out of step: an earlier query timed out and its "
                    "answer came late, or another program talks to the scope; charz "
                    "resynchronises on the next call, retry it")
        raise err
    if value == "":
        raise _bad(f"empty reply to {pattern or 'the query'}", reply)
    return value


def parse_nr1(text: str, what: str = "integer") -> int:
    """An NR1 integer (``+10000``, ``-3``).

    Example
    -------
    >>> parse_nr1("+10000")
    10000
    """
    t = text.strip()
    if not re.fullmatch(r"[+-]?\d+", t):
        # Some scopes send an integral NR3 (``1.0000E+3``) where NR1 is documented.
        try:
            x = float(t)
        except ValueError:
            raise _bad(f"{what} is not a number", text) from None
        if not math.isfinite(x) or x != int(x):
            raise _bad(f"{what} is not an integer", text)
        return int(x)
    return int(t)


def parse_nr3(text: str, what: str = "number") -> float:
    """An NR2/NR3 number; NaN/inf and Tek's 9.91E37 "no value" are protocol errors.

    Example
    -------
    >>> parse_nr3("400.0000E-9")
    4e-07
    """
    t = text.strip()
    try:
        x = float(t)
    except ValueError:
        raise _bad(f"{what} is not a number", text) from None
    if not math.isfinite(x) or abs(x) >= 9.9e37:
        raise _bad(f"{what} is not a finite value", text)
    return x


def parse_qstring(text: str, what: str = "string") -> str:
    """A quoted string, quotes removed and doubled quotes collapsed.

    Example
    -------
    >>> parse_qstring('"Ch1, DC coupling"')
    'Ch1, DC coupling'
    """
    t = text.strip()
    if len(t) < 2 or t[0] not in "\"'" or t[-1] != t[0]:
        raise _bad(f"{what} is not a quoted string", text)
    q = t[0]
    return t[1:-1].replace(q + q, q)


def format_qstring(value: str) -> str:
    """Inverse of :func:`parse_qstring`.

    Example
    -------
    >>> format_qstring('a"b')
    '"a""b"'
    """
    return '"' + value.replace('"', '""') + '"'


def format_nr3(x: float) -> str:
    """Tek's engineering NR3 (``400.0000E-9``; zero is ``0.0E+0``).

    Example
    -------
    >>> format_nr3(4e-07), format_nr3(0.0), format_nr3(-0.002), format_nr3(12800.0)
    ('400.0000E-9', '0.0E+0', '-2.0000E-3', '12.8000E+3')
    """
    if x == 0:
        return "0.0E+0"
    exp = int(math.floor(math.log10(abs(x)) / 3) * 3)
    mant = x / 10.0**exp
    if abs(round(mant, 4)) >= 1000:  # rounding carried into the next decade
        exp += 3
        mant = x / 10.0**exp
    return f"{mant:.4f}E{exp:+d}"


# ---------------------------------------------------------------- Tek WFMOutpre

# (canonical, long form as in the manuals).  The short form is the capitals.
_PREAMBLE_KEYS: tuple[tuple[str, str], ...] = (
    ("BYT_NR", "BYT_Nr"),
    ("BIT_NR", "BIT_Nr"),
    ("ENCDG", "ENCdg"),
    ("BN_FMT", "BN_Fmt"),
    ("BYT_OR", "BYT_Or"),
    ("WFID", "WFId"),
    ("NR_PT", "NR_Pt"),
    ("PT_FMT", "PT_Fmt"),
    ("PT_ORDER", "PT_ORder"),
    ("XUNIT", "XUNit"),
    ("XINCR", "XINcr"),
    ("XZERO", "XZEro"),
    ("PT_OFF", "PT_Off"),
    ("YUNIT", "YUNit"),
    ("YMULT", "YMUlt"),
    ("YOFF", "YOFf"),
    ("YZERO", "YZEro"),
    ("DOMAIN", "DOMain"),
    ("WFMTYPE", "WFMTYPe"),
    ("CENTERFREQUENCY", "CENTERFREQuency"),
    ("SPAN", "SPAN"),
    ("REFLEVEL", "REFLEVel"),
    ("NR_FR", "NR_FR"),
    ("ASC_FMT", "ASC_Fmt"),
    ("RESAMPLE", "RESample"),
)
_LONG = {canon: longf for canon, longf in _PREAMBLE_KEYS}


@functools.lru_cache(maxsize=256)  # a scope sends the same few keys on every fetch
def _canonical_key(key: str) -> str | None:
    for canon, longf in _PREAMBLE_KEYS:
        if _node_matches(key, longf):
            return canon
    return None


# HEADer OFF layouts, anchored on the three quoted fields (WFID, XUNIT, YUNIT).
_BEFORE_WFID = ("BYT_NR", "BIT_NR", "ENCDG", "BN_FMT", "BYT_OR")
_WFID_TO_XUNIT = {2: ("NR_PT", "PT_FMT"), 3: ("NR_PT", "PT_FMT", "PT_ORDER")}
_XUNIT_TO_YUNIT = ("XINCR", "XZERO", "PT_OFF")
_AFTER_YUNIT = {
    3: ("YMULT", "YOFF", "YZERO"),
    4: ("YMULT", "YOFF", "YZERO", "NR_FR"),
    8: ("YMULT", "YOFF", "YZERO", "DOMAIN", "WFMTYPE", "CENTERFREQUENCY", "SPAN", "REFLEVEL"),
}

_LAYOUT_DPO3000 = (
    _BEFORE_WFID + ("WFID",) + _WFID_TO_XUNIT[2] + ("XUNIT",) + _XUNIT_TO_YUNIT + ("YUNIT",)
    + _AFTER_YUNIT[3]
)
_LAYOUT_MDO = (
    _BEFORE_WFID + ("WFID",) + _WFID_TO_XUNIT[3] + ("XUNIT",) + _XUNIT_TO_YUNIT + ("YUNIT",)
    + _AFTER_YUNIT[8]
)
_LAYOUTS = {"dpo3000": _LAYOUT_DPO3000, "mdo": _LAYOUT_MDO}


@dataclass(frozen=True)
class TekPreamble:
    """A Tektronix ``WFMOutpre?`` reply, typed.

    Scaling (manual, WFMOutpre:YMUlt): ``value = (code - yoff) * ymult + yzero`` and
    ``t_i = xzero + (i - pt_off) * xincr``.

    Example
    -------
    >>> p = parse_wfmoutpre(':WFMOUTPRE:BYT_NR 2;BIT_NR 16;ENCDG BIN;BN_FMT RI;BYT_OR MSB;'
    ...     'WFID "Ch1, DC coupling";NR_PT 10;PT_FMT Y;XUNIT "s";XINCR 2.0E-6;'
    ...     'XZERO 0.0E+0;PT_OFF 0;YUNIT "A";YMULT 15.6250E-6;YOFF 0.0E+0;YZERO 0.0E+0')
    >>> p.byt_nr, p.yunit, p.wfid
    (2, 'A', 'Ch1, DC coupling')
    """

    byt_nr: int
    bit_nr: int
    encdg: str  # "BIN" or "ASC"
    bn_fmt: str  # "RI", "RP" or "FP"
    byt_or: str  # "MSB" or "LSB"
    wfid: str
    nr_pt: int
    pt_fmt: str
    xunit: str
    xincr: float
    xzero: float
    pt_off: int
    yunit: str
    ymult: float
    yoff: float
    yzero: float
    extra: tuple[tuple[str, str], ...] = field(default=())

    @property
    def n_bytes(self) -> int:
        """Bytes of sample data ``CURVe?`` will send (binary encodings)."""
        return self.nr_pt * self.byt_nr


_ENCDG = {"BIN": "BIN", "BINARY": "BIN", "ASC": "ASC", "ASCII": "ASC", "ASCI": "ASC"}
_BN_FMT = {"RI": "RI", "RP": "RP", "FP": "FP"}
_BYT_OR = {"MSB": "MSB", "LSB": "LSB"}
_PT_FMT = {"Y": "Y", "ENV": "ENV", "ENVELOPE": "ENV"}


def _keyed_fields(units: list[str], reply: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for unit in units:
        head, value = split_header(unit)
        if head is None:
            raise _bad("WFMOutpre? reply mixes keyed and bare fields", reply)
        key = head.split(":")[-1]
        canon = _canonical_key(key)
        if canon is None:
            continue  # a key a newer firmware added; ignore rather than fail
        if canon in fields and fields[canon] != value:
            raise _bad(f"WFMOutpre? reply repeats {canon} with another value", reply)
        fields[canon] = value
    return fields


def _bare_fields(units: list[str], reply: str) -> dict[str, str]:
    quoted = [i for i, u in enumerate(units) if u[:1] in "\"'"]
    if len(quoted) != 3:
        raise _bad(
            f"WFMOutpre? reply has {len(quoted)} quoted fields, expected 3 (WFID, XUNIT, YUNIT)",
            reply,
        )
    q_wfid, q_xunit, q_yunit = quoted
    mid = _WFID_TO_XUNIT.get(q_xunit - q_wfid - 1)
    tail = _AFTER_YUNIT.get(len(units) - q_yunit - 1)
    if q_wfid != len(_BEFORE_WFID) or mid is None or tail is None or q_yunit - q_xunit - 1 != 3:
        raise _bad(
            f"WFMOutpre? reply has {len(units)} fields in an unknown layout "
            "(known: 16-field DPO/MSO 2k/3k/4k, 22-field MDO)",
            reply,
        )
    names = _BEFORE_WFID + ("WFID",) + mid + ("XUNIT",) + _XUNIT_TO_YUNIT + ("YUNIT",) + tail
    return dict(zip(names, units))


def _enum(fields: dict[str, str], key: str, table: dict[str, str], reply: str) -> str:
    raw = fields[key].strip().upper()
    if raw not in table:
        raise _bad(f"WFMOutpre {key} has an unknown value {fields[key]!r}", reply)
    return table[raw]


@functools.lru_cache(maxsize=64)  # pure and frozen: a scope sends the same preamble capture after capture
def parse_wfmoutpre(reply: str) -> TekPreamble:
    """Parse a ``WFMOutpre?`` reply in any of its documented shapes.

    Keyed replies (HEADer ON; long, short or mixed keys; ``:WFMOUTPRE:``, ``:WFMO:`` or
    ``:WFMPRE:`` prefix; any order) are read key by key.  Bare replies (HEADer OFF) are
    read by anchoring on the three quoted fields, so the 16-field DPO3000 order and the
    22-field MDO order both parse, and anything else is refused rather than guessed.

    Example
    -------
    >>> parse_wfmoutpre(':WFMO:BYT_N 1;BIT_N 8;ENC BIN;BN_F RI;BYT_O MSB;WFI "x";NR_P 5;'
    ...     'PT_F Y;XUN "s";XIN 1.0E-6;XZE 0.0E+0;PT_O 0;YUN "A";YMU 4.0E-3;YOF 0.0E+0;'
    ...     'YZE 0.0E+0').nr_pt
    5
    """
    units = [u for u in split_units(reply.strip())]
    if not units or units == [""]:
        raise _bad("empty WFMOutpre? reply", reply)
    if any(u == "" for u in units):
        raise _bad("WFMOutpre? reply has an empty field", reply)
    first_head, _ = split_header(units[0])
    fields = _keyed_fields(units, reply) if first_head is not None else _bare_fields(units, reply)

    required = ("BYT_NR", "ENCDG", "BN_FMT", "BYT_OR", "NR_PT", "XINCR", "XZERO",
                "YUNIT", "YMULT", "YOFF", "YZERO")
    missing = [k for k in required if k not in fields]
    if missing:
        raise _bad(f"WFMOutpre? reply lacks {', '.join(missing)}", reply)

    byt_nr = parse_nr1(fields["BYT_NR"], "WFMOutpre BYT_NR")
    if byt_nr not in (1, 2, 4, 8):
        raise _bad(f"WFMOutpre BYT_NR must be 1, 2, 4 or 8, not {byt_nr}", reply)
    bit_nr = parse_nr1(fields["BIT_NR"], "WFMOutpre BIT_NR") if "BIT_NR" in fields else 8 * byt_nr
    nr_pt = parse_nr1(fields["NR_PT"], "WFMOutpre NR_PT")
    if nr_pt < 0:
        raise _bad("WFMOutpre NR_PT is negative", reply)
    xincr = parse_nr3(fields["XINCR"], "WFMOutpre XINCR")
    if xincr <= 0:
        raise _bad("WFMOutpre XINCR must be positive", reply)
    ymult = parse_nr3(fields["YMULT"], "WFMOutpre YMULT")
    if ymult == 0:
        raise _bad("WFMOutpre YMULT is zero", reply)

    known = set(required) | {"BIT_NR", "WFID", "PT_FMT", "XUNIT", "PT_OFF"}
    extra = tuple((k, v) for k, v in fields.items() if k not in known)
    return TekPreamble(
        byt_nr=byt_nr,
        bit_nr=bit_nr,
        encdg=_enum(fields, "ENCDG", _ENCDG, reply),
        bn_fmt=_enum(fields, "BN_FMT", _BN_FMT, reply),
        byt_or=_enum(fields, "BYT_OR", _BYT_OR, reply),
        wfid=parse_qstring(fields["WFID"], "WFMOutpre WFID") if "WFID" in fields else "",
        nr_pt=nr_pt,
        pt_fmt=_enum(fields, "PT_FMT", _PT_FMT, reply) if "PT_FMT" in fields else "Y",
        xunit=parse_qstring(fields["XUNIT"], "WFMOutpre XUNIT") if "XUNIT" in fields else "s",
        xincr=xincr,
        xzero=parse_nr3(fields["XZERO"], "WFMOutpre XZERO"),
        pt_off=parse_nr1(fields["PT_OFF"], "WFMOutpre PT_OFF") if "PT_OFF" in fields else 0,
        yunit=parse_qstring(fields["YUNIT"], "WFMOutpre YUNIT"),
        ymult=ymult,
        yoff=parse_nr3(fields["YOFF"], "WFMOutpre YOFF"),
        yzero=parse_nr3(fields["YZERO"], "WFMOutpre YZERO"),
        extra=extra,
    )


def _field_text(p: TekPreamble, key: str, verbose: bool) -> str:
    values = {
        "BYT_NR": str(p.byt_nr),
        "BIT_NR": str(p.bit_nr),
        "ENCDG": {"BIN": "BINARY", "ASC": "ASCII"}[p.encdg] if verbose else p.encdg,
        "BN_FMT": p.bn_fmt,
        "BYT_OR": p.byt_or,
        "WFID": format_qstring(p.wfid),
        "NR_PT": str(p.nr_pt),
        "PT_FMT": p.pt_fmt,
        "XUNIT": format_qstring(p.xunit),
        "XINCR": format_nr3(p.xincr),
        "XZERO": format_nr3(p.xzero),
        "PT_OFF": str(p.pt_off),
        "YUNIT": format_qstring(p.yunit),
        "YMULT": format_nr3(p.ymult),
        "YOFF": format_nr3(p.yoff),
        "YZERO": format_nr3(p.yzero),
    }
    if key in values:
        return values[key]
    return dict(p.extra)[key]


def format_wfmoutpre(
    p: TekPreamble, *, header: bool = False, verbose: bool = True, layout: str = "dpo3000"
) -> str:
    """Inverse of :func:`parse_wfmoutpre` (for tests and fixtures, not for the mock).

    ``layout`` is ``"dpo3000"`` (16 fields) or ``"mdo"`` (22 fields; the extra fields
    come from ``p.extra``).

    Example
    -------
    >>> p = TekPreamble(1, 8, "BIN", "RI", "MSB", "Ch1", 5, "Y", "s", 1e-6, 0.0, 0, "A",
    ...                 0.004, 0.0, 0.0)
    >>> format_wfmoutpre(p)
    '1;8;BIN;RI;MSB;"Ch1";5;Y;"s";1.0000E-6;0.0E+0;0;"A";4.0000E-3;0.0E+0;0.0E+0'
    """
    keys = _LAYOUTS[layout]
    parts = []
    for i, key in enumerate(keys):
        value = _field_text(p, key, verbose and header)
        if not header:
            parts.append(value)
            continue
        name = _LONG[key].upper() if verbose else "".join(
            c for c in _LONG[key] if c.isupper() or c == "_"
        )
        prefix = (":WFMOUTPRE:" if verbose else ":WFMO:") if i == 0 else ""
        parts.append(f"{prefix}{name} {value}")
    return ";".join(parts)


# ---------------------------------------------------------------- Tek events


@dataclass(frozen=True)
class ScopeEvent:
    """One entry of an instrument's event / error queue.

    Example
    -------
    >>> parse_tek_events('113,"Undefined header; Command not found; HOR:FOO 1"')[0].code
    113
    """

    code: int
    message: str

    @property
    def is_error(self) -> bool:
        """Command (1xx), execution (2xx), device (3xx) and query (4xx) errors.

        Tek codes 0/1 mean "queue empty"; 4xx also holds informational 401 (power on)
        and 402 (operation complete), which are events, not errors.  SCPI negative codes
        (Keysight) are errors; 0 is "No error".
        """
        if self.code < 0:
            return True
        return 100 <= self.code < 500 and self.code not in (401, 402, 403, 404, 405)


_EVENT = re.compile(r"""\s*([+-]?\d+)\s*,\s*("(?:[^"]|"")*"|'(?:[^']|'')*')\s*""")


def parse_tek_events(reply: str) -> tuple[ScopeEvent, ...]:
    """Parse ``ALLEv?`` / ``EVMsg?`` replies; the empty-queue entries (codes 0, 1) drop out.

    Example
    -------
    >>> parse_tek_events('0,"No events to report - queue empty"')
    ()
    >>> [e.code for e in parse_tek_events('113,"Undefined header";221,"Settings conflict"')]
    [113, 221]
    """
    text = reply.strip()
    head, value = split_header(text) if text[:1] == ":" else (None, text)
    events: list[ScopeEvent] = []
    pos = 0
    body = value if head is not None else text
    while pos < len(body):
        m = _EVENT.match(body, pos)
        if m is None:
            raise _bad("event queue reply is not 'code,\"message\"[,...]'", reply)
        events.append(ScopeEvent(int(m.group(1)), parse_qstring(m.group(2))))
        pos = m.end()
        if pos < len(body):
            if body[pos] not in ",;":
                raise _bad("event queue reply is not 'code,\"message\"[,...]'", reply)
            pos += 1
    if not events:
        raise _bad("empty event queue reply", reply)
    return tuple(e for e in events if e.code not in (0, 1))


def format_tek_events(events: tuple[ScopeEvent, ...] | list[ScopeEvent]) -> str:
    """Inverse of :func:`parse_tek_events` (``ALLEv?`` form).

    Example
    -------
    >>> format_tek_events([])
    '0,"No events to report - queue empty"'
    """
    if not events:
        return '0,"No events to report - queue empty"'
    return ",".join(f"{e.code},{format_qstring(e.message)}" for e in events)


# ---------------------------------------------------------------- Keysight


@dataclass(frozen=True)
class KeysightPreamble:
    """A Keysight InfiniiVision ``:WAVeform:PREamble?`` reply (10 fields).

    ``value = (code - yreference) * yincrement + yorigin``;
    ``t_i = (i - xreference) * xincrement + xorigin``.
    ``format`` is 0 BYTE, 1 WORD, 4 ASCii; ``type`` 0 NORMal, 1 PEAK, 2 AVERage, 3 HRESolution.

    Example
    -------
    >>> parse_keysight_preamble("+1,+0,+10000,+1,+2.0E-06,-2.0E-03,+0,+1.2E-05,+0.0E+00,+0").points
    10000
    """

    format: int
    type: int
    points: int
    count: int
    xincrement: float
    xorigin: float
    xreference: int
    yincrement: float
    yorigin: float
    yreference: int


@functools.lru_cache(maxsize=64)  # pure and frozen, as parse_wfmoutpre
def parse_keysight_preamble(reply: str) -> KeysightPreamble:
    """Parse ``:WAV:PRE?``; exactly 10 comma-separated numbers.

    Example
    -------
    >>> parse_keysight_preamble("0,0,1000,1,1e-6,0,0,0.01,0,128").yreference
    128
    """
    parts = [p.strip() for p in reply.strip().split(",")]
    if len(parts) != 10:
        raise _bad(f":WAVeform:PREamble? reply has {len(parts)} fields, expected 10", reply)
    names = ("format", "type", "points", "count", "xincrement", "xorigin", "xreference",
             "yincrement", "yorigin", "yreference")
    ints = {"format", "type", "points", "count", "xreference", "yreference"}
    values = {
        n: parse_nr1(v, f":WAV:PRE {n}") if n in ints else parse_nr3(v, f":WAV:PRE {n}")
        for n, v in zip(names, parts)
    }
    if values["format"] not in (0, 1, 4):
        raise _bad(f":WAV:PRE format must be 0, 1 or 4, not {values['format']}", reply)
    if values["points"] < 0:
        raise _bad(":WAV:PRE points is negative", reply)
    if values["xincrement"] <= 0:
        raise _bad(":WAV:PRE xincrement must be positive", reply)
    if values["yincrement"] == 0:
        raise _bad(":WAV:PRE yincrement is zero", reply)
    return KeysightPreamble(**values)


def format_keysight_preamble(p: KeysightPreamble) -> str:
    """Inverse of :func:`parse_keysight_preamble`, in the InfiniiVision number style.

    Example
    -------
    >>> format_keysight_preamble(KeysightPreamble(0, 0, 1000, 1, 1e-6, 0.0, 0, 0.01, 0.0, 128))
    '+0,+0,+1000,+1,+1.00000000E-06,+0.00000000E+00,+0,+1.00000000E-02,+0.00000000E+00,+128'
    """
    return ",".join(
        (
            f"{p.format:+d}", f"{p.type:+d}", f"{p.points:+d}", f"{p.count:+d}",
            f"{p.xincrement:+.8E}", f"{p.xorigin:+.8E}", f"{p.xreference:+d}",
            f"{p.yincrement:+.8E}", f"{p.yorigin:+.8E}", f"{p.yreference:+d}",
        )
    )


def parse_keysight_error(reply: str) -> ScopeEvent:
    """Parse one ``:SYSTem:ERRor?`` entry; code 0 means the queue is empty.

    Example
    -------
    >>> parse_keysight_error('-113,"Undefined header"')
    ScopeEvent(code=-113, message='Undefined header')
    """
    m = _EVENT.fullmatch(reply.strip())
    if m is None:
        raise _bad(":SYSTem:ERRor? reply is not 'code,\"message\"'", reply)
    return ScopeEvent(int(m.group(1)), parse_qstring(m.group(2)))


def format_keysight_error(event: ScopeEvent) -> str:
    """Inverse of :func:`parse_keysight_error`.

    Example
    -------
    >>> format_keysight_error(ScopeEvent(0, "No error"))
    '+0,"No error"'
    """
    return f"{event.code:+d},{format_qstring(event.message)}"


# ---------------------------------------------------------------- binary datatypes


def block_datatype(signed: bool, n_bytes: int, big_endian: bool) -> tuple[str, bool]:
    """The ``struct`` datatype and endianness of a block (pyvisa's ``from_binary_block``).

    Example
    -------
    >>> block_datatype(True, 2, True)
    ('h', True)
    >>> block_datatype(False, 1, True)
    ('B', True)
    """
    table = {(True, 1): "b", (True, 2): "h", (False, 1): "B", (False, 2): "H"}
    if (signed, n_bytes) not in table:
        raise ScopeProtocolError(
            f"no integer datatype for {n_bytes}-byte {'signed' if signed else 'unsigned'} data",
            hint="charz transfers 1- or 2-byte integer codes only; set DATa:WIDth 1 or 2",
        )
    return table[(signed, n_bytes)], big_endian


def block_dtype(signed: bool, n_bytes: int, big_endian: bool) -> np.dtype:
    """The numpy type of a block's points.

    Example
    -------
    >>> block_dtype(True, 2, False).str, block_dtype(False, 1, True).str
    ('<i2', '|u1')
    """
    datatype, _ = block_datatype(signed, n_bytes, big_endian)
    return np.dtype(datatype).newbyteorder(">" if big_endian else "<")


def raise_reply_mismatch(reply: str, queries: str) -> None:
    """A compound reply whose units do not answer ``queries``: out of step, never values.

    Example
    -------
    >>> raise_reply_mismatch(":ACQUIRE:STATE 0;", "WFMOutpre?;:CURVe?")
    Traceback (most recent call last):
    ...
    charz.errors.ScopeProtocolError: reply to WFMOutpre?;:CURVe? does not have its shape (another query's answer?): ':ACQUIRE:STATE 0;'
    """
    err = _bad(f"reply to {queries} does not have its shape (another query's answer?)", reply)
    err.hint = ("replies and queries are out of step: an earlier query timed out and its "
                "answer came late, or another program talks to the scope; charz "
                "resynchronises on the next call, retry it")
    raise err


# ---------------------------------------------------------------- compound replies with a block


def block_start(head: bytes) -> int | None:
    """Where the definite-length block of a compound reply opens: the first ``#`` outside
    quoted strings (a WFID could hold one), or None when ``head`` has none yet.

    IEEE 488.2 lets a block be one response unit among others (``WFMOutpre?;:CURVe?``
    answers ``<preamble>;:CURVE #42000<data>``); the units before it are text.

    Example
    -------
    >>> block_start(b':WFMO:WFI "Ch1 #2";NR_P 5;:CURVE #210')
    33
    >>> block_start(b'1;2;"#"') is None
    True
    """
    first = head.find(b"#")
    if first < 0:
        return None
    if b'"' not in head[:first] and b"'" not in head[:first]:
        return first  # no quoted string before it: the common case
    end = _OUTSIDE_QUOTES.match(head).end()  # type: ignore[union-attr] - matches "" at least
    return end if end < len(head) and head[end] == 0x23 else None


_OUTSIDE_QUOTES = re.compile(rb"""(?:[^#"']|"[^"]*"|'[^']*')*""", re.S)


def block_header(head: bytes, start: int) -> tuple[int, int] | None:
    """``(data offset, data length)`` of the block whose ``#`` is at ``start``; None while
    ``head`` ends inside the header.

    Raises ScopeTransferError for an indefinite (``#0``) or malformed header.

    Example
    -------
    >>> block_header(b':CURVE #42000', 7)
    (13, 2000)
    >>> block_header(b':CURVE #420', 7) is None
    True
    """
    if len(head) < start + 2:
        return None
    digits = head[start + 1] - 0x30
    if not 1 <= digits <= 9:
        raise ScopeTransferError(
            f"the block header {bytes(head[start:start + 12])!r} is not a definite-length "
            "#<digits><length> header", hint="charz reads #N<length> blocks; check the scope's "
            "data format settings", code="invalid-block")
    end = start + 2 + digits
    if len(head) < end:
        return None
    text = bytes(head[start + 2:end])
    if not text.isdigit():
        raise ScopeTransferError(
            f"the block header {bytes(head[start:end])!r} has a length that is not a number",
            hint="fetch again; a garbled length digit is a damaged transfer", code="invalid-block")
    return end, int(text)


def split_compound(before: str) -> tuple[list[str], str]:
    """The text units ahead of a block, and the block's own header (``":CURVE"`` or ``""``).

    Example
    -------
    >>> split_compound(':WFMO:BYT_N 2;NR_P 5;:ACQUIRE:NUMACQ 3;:CURVE ')
    ([':WFMO:BYT_N 2', 'NR_P 5', ':ACQUIRE:NUMACQ 3'], ':CURVE')
    >>> split_compound('+1,+0,5;AMP;+0;')
    (['+1,+0,5', 'AMP', '+0'], '')
    """
    units = split_units(before)
    return units[:-1], units[-1]

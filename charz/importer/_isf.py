"""Tektronix ISF: the scope's ``WFMPre?;CURVe?`` answer saved as a file.

As the programmer manuals print it (TDS/DPO/MSO "Waveform Transfer" commands); a TDS or
TBS saves the short keys, a DPO3000/4000 the long ones, some files repeat ``NR_P`` first::

    :WFMPRE:BYT_NR 1;BIT_NR 8;ENCDG BIN;BN_FMT RI;BYT_OR MSB;NR_PT 10000;...;
    XINCR 2.0E-6;XZERO -2.0E-3;PT_OFF 0;YMULT 4.0E-3;YOFF -100;YZERO 0;...;:CURVE #510000<bytes>
    :WFMP:NR_P 2500;:WFMP:BYT_N 2;BIT_N 16;ENC BIN;...;XIN 4.0E-7;XZE ...;YMU ...;YOF ...;YZE ...;:CURV #45000<bytes>

The preamble is read by the same parser as the scope's own reply over the wire
(:func:`charz.scope.parse_wfmoutpre`), so a file and a live fetch cannot disagree.
value = (code - YOFF) * YMULT + YZERO and t = XZERO + (i - PT_OFF) * XINCR: the same
scaling the archive stores, so ISF keeps the codes bit for bit.  A file may hold several
records one after another (a TDS ``T0000CH1.ISF`` does); each is returned.  Pure
functions on bytes.
"""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np

from charz.errors import ScopeProtocolError
from charz.importer._waveform import Saved, is_math_source, unit_symbol
from charz.scope import parse_wfmoutpre
from charz.waveform import Waveform

_CURVE = re.compile(rb"(?:^|;|:)CURV(?:E)?\s+#")


def format_number(x: float) -> str:
    """A number as Tek scopes print it (``400.0000E-12``): engineering exponent, a decimal point,
    at least four decimals and as many more as give ``x`` back exactly.

    Third-party ISF readers rely on the point (isfread reads a number without one as an int).

    >>> format_number(4e-10), format_number(0.0), format_number(-128.0), format_number(1 / 3)
    ('400.0000E-12', '0.0E+0', '-128.0000E+0', '333.3333333333333E-3')
    """
    if x == 0:
        return "0.0E+0"
    d = Decimal(repr(float(x)))            # the shortest digits that give x back; shifting them is exact
    exp3 = (d.adjusted() // 3) * 3
    whole, _, frac = format(d.scaleb(-exp3), "f").partition(".")
    return f"{whole}.{frac.ljust(4, '0')}E{exp3:+d}"


def format_isf(w: Waveform) -> bytes:
    """ISF bytes for a record with integer codes (int8 or int16), keys and numbers as a DPO3000 writes them."""
    codes = w.codes
    nbytes = codes.dtype.itemsize
    if codes.dtype not in (np.int8, np.int16):
        raise ValueError(f"ISF holds int8 or int16 codes, not {codes.dtype}")
    data = codes.astype(">i%d" % nbytes).tobytes()
    n = str(len(data))
    f = format_number
    header = (
        f":WFMPRE:BYT_NR {nbytes};BIT_NR {8 * nbytes};ENCDG BIN;BN_FMT RI;BYT_OR MSB;"
        f'WFID "{w.source}, {codes.size} points, Sample mode";NR_PT {codes.size};PT_FMT Y;'
        f'XUNIT "s";XINCR {f(w.sample_interval_s)};XZERO {f(w.t_first_s)};PT_OFF 0;'
        f'YUNIT "{w.unit}";YMULT {f(w.y_mult)};YOFF {f(w.y_offset_codes)};YZERO {f(w.y_zero)};'
        f":CURVE #{len(n)}{n}"
    )
    return header.encode("ascii") + data + b"\n"


def _one(data: bytes, pos: int) -> tuple[Saved, int]:
    """The record whose preamble starts at ``pos``, and where the next one may start."""
    m = _CURVE.search(data, pos)
    if m is None:
        raise ValueError("no ':CURVE #' block: not an ISF file")
    text = data[pos:m.start()].decode("ascii", errors="replace").strip().rstrip(";")
    try:
        p = parse_wfmoutpre(text)
    except ScopeProtocolError as exc:   # said of a reply; say it of a file, without the dump
        what = str(exc.args[0]).split(": '")[0].split(': "')[0]
        raise ValueError(what.replace("WFMOutpre? reply", "the preamble").replace("WFMOutpre ", "preamble ")) from None
    at = m.end()
    try:
        ndig = int(data[at:at + 1])
        length = int(data[at + 1:at + 1 + ndig])
    except ValueError:
        raise ValueError("the CURVE block's #<n><length> header is not a number") from None
    start = at + 1 + ndig
    block = data[start:start + length]
    if len(block) < length:
        raise ValueError(f"truncated: the CURVE block says {length} bytes, the file has {len(block)}")
    if p.encdg != "BIN":
        raise ValueError("ENCDG ASCII (only binary ISF is read; save as binary)")
    if p.bn_fmt == "FP" or p.byt_nr not in (1, 2):
        raise ValueError(f"BN_FMT {p.bn_fmt} with BYT_NR {p.byt_nr} (1- or 2-byte integer codes expected)")
    kind = "i" if p.bn_fmt == "RI" else "u"
    raw = np.frombuffer(block, dtype=f"{'>' if p.byt_or == 'MSB' else '<'}{kind}{p.byt_nr}")
    if raw.size != p.nr_pt:
        raise ValueError(f"NR_PT {p.nr_pt} but the CURVE block holds {raw.size} points")
    y_off = p.yoff
    if kind == "u":        # unsigned codes: shift to signed, keep the values
        raw = raw.astype(np.int32) - (1 << (8 * p.byt_nr - 1))
        y_off -= 1 << (8 * p.byt_nr - 1)
    codes = raw.astype(np.int8 if p.byt_nr == 1 else np.int16)
    info = np.iinfo(codes.dtype)
    wfid = p.wfid
    source = (wfid.split(",")[0] or "CH1").strip()
    envelope = p.pt_fmt == "ENV" or re.search(r"peak\s*detect|envelope", wfid, re.I) is not None
    w = Saved(
        codes, p.ymult, y_off, p.yzero, p.xincr, p.xzero - p.pt_off * p.xincr,
        unit=unit_symbol(p.yunit) or "V", source=source, code_min=int(info.min), code_max=int(info.max),
        mode="envelope" if envelope else "sample", math=is_math_source(source),
    )
    return w, start + length


def parse_isf_records(data: bytes) -> list[Saved]:
    """Every record in ISF ``data`` (usually one); ``ValueError`` saying what is wrong otherwise."""
    records, pos = [], 0
    while True:
        w, pos = _one(data, pos)
        records.append(w)
        rest = data[pos:].lstrip(b"\r\n\0 ")
        if not rest:
            return records
        pos = len(data) - len(rest)
        if _CURVE.search(data, pos) is None:
            return records      # trailing bytes that are no second record (some writers pad)


def parse_isf(data: bytes) -> Saved:
    """The first record in ISF ``data``; ``ValueError`` saying what is wrong otherwise."""
    return parse_isf_records(data)[0]

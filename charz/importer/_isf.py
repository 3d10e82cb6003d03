"""Tektronix ISF: the scope's ``WFMOutpre?`` preamble and ``CURVe?`` block, saved as a file.

The layout is the programmer manual's (TDS/DPO/MSO "Waveform Transfer" commands)::

    :WFMPRE:BYT_NR 1;BIT_NR 8;ENCDG BIN;BN_FMT RI;BYT_OR MSB;NR_PT 10000;...;
    XINCR 2.0E-6;XZERO -2.0E-3;PT_OFF 0;YMULT 4.0E-3;YOFF -100;YZERO 0;...;:CURVE #510000<bytes>

value = (code - YOFF) * YMULT + YZERO and t = XZERO + (i - PT_OFF) * XINCR: the same
scaling the archive stores, so ISF keeps the codes bit for bit.  Pure functions on bytes.
"""

from __future__ import annotations

import re

import numpy as np

from charz.importer._waveform import Waveform

_CURVE = re.compile(rb"(?:^|;|:)CURV(?:E)?\s+#")


def format_isf(w: Waveform) -> bytes:
    """ISF bytes for a record with integer codes (int8 or int16)."""
    if w.codes is None:
        raise ValueError("ISF stores codes: quantize the record first")
    codes = np.asarray(w.codes)
    nbytes = codes.dtype.itemsize
    if codes.dtype not in (np.int8, np.int16):
        raise ValueError(f"ISF holds int8 or int16 codes, not {codes.dtype}")
    data = codes.astype(">i%d" % nbytes).tobytes()
    n = str(len(data))
    header = (
        f":WFMPRE:BYT_NR {nbytes};BIT_NR {8 * nbytes};ENCDG BIN;BN_FMT RI;BYT_OR MSB;"
        f'WFID "{w.source}, {codes.size} points";NR_PT {codes.size};PT_FMT Y;'
        f'XUNIT "s";XINCR {w.sample_interval_s!r};XZERO {w.t_first_s!r};PT_OFF 0;'
        f'YUNIT "{w.unit}";YMULT {w.y_mult!r};YOFF {w.y_offset_codes!r};YZERO {w.y_zero!r};'
        f":CURVE #{len(n)}{n}"
    )
    return header.encode("ascii") + data + b"\n"


def _fields(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        key, _, value = item.partition(" ")
        out[key.rsplit(":", 1)[-1].upper()] = value.strip().strip('"')
    return out


def parse_isf(data: bytes) -> Waveform:
    """The record in ISF ``data``; ``ValueError`` saying what is wrong otherwise."""
    m = _CURVE.search(data)
    if m is None:
        raise ValueError("no ':CURVE #' block: not an ISF file")
    f = _fields(data[: m.start()].decode("ascii", errors="replace"))
    pos = m.end()
    try:
        ndig = int(data[pos:pos + 1])
        length = int(data[pos + 1:pos + 1 + ndig])
    except ValueError:
        raise ValueError("the CURVE block's #<n><length> header is not a number") from None
    start = pos + 1 + ndig
    block = data[start:start + length]
    if len(block) < length:
        raise ValueError(f"truncated: the CURVE block says {length} bytes, the file has {len(block)}")
    try:
        nbytes = int(f.get("BYT_NR", "1"))
        if f.get("ENCDG", "BIN").upper() not in ("BIN", "BINARY"):
            raise ValueError(f"ENCDG {f['ENCDG']} (only binary ISF is read; save as binary)")
        fmt = f.get("BN_FMT", "RI").upper()
        order = ">" if f.get("BYT_OR", "MSB").upper() == "MSB" else "<"
        kind = {"RI": "i", "RP": "u"}[fmt]
        if nbytes not in (1, 2):
            raise ValueError(f"BYT_NR {nbytes} (1 or 2 expected)")
        raw = np.frombuffer(block, dtype=f"{order}{kind}{nbytes}")
        if "NR_PT" in f and int(f["NR_PT"]) != raw.size:
            raise ValueError(f"NR_PT {f['NR_PT']} but the CURVE block holds {raw.size} points")
        y_off = float(f["YOFF"])
        if kind == "u":        # unsigned codes: shift to signed, keep the values
            raw = raw.astype(np.int32) - (1 << (8 * nbytes - 1))
            y_off -= 1 << (8 * nbytes - 1)
        codes = raw.astype(np.int8 if nbytes == 1 else np.int16)
        info = np.iinfo(codes.dtype)
        return Waveform(
            sample_interval_s=float(f["XINCR"]),
            t_first_s=float(f["XZERO"]) - float(f.get("PT_OFF", "0")) * float(f["XINCR"]),
            unit=f.get("YUNIT", "V") or "V",
            source=(f.get("WFID", "").split(",")[0] or "CH1").strip(),
            codes=codes, y_mult=float(f["YMULT"]), y_offset_codes=y_off, y_zero=float(f.get("YZERO", "0")),
            code_min=int(info.min), code_max=int(info.max),
        )
    except KeyError as exc:
        raise ValueError(f"the preamble has no {exc.args[0]} field") from None

"""Keysight (Agilent) waveform files: BIN (InfiniiVision / Infiniium) and CSV.

BIN, little-endian, as the InfiniiVision programmer's guide ("Binary data (.bin) file
format") and Keysight's importAgilentBin describe it::

    file header      cookie "AG" (or "RG"), version "10"/"11", int32 file size, int32 waveforms
    waveform header  int32 header size (140), int32 type, int32 buffers, int32 points,
                     int32 count, float32 x display range, float64 x display origin,
                     float64 x increment, float64 x origin, int32 x units, int32 y units,
                     char[16] date, char[16] time, char[24] frame, char[16] label,
                     float64 time tag, uint32 segment index
    data header      int32 header size (12), int16 buffer type, int16 bytes/point, int32 size
    data             float32 samples in y units (buffer type 1: normal)

Units: 1 V, 2 s, 4 A.  Pure functions on bytes.
"""

from __future__ import annotations

import struct

import numpy as np

from charz.importer._waveform import Waveform

_FILE = struct.Struct("<2s2sii")
_WAVE = struct.Struct("<iiiiifdddii16s16s24s16sdI")
_DATA = struct.Struct("<ihhi")
_UNITS = {0: "", 1: "V", 2: "s", 3: "", 4: "A", 5: "dB", 6: "Hz"}
_UNIT_CODES = {"V": 1, "A": 4}


def format_bin(w: Waveform, values: np.ndarray) -> bytes:
    """A one-waveform BIN file holding ``values`` (float32, in ``w.unit``)."""
    data = np.asarray(values, dtype="<f4").tobytes()
    n = len(values)
    wave = _WAVE.pack(_WAVE.size, 1, 1, n, 1, float(n * w.sample_interval_s), w.t_first_s,
                      w.sample_interval_s, w.t_first_s, 2, _UNIT_CODES.get(w.unit, 0),
                      b"", b"", b"", w.source.encode("ascii")[:15], 0.0, 0)
    body = wave + _DATA.pack(_DATA.size, 1, 4, len(data)) + data
    return _FILE.pack(b"AG", b"10", _FILE.size + len(body), 1) + body


def parse_bin(data: bytes, waveform: int = 0) -> Waveform:
    """Waveform ``waveform`` (0 first) of a BIN file; ``ValueError`` saying what is wrong otherwise."""
    if len(data) < _FILE.size:
        raise ValueError("shorter than the 12-byte file header: not a Keysight BIN file")
    cookie, _version, size, count = _FILE.unpack_from(data)
    if cookie not in (b"AG", b"RG"):
        raise ValueError(f"cookie {cookie!r}, not 'AG': not a Keysight BIN file")
    if size != len(data):
        raise ValueError(f"the header says {size} bytes, the file has {len(data)} (truncated or padded)")
    if not 0 <= waveform < count:
        raise ValueError(f"waveform {waveform} asked for, the file holds {count}")
    pos = _FILE.size
    for i in range(count):
        if pos + _WAVE.size > len(data):
            raise ValueError(f"waveform {i}: header runs past the end of the file")
        head = _WAVE.unpack_from(data, pos)
        hsize, _type, nbuf, points = head[:4]
        x_incr, x_origin, y_units, label = head[7], head[8], head[10], head[14]
        pos += hsize
        values = None
        for _ in range(nbuf):
            if pos + _DATA.size > len(data):
                raise ValueError(f"waveform {i}: data header runs past the end of the file")
            dsize, btype, bpp, bsize = _DATA.unpack_from(data, pos)
            pos += dsize
            if pos + bsize > len(data):
                raise ValueError(f"waveform {i}: {bsize} data bytes announced, {len(data) - pos} left")
            if i == waveform and values is None and btype in (1, 2, 3) and bpp == 4:
                values = np.frombuffer(data, "<f4", count=bsize // 4, offset=pos).astype(np.float64)
            pos += bsize
        if i == waveform:
            if values is None:
                raise ValueError(f"waveform {i} has no float32 analog buffer (digital or counts only)")
            if values.size != points:
                raise ValueError(f"waveform {i}: {points} points announced, {values.size} stored")
            return Waveform(sample_interval_s=x_incr, t_first_s=x_origin, unit=_UNITS.get(y_units, ""),
                            source=label.split(b"\0")[0].decode("ascii", "replace") or f"waveform {i}",
                            values=values)
    raise AssertionError("unreachable")


def parse_keysight_csv(text: str) -> Waveform:
    """A Keysight CSV (``x-axis,1`` / ``second,Volt`` header rows, then time,value rows)."""
    rows = [r.split(",") for r in text.splitlines() if r.strip()]
    body = [r for r in rows if _is_number(r[0])]
    if len(body) < 2:
        raise ValueError("fewer than two numeric rows: not a waveform CSV")
    head = [r for r in rows if not _is_number(r[0])]
    unit_row = head[-1] if head else ["second", "Volt"]
    unit = {"volt": "V", "ampere": "A", "amp": "A", "a": "A", "v": "V"}.get(unit_row[1].strip().lower(), "V") \
        if len(unit_row) > 1 else "V"
    t = np.array([float(r[0]) for r in body])
    try:
        v = np.array([float(r[1]) for r in body])
    except (IndexError, ValueError):
        raise ValueError("a row has no numeric second column") from None
    dt = np.diff(t)
    return Waveform(sample_interval_s=float((t[-1] - t[0]) / (t.size - 1)), t_first_s=float(t[0]),
                    unit=unit, source=head[0][1].strip() if head and len(head[0]) > 1 else "1",
                    values=v) if np.all(dt > 0) else _bad_time()


def _bad_time() -> Waveform:
    raise ValueError("the time column does not increase")


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True

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

from charz.importer._waveform import Saved, is_math_source, saved_from_values
from charz.waveform import Waveform

_FILE = struct.Struct("<2s2sii")
_WAVE = struct.Struct("<iiiiifdddii16s16s24s16sdI")
_DATA = struct.Struct("<ihhi")
_UNITS = {0: "", 1: "V", 2: "s", 3: "", 4: "A", 5: "dB", 6: "Hz"}
_UNIT_CODES = {"V": 1, "A": 4}


def format_bin(w: Waveform) -> bytes:
    """A one-waveform BIN file holding ``w``'s values (float32, in ``w.unit``)."""
    data = np.asarray(w.values(), dtype="<f4").tobytes()
    n = w.n_samples
    wave = _WAVE.pack(_WAVE.size, 1, 1, n, 1, float(n * w.sample_interval_s), w.t_first_s,
                      w.sample_interval_s, w.t_first_s, 2, _UNIT_CODES.get(w.unit, 0),
                      b"", b"", b"", w.source.encode("ascii")[:15], 0.0, 0)
    body = wave + _DATA.pack(_DATA.size, 1, 4, len(data)) + data
    return _FILE.pack(b"AG", b"10", _FILE.size + len(body), 1) + body


# Waveform types and buffer types as the InfiniiVision guide lists them.
_PEAK_DETECT, _LOGIC = 2, 6
_FLOAT_BUFFERS = {1: "normal", 2: "maximum", 3: "minimum"}
_DIGITAL_BUFFER = 6


def parse_bin_records(data: bytes) -> list[Saved]:
    """Every waveform of a BIN file, in file order; ``ValueError`` saying what is wrong otherwise.

    A peak-detect waveform (maximum and minimum buffers) comes back as ``mode="envelope"``
    holding the maximum; a logic waveform (uint8 pod bytes) as ``mode="digital"``.
    """
    if len(data) < _FILE.size:
        raise ValueError("shorter than the 12-byte file header: not a Keysight BIN file")
    cookie, _version, size, count = _FILE.unpack_from(data)
    if cookie not in (b"AG", b"RG"):
        raise ValueError(f"cookie {cookie!r}, not 'AG': not a Keysight BIN file")
    if size != len(data):
        raise ValueError(f"the header says {size} bytes, the file has {len(data)} (truncated or padded)")
    if count < 1:
        raise ValueError("the file holds no waveform")
    pos, out = _FILE.size, []
    for i in range(count):
        if pos + _WAVE.size > len(data):
            raise ValueError(f"waveform {i}: header runs past the end of the file")
        head = _WAVE.unpack_from(data, pos)
        hsize, wtype, nbuf, points = head[:4]
        x_incr, x_origin, y_units, label = head[7], head[8], head[10], head[14]
        name = label.split(b"\0")[0].decode("ascii", "replace").strip() or f"waveform {i + 1}"
        pos += hsize
        buffers: dict[int, np.ndarray] = {}
        for _ in range(nbuf):
            if pos + _DATA.size > len(data):
                raise ValueError(f"waveform {i}: data header runs past the end of the file")
            dsize, btype, bpp, bsize = _DATA.unpack_from(data, pos)
            pos += dsize
            if pos + bsize > len(data):
                raise ValueError(f"waveform {i}: {bsize} data bytes announced, {len(data) - pos} left")
            if btype in _FLOAT_BUFFERS and bpp == 4:
                buffers.setdefault(btype, np.frombuffer(data, "<f4", count=bsize // 4, offset=pos).astype(np.float64))
            elif btype == _DIGITAL_BUFFER and bpp == 1:
                buffers.setdefault(btype, np.frombuffer(data, "u1", count=bsize, offset=pos).astype(np.float64))
            pos += bsize
        if not buffers:
            raise ValueError(f"waveform {i} ({name}) has no float32 or digital buffer")
        envelope = wtype == _PEAK_DETECT or (2 in buffers and 3 in buffers)
        digital = wtype == _LOGIC or (_DIGITAL_BUFFER in buffers and not set(buffers) & set(_FLOAT_BUFFERS))
        values = buffers[min(buffers)]
        if values.size != points:
            raise ValueError(f"waveform {i} ({name}): {points} points announced, {values.size} stored")
        out.append(saved_from_values(values, x_incr, x_origin, unit=_UNITS.get(y_units, ""), source=name,
                                     math=is_math_source(name),
                                     mode="digital" if digital else "envelope" if envelope else "sample"))
    return out


def parse_bin(data: bytes, waveform: int = 0) -> Saved:
    """Waveform ``waveform`` (0 first) of a BIN file; ``ValueError`` saying what is wrong otherwise."""
    records = parse_bin_records(data)
    if not 0 <= waveform < len(records):
        raise ValueError(f"waveform {waveform} asked for, the file holds {len(records)}")
    return records[waveform]


_CSV_UNITS = {"volt": "V", "ampere": "A", "amp": "A", "a": "A", "v": "V"}


def parse_keysight_csv_records(text: str) -> list[Saved]:
    """Every column of a Keysight CSV (``x-axis,1,2`` / ``second,Volt,Volt`` header rows, then
    ``time,value,value`` rows), one record per column."""
    rows = [[c.strip() for c in r.split(",")] for r in text.splitlines() if r.strip()]
    if rows and rows[0][0].lower().startswith("points/segment"):
        segments = sum(1 for r in rows if r[0].lower() == "x-axis") or "several"
        raise ValueError(f"a segmented-memory file ({segments} segments, {rows[0][0]}): charz imports one "
                         "record per file; save each segment on its own")
    body = [r for r in rows if _is_number(r[0])]
    if len(body) < 2:
        raise ValueError("fewer than two numeric rows: not a waveform CSV")
    head = [r for r in rows if not _is_number(r[0])]
    named = [r for r in head if r[0].lower() in ("x-axis", "time", "x")]
    unit_rows = [r for r in head if r[0].lower() in ("second", "seconds", "s")]
    if named or unit_rows:      # the two rows the scope writes, whatever else precedes them
        head = (named[:1] or [["x-axis"]]) + (unit_rows[:1] or [])
    width = max(len(r) for r in body)
    while width > 1 and all(len(r) < width or not r[width - 1] for r in body):
        width -= 1
    if width < 2:
        raise ValueError("a row has no numeric second column")
    names = head[0] if head else ["x-axis"] + [str(j) for j in range(1, width)]
    units = head[-1] if len(head) > 1 else ["second"] + ["Volt"] * (width - 1)
    try:
        table = np.array([[float(c) for c in r[:width]] for r in body])
    except ValueError:
        raise ValueError("a sample row holds something other than numbers") from None
    t = table[:, 0]
    if not np.all(np.diff(t) > 0):
        raise ValueError("the time column does not increase")
    dt = float((t[-1] - t[0]) / (t.size - 1))
    out = []
    for j in range(1, width):
        name = names[j] if j < len(names) and names[j] else str(j)
        unit = _CSV_UNITS.get(units[j].lower(), units[j]) if j < len(units) else "V"
        out.append(saved_from_values(table[:, j], dt, float(t[0]), unit=unit, source=name,
                                     math=is_math_source(name)))
    return out


def parse_keysight_csv(text: str) -> Saved:
    """The first column of a Keysight CSV."""
    return parse_keysight_csv_records(text)[0]


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True

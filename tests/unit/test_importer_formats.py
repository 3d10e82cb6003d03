"""The scope-file parsers: ISF and Keysight BIN on bytes laid out by hand from the manuals,
round trips through the writers, and float samples back to codes.

A file of float samples is read back onto its codes (exactly, when they lie on a grid), so
its values are compared to about 1e-12 of their size: what the grid's step can give back."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.importer._isf import format_isf, parse_isf
from charz.importer._keysight import format_bin, parse_bin, parse_keysight_csv
from charz.importer._quantize import to_codes
from charz.waveform import Waveform

pytestmark = pytest.mark.unit


def test_isf_as_a_tds_scope_saves_it():
    # Preamble spelled as a TDS3000/DPO4000 writes it (long field names, RP codes, LSB first).
    codes = [0, 1, 255, 128]
    head = (b':WFMPRE:BYT_NR 1;BIT_NR 8;ENCDG BIN;BN_FMT RP;BYT_OR LSB;NR_PT 4;'
            b'WFID "Ch1, DC coupling, 1.0E-1 A/div";PT_FMT Y;XUNIT "s";XINCR 2.0E-6;'
            b'PT_OFF 2;XZERO 1.0E-5;YUNIT "A";YMULT 4.0E-3;YOFF 128;YZERO 1.0E-2;:CURVE #14')
    w = parse_isf(head + bytes(codes) + b"\n")
    values = (w.codes.astype(float) - w.y_offset_codes) * w.y_mult + w.y_zero
    assert values == pytest.approx([(c - 128) * 4e-3 + 1e-2 for c in codes])
    assert w.unit == "A" and w.source == "Ch1"
    assert w.sample_interval_s == 2e-6 and w.t_first_s == pytest.approx(1e-5 - 2 * 2e-6)


@pytest.mark.parametrize("damage, says", [
    (lambda b: b[:-100], "truncated"),
    (lambda b: b.replace(b":CURVE", b":CURVX"), "CURVE"),
    (lambda b: b.replace(b"YMULT", b"YMULX"), "YMULT"),
    (lambda b: b.replace(b"NR_PT 500", b"NR_PT 501"), "NR_PT"),
])
def test_isf_damage_is_named(damage, says):
    w = Waveform(np.arange(500, dtype=np.int16), 1e-3, 0.0, 0.0, 2e-6, -1e-4, unit="A", source="CH1")
    with pytest.raises(ValueError, match=says):
        parse_isf(damage(format_isf(w)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-32768, 32767), min_size=1, max_size=300), st.booleans(),
       st.floats(1e-9, 1e-3), st.floats(-1e-2, 1e-2), st.floats(1e-6, 1.0), st.floats(-200, 200))
def test_isf_round_trip_keeps_codes_and_scaling(codes, eight_bit, dt, t0, mult, off):
    arr = np.array(codes, dtype=np.int16)
    if eight_bit:
        arr = (arr // 256).astype(np.int8)
    w = Waveform(arr, mult, off, 0.5, dt, t0, unit="A", source="CH2")
    back = parse_isf(format_isf(w))
    assert back.codes.dtype == arr.dtype and np.array_equal(back.codes, arr)
    assert (back.sample_interval_s, back.t_first_s, back.y_mult, back.y_offset_codes, back.y_zero) == (dt, t0, mult, off, 0.5)


def _bin_by_hand(values, x_incr, x_origin, unit_code):
    data = np.asarray(values, "<f4").tobytes()
    wave = struct.pack("<iiiiifdddii16s16s24s16sdI", 140, 1, 1, len(values), 1, 0.0, 0.0, x_incr, x_origin,
                       2, unit_code, b"31 JAN 2026", b"12:00:00", b"", b"Channel 1", 0.0, 0)
    body = wave + struct.pack("<ihhi", 12, 1, 4, len(data)) + data
    return struct.pack("<2s2sii", b"AG", b"10", 12 + len(body), 1) + body


def test_keysight_bin_laid_out_from_the_manual():
    w = parse_bin(_bin_by_hand([0.1, 0.2, 0.25], 1e-6, -5e-6, 4))
    assert w.values() == pytest.approx([0.1, 0.2, 0.25]) and w.unit == "A" and w.source == "Channel 1"
    assert (w.sample_interval_s, w.t_first_s) == (1e-6, -5e-6)
    assert parse_bin(_bin_by_hand([1.0, 2.0], 1e-6, 0.0, 1)).unit == "V"


def test_keysight_bin_round_trip_and_damage():
    w = Waveform(np.arange(-38, 39, dtype=np.int16), 0.3 / 76, -38.0, 0.0, 4e-6, -2e-4, unit="A", source="CH1")
    back = parse_bin(format_bin(w))
    assert back.values() == pytest.approx(w.values().astype(np.float32), rel=1e-6, abs=1e-9)
    assert back.on_grid and np.array_equal(np.diff(back.codes), np.diff(w.codes))  # float32 keeps the grid
    assert (back.sample_interval_s, back.t_first_s, back.unit) == (4e-6, -2e-4, "A")
    with pytest.raises(ValueError, match="truncated"):
        parse_bin(format_bin(w)[:-8])
    with pytest.raises(ValueError, match="cookie"):
        parse_bin(b"XX10" + format_bin(w)[4:])


def test_keysight_csv():
    w = parse_keysight_csv("x-axis,1\nsecond,Ampere\n-1.0e-6,0.010\n0.0,0.020\n1.0e-6,0.030\n")
    assert w.unit == "A" and w.values() == pytest.approx([0.01, 0.02, 0.03], rel=1e-12)
    assert w.sample_interval_s == pytest.approx(1e-6) and w.t_first_s == -1e-6
    with pytest.raises(ValueError):
        parse_keysight_csv("x-axis,1\nsecond,Volt\n")


@settings(max_examples=40, deadline=None)
@given(st.integers(-128, 100), st.lists(st.integers(-1, 1), min_size=2, max_size=400),
       st.floats(1e-5, 1e-1), st.floats(-1, 1))
def test_quantize_finds_the_grid_of_printed_or_float32_values(start, walk, step, zero):
    # A record with noise: a walk over neighbouring codes (the grid is found when two levels
    # that occur are at most 8 steps apart, as in any real record).
    codes = np.clip(start + np.cumsum(walk), -128, 127)
    if codes.min() == codes.max():
        codes[0] += 1 if codes[0] < 127 else -1
    values = codes.astype(float) * step + zero
    for seen in (np.array([float(f"{v:.8e}") for v in values]), values.astype(np.float32).astype(float)):
        q = to_codes(seen)
        assert q.exact
        back = (q.codes.astype(float) - q.y_offset_codes) * q.y_mult + q.y_zero
        assert np.max(np.abs(back - values)) < 1e-3 * step + 1e-6 * max(1.0, abs(zero))
        assert q.codes.min() > -32768 and q.codes.max() < 32767   # nothing looks clipped


def test_quantize_says_when_there_is_no_grid():
    q = to_codes(np.random.default_rng(1).normal(size=1000))
    assert not q.exact and q.codes.dtype == np.int16


# ---------------------------------------------------------------- the layouts real scopes save
# Each text below is laid out as the scopes' manuals and published files show it; the
# expected samples are computed here from the codes, not by charz.

from pathlib import Path  # noqa: E402

from charz.errors import UsageError  # noqa: E402
from charz.importer._files import read_records  # noqa: E402
from charz.importer._isf import format_number, parse_isf_records  # noqa: E402
from charz.importer._keysight import parse_bin_records, parse_keysight_csv_records  # noqa: E402
from charz.importer._tekcsv import parse_tek_csv  # noqa: E402

_TDS_SHORT = (b':WFMP:NR_P 4;:WFMP:BYT_N 2;BIT_N 16;ENC BIN;BN_F RI;BYT_O MSB;'
              b'WFI "Ch1, DC coupling, 5.000V/div, 400.0ns/div, 4 points, Sample mode";NR_P 4;PT_F Y;'
              b'XUN "s";XIN 400.0E-9;XZE -8.0E-7;PT_O 0;YUN "V";YMU 1.5625E-4;YOF -5.0E+2;YZE 0.0E+0;'
              b':CURV #18\x00\x00\x7f\xff\x80\x00\x01\x00')


def test_isf_short_keys_as_a_tds_or_tbs_saves_them():
    (w,) = parse_isf_records(_TDS_SHORT + b"\n")
    assert w.codes.tolist() == [0, 32767, -32768, 256]        # MSB first, both extremes
    values = (w.codes.astype(float) - w.y_offset_codes) * w.y_mult + w.y_zero
    assert values.tolist() == [(c + 500) * 1.5625e-4 for c in (0, 32767, -32768, 256)]
    assert (w.sample_interval_s, w.t_first_s, w.unit, w.source, w.mode) == (4e-7, -8e-7, "V", "Ch1", "sample")


def test_isf_tds2000_long_keys_volts_envelope_and_two_records():
    head = (b':WFMPRE:BYT_NR 1;BIT_NR 8;ENCDG BIN;BN_FMT RI;BYT_OR MSB;NR_PT 4;'
            b'WFID "Ch2, DC coupling, 2.0E0 V/div, 5.0E-4 s/div, 2500 points, Peak Detect mode";PT_FMT ENV;'
            b'XINCR 2.0E-6;PT_OFF 0;XZERO -1.6E-3;XUNIT "s";YMULT 8.0E-2;YZERO 0.0E0;YOFF 0.0E0;YUNIT "Volts";'
            b':CURVE #14\x01\x02\x03\x04')
    (w,) = parse_isf_records(head)
    assert w.unit == "V" and w.mode == "envelope" and w.source == "Ch2"
    two = parse_isf_records(_TDS_SHORT + b"\n" + _TDS_SHORT + b"\n")   # a TDS T0000CH1.ISF
    assert len(two) == 2 and two[1].codes.tolist() == [0, 32767, -32768, 256]
    with pytest.raises(ValueError, match="YOFF"):
        parse_isf_records(_TDS_SHORT.replace(b"YOF -5.0E+2;", b""))


# TDS1000/TDS2000/TBS1000: label,value,,time,sample, on every row (six columns).
_SIX = """Record Length,2.500000e+03,,{t0},{v0},
Sample Interval,4.000000e-07,,{t1},{v1},
Trigger Point,1.250000000000e+03,,{t2},{v2},
,,,{t3},{v3},
Source,CH1,,{t4},{v4},
Vertical Units,V,,{t5},{v5},
Vertical Scale,2.000000e-01,,{t6},{v6},
Vertical Offset,0.000000e+00,,{t7},{v7},
Horizontal Units,s,,{t8},{v8},
Horizontal Scale,1.000000e-04,,{t9},{v9},
Pt Fmt,Y,,{t10},{v10},
Yzero,0.000000e+00,,{t11},{v11},
Probe Atten,1.000000e+00,,{t12},{v12},
Model Number,TDS2024B,,{t13},{v13},
Serial Number,C012345,,{t14},{v14},
Firmware Version,FV:v22.16,,{t15},{v15},
"""


def _six_column(codes, step=0.008, dt=4e-7, t0=-5e-4):
    rows = _SIX.replace("2.500000e+03", f"{len(codes):.6e}")
    fill = {}
    for i, c in enumerate(codes):
        fill[f"t{i}"], fill[f"v{i}"] = f"{t0 + i * dt:.9f}", f"{c * step:.4f}"
    extra = "".join(f",,,{t0 + i * dt:.9f},{codes[i] * step:.4f},\n" for i in range(16, len(codes)))
    return rows.format(**fill) + extra


def test_tek_csv_six_column_tds_tbs_layout():
    codes = [10, 11, 12, 11, 40, 41, 39, 12, 10, 11, 10, 12, 11, 10, 11, 12, 11, 10, 9, 10]
    (w,) = parse_tek_csv(_six_column(codes))
    assert w.values() == pytest.approx([float(f"{c * 0.008:.4f}") for c in codes], rel=1e-12)
    assert w.sample_interval_s == 4e-7 and w.t_first_s == pytest.approx(-5e-4)
    assert (w.source, w.unit, w.model, w.mode) == ("CH1", "V", "TDS2024B", "sample")
    assert w.on_grid and np.array_equal(np.diff(w.codes), np.diff(codes))
    assert parse_tek_csv(_six_column(codes).replace("Pt Fmt,Y", "Pt Fmt,ENV"))[0].mode == "envelope"
    with pytest.raises(ValueError, match="Record Length"):
        parse_tek_csv(_six_column(codes).replace(f"{len(codes):.6e}", "2.500000e+03", 1))


# TBS1000C (and MSO/DPO 4/5/6): a header block with blank rows, TIME,CH1, then the samples.
_TBS1000C = """Model,TBS1052C
Firmware Version,1.34.4
,
Waveform Type,ANALOG,
Point Format,Y,
Horizontal Units,s,
Horizontal Scale,1e-06,
Horizontal Delay,0,
Sample Interval,4e-09,
Record Length,4,
Gating,0.0% to 100.0%,
Probe Attenuation,1,
Vertical Units,V,
Vertical Offset,0,
Vertical Scale,0.5,
Vertical Position,0,
,
,
,
Label,
TIME,CH1,
-8.000000e-09,0.04,
-4.000000e-09,0.02,
0.000000e+00,0.06,
4.000000e-09,0.04,
"""


def test_tek_csv_tbs1000c_layout(tmp_path):
    path = tmp_path / "TEK0001.CSV"
    path.write_text(_TBS1000C)
    (w,) = read_records(path)
    assert w.values() == pytest.approx([0.04, 0.02, 0.06, 0.04], rel=1e-12)  # tm_data_types 0.5: 0.04, 3e-7, 3e-7, 3e-7
    assert (w.sample_interval_s, w.t_first_s, w.model, w.source) == (4e-9, -8e-9, "TBS1052C", "CH1")
    # the same file with CRLF line ends and truly empty lines between the header groups
    path.write_bytes(_TBS1000C.replace(",\n,\n,\nLabel", "\n\n\nLabel").replace("\n", "\r\n").encode())
    assert read_records(path)[0].values() == pytest.approx([0.04, 0.02, 0.06, 0.04], rel=1e-12)


_MSO5_TWO = """Model,MSO54
Firmware Version,1.24.4.16
,
Waveform Type,ANALOG,ANALOG
Point Format,Y,Y
Horizontal Units,s,s
Sample Interval,8e-11,8e-11
Record Length,3,3
Vertical Units,A,V
Vertical Offset,0,0
Vertical Scale,0.1,1
Label,,
TIME,CH1,MATH1
-8.000000e-11,0.010,0.5
0.000000e+00,0.012,0.6
8.000000e-11,0.011,0.7
"""


def test_tek_csv_several_channels_are_all_kept():
    a, b = parse_tek_csv(_MSO5_TWO)
    assert (a.source, a.unit, a.math) == ("CH1", "A", False) and a.values() == pytest.approx([0.010, 0.012, 0.011], rel=1e-12)
    assert (b.source, b.unit, b.math) == ("MATH1", "V", True) and b.values() == pytest.approx([0.5, 0.6, 0.7], rel=1e-12)
    with pytest.raises(ValueError, match="DIGITAL"):
        parse_tek_csv(_MSO5_TWO.replace("ANALOG,ANALOG", "DIGITAL,DIGITAL"))


def _bin_multi(waves):
    """A BIN file of several waveforms, each (type, label, unit code, [(buffer type, bpp, bytes)])."""
    body = b""
    for wtype, label, unit, bufs in waves:
        n = len(bufs[0][2]) // bufs[0][1]
        body += struct.pack("<iiiiifdddii16s16s24s16sdI", 140, wtype, len(bufs), n, 1, 0.0, 0.0, 1e-6, -2e-6,
                            2, unit, b"", b"", b"", label, 0.0, 0)
        for btype, bpp, data in bufs:
            body += struct.pack("<ihhi", 12, btype, bpp, len(data)) + data
    return struct.pack("<2s2sii", b"AG", b"10", 12 + len(body), len(waves)) + body


def test_keysight_bin_every_waveform_named():
    f32 = lambda xs: np.asarray(xs, "<f4").tobytes()  # noqa: E731
    data = _bin_multi([(1, b"Channel 1", 4, [(1, 4, f32([0.1, 0.2, 0.3]))]),
                       (1, b"Channel 2", 1, [(1, 4, f32([1.0, 2.0, 3.0]))]),
                       (6, b"D0-D7", 0, [(6, 1, bytes([1, 3, 2]))]),
                       (2, b"Channel 3", 1, [(2, 4, f32([1, 2, 3])), (3, 4, f32([0, 1, 2]))])])
    recs = parse_bin_records(data)
    assert [(r.source, r.unit, r.mode) for r in recs] == [
        ("Channel 1", "A", "sample"), ("Channel 2", "V", "sample"), ("D0-D7", "", "digital"),
        ("Channel 3", "V", "envelope")]
    assert recs[1].values() == pytest.approx([1.0, 2.0, 3.0], rel=1e-12)
    assert recs[2].values() == pytest.approx([1, 3, 2], rel=1e-12)


def test_keysight_csv_several_columns_and_rounding_twins():
    # The grid is 0.5 mA; printing left 1e-9 twins (0.0015 and 0.001500000001).
    text = "x-axis,1,2\nsecond,Ampere,Volt\n" + "".join(
        f"{i * 1e-6:.6e},{v!r},{i * 0.1:.1f}\n"
        for i, v in enumerate([0.0015, 0.001500000001, 0.002, 0.0025, 0.0019999999999, 0.001]))
    a, b = parse_keysight_csv_records(text)
    assert (a.source, a.unit, b.source, b.unit) == ("1", "A", "2", "V")
    assert a.on_grid and a.y_mult == pytest.approx(5e-4, rel=1e-6)
    assert np.diff(a.codes).tolist() == [0, 1, 1, -1, -2]


def test_iq_wfm_refused_in_one_sentence(tmp_path, monkeypatch):
    import tm_data_types

    import charz.importer._files as files

    monkeypatch.setattr(files, "_tm_read", lambda path: tm_data_types.IQWaveform())
    (tmp_path / "iq.wfm").write_bytes(b"\0" * 16)
    with pytest.raises(UsageError) as err:
        read_records(tmp_path / "iq.wfm")
    msg = str(err.value)
    assert "RF I/Q" in msg and "not sampled analog channels" in msg and "attribute" not in msg
    assert msg.count(".") <= 2 and "\n" not in msg


# ---------------------------------------------------------------- an independent ISF reader
# isfread-py (github.com/gpasquev/isfread-py, isfread.py v0.2; not on PyPI): its parsing
# steps, restated for Python 3 bytes.  It reads the first 511 bytes, takes a number with no
# '.' as an int (so "5e-07" fails), finds ':CURVE #' and unpacks 2-byte integers.

def _isfread(data: bytes):
    hdata = data[:511].decode("latin-1")

    def getnum(tag):
        n1 = hdata.find(tag)
        n2 = hdata.find(";", n1)
        s = hdata[n1 + len(tag):n2]
        return int(s) if s.find(".") == -1 else float(s)

    def getstr(tag):
        n1 = hdata.find(tag)
        return hdata[n1 + len(tag):hdata.find(";", n1)].strip()

    head = {k: getnum(k) for k in ("BYT_NR", "BIT_NR", "XZERO", "XINCR", "PT_OFF", "YMULT", "YZERO", "YOFF", "NR_PT")}
    order = {"MSB": ">", "LSB": "<"}[getstr("BYT_OR")]
    ii = hdata.find(":CURVE #")
    skip = int(data[ii + 8:ii + 9])
    n1 = int(data[ii + 9:ii + 9 + skip])
    fmt = order + str(head["NR_PT"]) + "h"
    assert n1 == struct.calcsize(fmt)
    ys = struct.unpack(fmt, data[ii + 9 + skip:ii + 9 + skip + n1])
    v = [head["YZERO"] + head["YMULT"] * (y - head["YOFF"]) for y in ys]
    x = [head["XZERO"] + head["XINCR"] * (i - head["PT_OFF"]) for i in range(head["NR_PT"])]
    return x, v


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-32768, 32767), min_size=1, max_size=50), st.floats(1e-12, 1e-3),
       st.floats(-1e-2, 1e-2), st.floats(1e-7, 1.0), st.integers(-200, 200))
def test_exported_isf_reads_in_isfread(codes, dt, t0, mult, off):
    w = Waveform(np.array(codes, np.int16), mult, float(off), 0.0, dt, t0, unit="A", source="CH1")
    data = format_isf(w)
    assert b"e-" not in data.split(b":CURVE")[0]                 # no Python float spelling
    x, v = _isfread(data)
    want = (np.array(codes, float) - off) * mult
    assert np.array_equal(np.array(v), want) and x[0] == t0 and x[-1] == pytest.approx(t0 + (len(codes) - 1) * dt)


def test_numbers_as_scopes_print_them():
    assert [format_number(x) for x in (4e-10, 5e-7, -0.002, 128.0)] == [
        "400.0000E-12", "500.0000E-9", "-2.0000E-3", "128.0000E+0"]


def _tiny_session(path, bench):
    from charz.archive import ArchiveWriter, Capture, Channel

    codes = np.array([0, 3, 7, 120, -5, 2], np.int8)
    ch = Channel("current", Waveform(codes, 4e-3, 0, 0.01, 2e-6, -4e-6, unit="A", source="CH1", code_min=-128,
                                     code_max=127))
    cap = Capture(step=0, op="write", size_bytes=4096, offset_bytes=0, repeat=0, time_reference="trigger",
                  channels=[ch])
    with ArchiveWriter.create(path, {"drive": {}, "bench": bench, "plan": {"steps": []}}) as w:
        w.append(cap)
    return (codes.astype(float)) * 4e-3 + 0.01


def test_exported_tek_csv_names_the_sessions_scope(tmp_path):
    from charz.importer import export_archive

    want = _tiny_session(tmp_path / "s", {"kind": "real", "scope": "TEKTRONIX,DPO3014,C010101,FV:v2.14"})
    assert export_archive(tmp_path / "s", tmp_path / "out", "tek-csv") == 1
    path = next((tmp_path / "out").glob("*.csv"))
    assert path.read_text().splitlines()[0] == "Model,DPO3014"
    (w,) = read_records(path)
    assert w.model == "DPO3014" and np.allclose(w.values(), want, rtol=0, atol=1e-6)
    _tiny_session(tmp_path / "s2", {"kind": "mock"})            # no scope named: no Model line
    export_archive(tmp_path / "s2", tmp_path / "out2", "tek-csv")
    assert not next((tmp_path / "out2").glob("*.csv")).read_text().startswith("Model,")


def test_envelope_refused_math_flagged_logic_skipped_on_request(tmp_path):
    from charz.archive import read_archive
    from charz.importer import import_folder

    man = 'amps_per_volt = 1.0\n[[capture]]\nfile = "{}"\nop = "write"\nsize = "4k"\n'
    env = tmp_path / "env"
    env.mkdir()
    (env / "a.isf").write_bytes(_TDS_SHORT.replace(b"PT_F Y", b"PT_F ENV"))
    (env / "manifest.toml").write_text(man.format("a.isf"))
    with pytest.raises(UsageError, match="peak-detect"):
        import_folder(env, tmp_path / "s1")
    assert not (tmp_path / "s1").exists()

    math = tmp_path / "math"
    math.mkdir()
    (math / "m.csv").write_text(_MSO5_TWO.replace("TIME,CH1,MATH1", "TIME,MATH1,CH2"))
    (math / "manifest.toml").write_text('channel = "MATH1"\n' + man.format("m.csv"))
    n, warnings = import_folder(math, tmp_path / "s2")
    assert n == 1 and any("MATH1 is a Math/Reference trace" in w for w in warnings)
    assert [c.name for c in read_archive(tmp_path / "s2").captures[0].channels] == ["current", "ch2"]

    f32 = lambda xs: np.asarray(xs, "<f4").tobytes()  # noqa: E731
    logic = tmp_path / "logic"
    logic.mkdir()
    (logic / "b.bin").write_bytes(_bin_multi([(1, b"Channel 1", 4, [(1, 4, f32([0.1, 0.2, 0.3]))]),
                                              (6, b"D0-D7", 0, [(6, 1, bytes([1, 3, 2]))])]))
    (logic / "manifest.toml").write_text(man.format("b.bin"))
    with pytest.raises(UsageError, match="D0-D7 is a logic") as info:
        import_folder(logic, tmp_path / "s3")
    assert 'skip = ["D0-D7"]' in info.value.hint
    (logic / "manifest.toml").write_text('skip = ["D0-D7"]\n' + man.format("b.bin"))
    n, warnings = import_folder(logic, tmp_path / "s3")
    assert n == 1 and any("D0-D7" in w for w in warnings)


# An MDO3014 saving CH1 and its logic pod together (layout of a public file): one TIME
# group per kind, side by side, each group's header keys in its own TIME column.
_MDO_MIXED = """Model,MDO3014
Firmware Version,1.20

Waveform Type,ANALOG,,Waveform Type,DIGITAL,,
Point Format,Y,,Point Format,Y,,
Horizontal Units,s,,Horizontal Units,s,,
Sample Interval,4e-09,,Sample Interval,4e-09,,
Record Length,4,,Record Length,4,,
Probe Attenuation,10,,,,,
Vertical Units,V,,Vertical Units,V,V,V
Vertical Offset,0,,Threshold Used,1.65,1.65,1.65
,,,,,,
Label,PCLK,,Label,FV,LV,D0
TIME,CH1,,TIME,D2,D1,D0
-8.000000e-09,0.68,,-8.000000e-09,0,1,0
-4.000000e-09,0.28,,-4.000000e-09,0,1,1
0.000000e+00,0.2,,0.000000e+00,1,1,0
4.000000e-09,1.32,,4.000000e-09,1,0,0
"""


def test_mdo_analog_and_digital_groups(tmp_path):
    from charz.importer import import_folder

    recs = parse_tek_csv(_MDO_MIXED)
    assert [(r.source, r.mode) for r in recs] == [("CH1", "sample"), ("D2", "digital"), ("D1", "digital"),
                                                   ("D0", "digital")]
    assert recs[0].values() == pytest.approx([0.68, 0.28, 0.2, 1.32], rel=1e-12)
    assert recs[3].values() == pytest.approx([0, 1, 0, 0], rel=1e-12)
    assert recs[0].sample_interval_s == 4e-9 and recs[0].model == "MDO3014"
    (tmp_path / "write-4k-0.csv").write_text(_MDO_MIXED)
    man = 'amps_per_volt = 10.0\n[[capture]]\nfile = "write-4k-0.csv"\nop = "write"\nsize = "4k"\n'
    (tmp_path / "manifest.toml").write_text(man)
    with pytest.raises(UsageError, match="D2, D1, D0 are logic channels") as info:
        import_folder(tmp_path, tmp_path / "s")
    assert 'skip = ["digital"]' in info.value.hint
    (tmp_path / "manifest.toml").write_text('skip = ["digital"]\n' + man)
    n, warnings = import_folder(tmp_path, tmp_path / "s")
    assert n == 1 and any("D2, D1, D0" in w for w in warnings)


def test_keysight_csv_four_channels_as_published_and_segmented_refused():
    # InfiniiVision "x-axis,1,2,3,4" / "second,Volt,…" with the scope's own number spelling.
    text = ("x-axis,1,2,3,4\nsecond,Volt,Volt,Volt,Volt\n"
            "-84.48E-06,0.0E+00,4.70E+00,4.99E+00,5.01E+00\n"
            "-84.47E-06,+40.0E-03,4.70E+00,4.99E+00,5.01E+00\n"
            "-84.46E-06,+80.0E-03,4.66E+00,5.03E+00,5.01E+00\n")
    recs = parse_keysight_csv_records(text)
    assert [r.source for r in recs] == ["1", "2", "3", "4"] and {r.unit for r in recs} == {"V"}
    assert recs[0].values() == pytest.approx([0.0, 0.04, 0.08], rel=1e-12) and recs[0].sample_interval_s == pytest.approx(1e-8)
    segmented = "points/segment = 3\n" + text + text.split("\n", 2)[2]
    with pytest.raises(ValueError, match="segmented-memory"):
        parse_keysight_csv_records(segmented)

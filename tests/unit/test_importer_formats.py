"""The scope-file parsers: ISF and Keysight BIN on bytes laid out by hand from the manuals,
round trips through the writers, and float samples back to codes."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.importer._isf import format_isf, parse_isf
from charz.importer._keysight import format_bin, parse_bin, parse_keysight_csv
from charz.importer._quantize import to_codes
from charz.importer._waveform import Waveform

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
    w = Waveform(2e-6, -1e-4, "A", "CH1", codes=np.arange(500, dtype=np.int16), y_mult=1e-3)
    with pytest.raises(ValueError, match=says):
        parse_isf(damage(format_isf(w)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-32768, 32767), min_size=1, max_size=300), st.booleans(),
       st.floats(1e-9, 1e-3), st.floats(-1e-2, 1e-2), st.floats(1e-6, 1.0), st.floats(-200, 200))
def test_isf_round_trip_keeps_codes_and_scaling(codes, eight_bit, dt, t0, mult, off):
    arr = np.array(codes, dtype=np.int16)
    if eight_bit:
        arr = (arr // 256).astype(np.int8)
    w = Waveform(dt, t0, "A", "CH2", codes=arr, y_mult=mult, y_offset_codes=off, y_zero=0.5)
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
    assert w.values == pytest.approx([0.1, 0.2, 0.25]) and w.unit == "A" and w.source == "Channel 1"
    assert (w.sample_interval_s, w.t_first_s) == (1e-6, -5e-6)
    assert parse_bin(_bin_by_hand([1.0, 2.0], 1e-6, 0.0, 1)).unit == "V"


def test_keysight_bin_round_trip_and_damage():
    w = Waveform(4e-6, -2e-4, "A", "CH1")
    values = np.linspace(0.0, 0.3, 77)
    back = parse_bin(format_bin(w, values))
    assert np.array_equal(back.values, values.astype(np.float32).astype(float))
    assert (back.sample_interval_s, back.t_first_s, back.unit) == (4e-6, -2e-4, "A")
    with pytest.raises(ValueError, match="truncated"):
        parse_bin(format_bin(w, values)[:-8])
    with pytest.raises(ValueError, match="cookie"):
        parse_bin(b"XX10" + format_bin(w, values)[4:])


def test_keysight_csv():
    w = parse_keysight_csv("x-axis,1\nsecond,Ampere\n-1.0e-6,0.010\n0.0,0.020\n1.0e-6,0.030\n")
    assert w.unit == "A" and w.values.tolist() == [0.01, 0.02, 0.03]
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

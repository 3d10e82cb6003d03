"""Inputs of the WA path: --op, several dies' uncertainty, sigrok's --show and META line, --logic lists."""

from __future__ import annotations

import numpy as np
import pytest

from charz.analysis._pulses import PulseCounter
from charz.analysis._wa import WaGeometry, count_uncertainty, wa_eq7
from charz.wa import die_notes, settle_notes
from charz.cli._wa_model import parse_op
from charz.errors import UsageError
from charz.logic._sigrok import SigrokStream, parse_logic_spec, parse_show

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("text,value", [("7%", 0.07), ("0.07", 0.07), ("15 %", 0.15), ("100%", 1.0)])
def test_op_percent_or_fraction(text, value):
    assert parse_op(text) == pytest.approx(value)


@pytest.mark.parametrize("text,why", [("7", "ambiguous"), ("700%", "above 100 %"), ("0", "some spare"),
                                      ("-3%", "some spare"), ("seven", "percent or a fraction")])
def test_op_refused(text, why):
    with pytest.raises(UsageError, match=why):
        parse_op(text)


def test_several_dies_mean_and_spread_in_the_uncertainty():
    g = WaGeometry.given(2, 1, 2, 4096)  # 4 dies
    e = wa_eq7(0, 1, g, 4 * 4096 * 1000, die_counts=[900, 1100])
    assert e.n_tprogram.value == 1000 and e.wa.value == pytest.approx(1.0)
    # spread s = 141.4 beats the binomial √750 = 27.4; 2 of 4 dies: × √(2 / (3 · 2))
    assert e.n_tprogram.uncertainty == pytest.approx(np.sqrt(20000 * 2 / 6))
    assert "mean of 2 dies" in e.n_tprogram.evidence
    # every die counted: no sampling left, only the cut pulses
    assert count_uncertainty(1000, 4, 2, [990, 1010, 1000, 1000]) == pytest.approx(np.sqrt(2 / 4))
    with pytest.raises(ValueError, match="5 dies counted"):
        count_uncertainty(1000, 4, die_counts=[1] * 5)


def test_bench_settle_defaults_to_000s_five_minutes_and_a_shorter_one_warns():
    settle, gap, notes = settle_notes(None, 10.0)
    assert settle == 300.0 and gap == 10.0 and notes == []
    settle, _, notes = settle_notes(0.5, 10.0)
    assert settle == 0.5 and "may be missed" in notes[0]
    assert "one die of 8 counted" in die_notes(1, 8)[0] and die_notes(2, 8) == [] and die_notes(1, 1) == []


def test_logic_spec_lists_several_dies():
    s = parse_logic_spec("fx2lafw:conn=1.5:D0,D3")
    assert s.driver == "fx2lafw:conn=1.5" and s.channels == ("D0", "D3") and s.bits == (0, 3)
    with pytest.raises(UsageError, match="twice"):
        parse_logic_spec("fx2lafw:D1,1")


def test_show_output_and_a_meta_line_split_over_reads():
    info = parse_show("Samplerate: 24000000\nChannels: 3\n- D0: logic\n- D1: logic\n- A0: analog\n"
                      "Logic unitsize: 1\nLogic sample count: 99\n")
    assert info.samplerate_hz == 24e6 and info.channels == ("D0", "D1") and info.samples == 99
    s = SigrokStream.__new__(SigrokStream)
    s.strip_meta, s.meta_samplerate_hz = True, None
    assert s._take_meta(b"MET") is None and s._take_meta(b"META samplerate: 2") is None
    assert s._take_meta(b"META samplerate: 250000\n\x01\x00") == b"\x01\x00"
    assert s.meta_samplerate_hz == 250000 and not s.strip_meta
    s.strip_meta = True
    assert s._take_meta(b"\x01\x01META ") == b"\x01\x01META "  # data first: nothing stripped


@pytest.mark.parametrize("rate", [250e3, 1e6, 4e6, 24e6])
def test_blips_shorter_than_the_glitch_time_never_split_a_pulse(rate):
    # 200 programs of 900 µs, 40 µs apart, each with a high blip of 0.02–1.99 µs at a random
    # instant (not on the sample grid); sampled as an analyser would: low iff inside a low stretch
    rng = np.random.default_rng(int(rate))
    t = 100 + np.arange(200) * 940.0
    blip_at = t + rng.uniform(100, 800, 200)
    blip_w = rng.uniform(0.02, 1.99, 200)
    n = int((t[-1] + 2000) * rate / 1e6)
    tt = np.arange(n) / rate * 1e6
    k = np.clip(np.searchsorted(t, tt, side="right") - 1, 0, None)
    low = (tt >= t[k]) & (tt < t[k] + 900) & ~((tt >= blip_at[k]) & (tt < blip_at[k] + blip_w[k]))
    c = PulseCounter(rate)
    c.feed((~low).astype(np.uint8))
    assert c.counts.programs == 200 and c.counts.pulses == 200

"""Wire formats: round trips, the documented shapes, and malformed input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.errors import ScopeProtocolError, ScopeTransferError
from charz.scope._wire import (
    block_header,
    block_start,
    split_compound,
    Identity,
    KeysightPreamble,
    ScopeEvent,
    TekPreamble,
    format_idn,
    format_keysight_error,
    format_keysight_preamble,
    format_nr3,
    format_tek_events,
    format_wfmoutpre,
    header_matches,
    parse_idn,
    parse_keysight_error,
    parse_keysight_preamble,
    parse_nr1,
    parse_nr3,
    parse_tek_events,
    parse_wfmoutpre,
    reply_value,
    split_units,
)

pytestmark = pytest.mark.unit

# From research/scope.md: a DPO3000 (KEK module), HEADer OFF, 16 fields.
DPO3000_OFF = ('1;8;BIN;RI;MSB;"Ch1, DC coupling, 5.000mV/div, 400.0us/div, 10000 points, '
               'Sample mode";10000;Y;"s";400.0000E-9;-2.0000E-3;0;"V";200.0000E-6;0.0E+0;0.0E+0')
# An MDO3024 at FV v1.30, 22 fields (PT_ORDER and the five spectrum fields).
MDO_OFF = ('2;16;BIN;RI;MSB;"Ch1, DC coupling, 100.0mV/div, 4.000us/div, 10000 points, Sample mode";'
           '10000;Y;LINEA;"s";4.0000E-9;-20.0000E-6;0;"V";15.6250E-3;12.8000E+3;0.0E+0;TIM;ANALOG;'
           '0.0E+0;0.0E+0;0.0E+0')
# A real ISF header (justengel/isfreader T0000CH1.ISF): short keys, repeated NR_P, extra keys.
ISF_SHORT = (':WFMP:NR_P 1250000;:WFMP:BYT_N 1;BIT_N 8;ENC BIN;BN_F RI;BYT_O MSB;WFI "Ch1, DC '
             'coupling, 5.000V/div, 1.000ms/div, 1250000 points, Sample mode";NR_P 1250000;PT_F Y;'
             'XUN "s";XIN 8.0000E-9;XZE 34.6048E-3;PT_O 0;YUN "V";YMU 200.0000E-3;YOF -500.0000E-3;'
             'YZE 0.0E+0;VSCALE 5.0000;HSCALE 1.0000E-3;VPOS -20.0000E-3;VOFFSET 0.0E+0;'
             'HDELAY 39.6048E-3;COMP COMPOSITE_YT;FILTERF 100000000')
# A MDO/MSO4000 with HEADer ON and VERBose ON (long keys, long argument keywords).
MDO_LONG = (':WFMOUTPRE:BYT_NR 1;BIT_NR 8;ENCDG ASCII;BN_FMT RI;BYT_OR MSB;WFID "Ch1, DC coupling, '
            '1.000V/div, 400.0us/div, 10000 points, Sample mode";NR_PT 10000;PT_FMT Y;PT_ORDER LINEAR;'
            'XUNIT "s";XINCR 400.0000E-9;XZERO -2.0000E-3;PT_OFF 0;YUNIT "V";YMULT 40.0000E-3;'
            'YOFF 0.0E+0;YZERO 0.0E+0;DOMAIN TIME;WFMTYPE ANALOG;CENTERFREQUENCY 0.0E+0;SPAN 0.0E+0;'
            'REFLEVEL 0.0E+0')


def test_documented_preambles_parse_to_the_same_meaning():
    p = parse_wfmoutpre(DPO3000_OFF)
    assert (p.byt_nr, p.bit_nr, p.encdg, p.bn_fmt, p.byt_or) == (1, 8, "BIN", "RI", "MSB")
    assert (p.nr_pt, p.xincr, p.xzero, p.yunit, p.ymult, p.yoff) == (
        10000, 400e-9, -2e-3, "V", 200e-6, 0.0)
    m = parse_wfmoutpre(MDO_OFF)
    assert (m.byt_nr, m.nr_pt, m.xincr, m.ymult, m.yoff) == (2, 10000, 4e-9, 15.625e-3, 12800.0)
    assert dict(m.extra)["PT_ORDER"] == "LINEA"
    isf = parse_wfmoutpre(ISF_SHORT)
    assert (isf.nr_pt, isf.xincr, isf.ymult, isf.yoff) == (1250000, 8e-9, 0.2, -0.5)
    long = parse_wfmoutpre(MDO_LONG)
    assert (long.encdg, long.xzero, long.ymult) == ("ASC", -2e-3, 40e-3)


@pytest.mark.parametrize("layout", ["dpo3000", "mdo"])
@pytest.mark.parametrize("header,verbose", [(False, True), (True, True), (True, False)])
def test_preamble_round_trip_in_every_shape(layout, header, verbose):
    extra = (("PT_ORDER", "LINEAR"), ("DOMAIN", "TIME"), ("WFMTYPE", "ANALOG"),
             ("CENTERFREQUENCY", "0.0E+0"), ("SPAN", "0.0E+0"), ("REFLEVEL", "0.0E+0"))
    p = TekPreamble(2, 16, "BIN", "RI", "LSB", "Ch2, DC coupling, 100.0mA/div", 1_000_000, "Y",
                    "s", 2e-6, -0.2, 0, "A", 0.1 / 6400, -19200.0, 0.0,
                    extra if layout == "mdo" else ())
    q = parse_wfmoutpre(format_wfmoutpre(p, header=header, verbose=verbose, layout=layout))
    assert (q.byt_nr, q.byt_or, q.wfid, q.nr_pt, q.xincr, q.xzero, q.yunit, q.yoff) == (
        p.byt_nr, p.byt_or, p.wfid, p.nr_pt, p.xincr, p.xzero, p.yunit, p.yoff)
    assert q.ymult == pytest.approx(p.ymult, rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(x=st.floats(min_value=-1e12, max_value=1e12, allow_nan=False).filter(
    lambda v: v == 0 or abs(v) > 1e-15))
def test_nr3_round_trip_keeps_five_digits(x):
    # Tek's mantissa has four decimals: 1.0000E+9 holds 5 digits, 999.9999E+6 holds 7.
    assert parse_nr3(format_nr3(x)) == pytest.approx(x, rel=5e-5, abs=1e-300)


@pytest.mark.parametrize("bad, words", [
    ("", "empty"),
    ("1;8;BIN;RI;MSB", "quoted"),
    (DPO3000_OFF.replace("200.0000E-6", "1.2.3E+x"), "YMULT"),
    (DPO3000_OFF.replace(";200.0000E-6", ""), "layout"),
    (DPO3000_OFF.replace("BIN;RI", "BIN;XX"), "BN_FMT"),
    (DPO3000_OFF.replace("1;8;", "3;8;", 1), "BYT_NR"),
    (DPO3000_OFF.replace("400.0000E-9", "0.0E+0"), "XINCR"),
    (DPO3000_OFF.replace("400.0000E-9", "9.91E37"), "finite"),
    (MDO_LONG.replace("YMULT 40.0000E-3;", ""), "YMULT"),
    (MDO_LONG.replace("NR_PT 10000", "NR_PT -4"), "negative"),
    ('1;8;BIN;RI;MSB;"Ch1;10000;Y', "unterminated"),
    (MDO_LONG.replace("YMULT 40.0000E-3", "YMULT 1.0;YMULT 2.0"), "repeats"),
])
def test_malformed_preambles_are_protocol_errors(bad, words):
    with pytest.raises(ScopeProtocolError) as info:
        parse_wfmoutpre(bad)
    assert words.lower() in info.value.message.lower()
    assert info.value.hint


def test_keyed_preamble_ignores_keys_a_newer_firmware_adds():
    p = parse_wfmoutpre(MDO_LONG + ';NEWKEY 7')
    assert p.nr_pt == 10000


def test_idn_round_trip_and_errors():
    ident = Identity("TEKTRONIX", "DPO3014", "C010101", "CF:91.1CT FV:v2.14")
    assert parse_idn(format_idn(ident) + "\n") == ident
    for bad in ("", "TEKTRONIX,DPO3014", "a,b,c,d,e", ",DPO,1,2"):
        with pytest.raises(ScopeProtocolError):
            parse_idn(bad)


@pytest.mark.parametrize("received, pattern, ok", [
    (":HORIZONTAL:RECORDLENGTH", "HORizontal:RECOrdlength", True),
    (":HOR:RECO", "HORizontal:RECOrdlength", True),
    ("hor:recordl", "HORizontal:RECOrdlength", True),
    (":HO:RECO", "HORizontal:RECOrdlength", False),
    (":CH1:SCALE", "CH<x>:SCAle", True),
    (":CH:SCALE", "CH<x>:SCAle", False),
    (":CH1:SCALE", "CH<x>:POSition", False),
    (":TRIGGER:A:LEVEL:CH2", "TRIGger:A:LEVel:CH<x>", True),
    (":CHAN1:SCAL", ":CHANnel<x>:SCALe", True),
])
def test_header_matching_follows_the_abbreviation_rule(received, pattern, ok):
    assert header_matches(received, pattern) is ok


def test_reply_value_rejects_the_header_of_another_query():
    assert reply_value(":ACQUIRE:STATE 0", "ACQuire:STATE") == "0"
    assert reply_value("0", "ACQuire:STATE") == "0"
    with pytest.raises(ScopeProtocolError, match="another query"):
        reply_value(":HORIZONTAL:SAMPLERATE 500.0000E+3", "HORizontal:RECOrdlength")
    with pytest.raises(ScopeProtocolError):
        reply_value("1;2", "ACQuire:STATE")


def test_split_units_respects_quotes():
    assert split_units('a;"b;c";\'d;e\';"x""y;"') == ["a", '"b;c"', "'d;e'", '"x""y;"']


def test_numbers():
    assert parse_nr1("+10000") == 10000
    assert parse_nr1("1.0000E+3") == 1000
    for bad in ("1.5", "abc", ""):
        with pytest.raises(ScopeProtocolError):
            parse_nr1(bad)
    for bad in ("nan", "inf", "x", "9.91E+37"):
        with pytest.raises(ScopeProtocolError):
            parse_nr3(bad)


def test_event_queue_round_trip_and_empty_queue():
    events = (ScopeEvent(113, "Undefined header; Command not found; HOR:FOO 1"),
              ScopeEvent(221, 'Settings conflict; "quoted"'))
    assert parse_tek_events(format_tek_events(events)) == events
    assert parse_tek_events('0,"No events to report - queue empty"') == ()
    assert parse_tek_events('1,"No events to report - new events pending *ESR?"') == ()
    assert parse_tek_events(':ALLEV 113,"Undefined header"')[0].code == 113
    assert events[0].is_error and not ScopeEvent(401, "Power on").is_error
    with pytest.raises(ScopeProtocolError):
        parse_tek_events("113 Undefined header")


def test_keysight_preamble_round_trip_and_errors():
    p = KeysightPreamble(1, 0, 10000, 1, 2e-6, -2e-3, 0, 0.1 / 8192, 0.0, 0)
    q = parse_keysight_preamble(format_keysight_preamble(p))
    assert q.yincrement == pytest.approx(p.yincrement, rel=1e-8)
    assert q == KeysightPreamble(**{**p.__dict__, "yincrement": q.yincrement})
    with pytest.raises(ScopeProtocolError, match="10"):
        parse_keysight_preamble("+1,+0,+10000")
    fields = format_keysight_preamble(p).split(",")
    fields[7] = "x"
    with pytest.raises(ScopeProtocolError, match="yincrement"):
        parse_keysight_preamble(",".join(fields))
    with pytest.raises(ScopeProtocolError, match="format"):
        parse_keysight_preamble("+7,+0,+10,+1,+1E-6,+0,+0,+1E-3,+0,+0")
    e = ScopeEvent(-113, "Undefined header")
    assert parse_keysight_error(format_keysight_error(e)) == e
    with pytest.raises(ScopeProtocolError):
        parse_keysight_error("-113 Undefined header")


@pytest.mark.parametrize("head, start, found", [
    (b"#15abcde", 0, (3, 5)),
    (b':CURVE #72000000', 7, (16, 2_000_000)),
    (b':CURVE #7200', 7, None),  # the header is still arriving
    (b":CURVE #", 7, None),
])
def test_block_header_locates_the_data(head, start, found):
    assert block_start(head) == start
    assert block_header(head, start) == found


@pytest.mark.parametrize("head", [b"#0\n", b"#x12", b"#3a1b"])
def test_malformed_block_headers_are_transfer_errors(head):
    with pytest.raises(ScopeTransferError, match="definite-length|not a number"):
        block_header(head, 0)


def test_quotes_hide_hashes_and_semicolons_from_the_compound_split():
    before = ':WFMO:WFID "a;#b";NR_P 5;:ACQ:NUMAC 2;:CURVE '
    assert block_start(before.encode()) is None
    assert split_compound(before) == ([':WFMO:WFID "a;#b"', "NR_P 5", ":ACQ:NUMAC 2"], ":CURVE")

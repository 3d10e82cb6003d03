"""The mock scope's SCPI behaviour, in memory (no socket): what the manuals say it does."""

from __future__ import annotations

import numpy as np
import pytest

from charz.scope import load_model
from charz.sim._scpi_acquire import Engine
from charz.sim._scpi_demo import SawtoothSource
from charz.sim._scpi_faults import FaultBook, parse_fault
from charz.sim._scpi_keysight import KeysightDialect
from charz.sim._scpi_parse import ScpiError, split_message
from charz.sim._scpi_render import digitise, find_crossing, transfer_codes
from charz.sim._scpi_tek import TekDialect

pytestmark = pytest.mark.unit


def tek(model: str = "tek_dpo3000") -> TekDialect:
    return TekDialect(load_model(model), Engine(SawtoothSource()))


def texts(dialect, line: str) -> list[str]:
    return [r.data.decode("latin-1") for r in dialect.run_line(line)]


def test_header_and_verbose_change_the_replies():
    t = tek()
    assert texts(t, "HOR:RECO?") == [":HORIZONTAL:RECORDLENGTH 10000"]
    assert texts(t, "VERB OFF;:HOR:RECO?;:ACQ:STOPA?") == [":HOR:RECO 10000", ":ACQ:STOPA RUNST"]
    assert texts(t, "HEAD OFF;:HOR:RECO?;:ACQ:STOPA?") == ["10000", "RUNST"]
    assert texts(t, "HEADER ON;VERBOSE ON;:ACQUIRE:STOPAFTER?") == [":ACQUIRE:STOPAFTER RUNSTOP"]
    assert texts(t, "*IDN?") == ["TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14"]  # no header


def test_long_short_and_intermediate_forms_case_insensitively_with_relative_paths():
    t = tek()
    t.run_line("head off")
    assert texts(t, ":horizontal:recordl 100000;RECO?") == ["100000"]
    assert texts(t, "ACQuire:MODe SAMple;STOPAfter SEQ;:ACQ:STOPAFTER?;MODE?") == ["SEQ", "SAM"]
    assert texts(t, "*esr?") == ["0"]
    assert texts(t, "ACQ:MOD SAMPLE;*OPC;STOPA?") == ["SEQ"]  # star commands keep the path


def test_unknown_headers_queue_113_and_set_esr_bit_5_visible_after_esr():
    t = tek()
    t.run_line("HEADER OFF;:HORIZONTAL:FOO 1")
    t.run_line("DISPlay:INTENsity:TEXt 80;ACQuire:NUMAVg 10")  # the manual's invalid example
    assert texts(t, "ALLEV?") == ['1,"No events to report - new events pending *ESR?"']
    assert texts(t, "*ESR?") == ["32"]
    events = texts(t, "ALLEV?")[0]
    assert events.startswith('113,"Undefined header; Command not found; :HORIZONTAL:FOO 1",113,')
    assert events.endswith('113,"Undefined header; Command not found; ACQuire:NUMAVg 10"')
    assert texts(t, "EVQTY?;*ESR?") == ["0", "0"]


def test_rst_restores_factory_settings_but_keeps_header_verbose_and_data():
    t = tek()
    t.run_line("HEADER OFF;:VERBOSE OFF;:DATA:ENCDG SRIBINARY;:DATA:WIDTH 2;:HOR:RECO 100000;:CH1:SCALE 0.5")
    t.run_line("*RST")
    assert texts(t, "HOR:RECO?;:CH1:SCA?;:DATA:ENCDG?;:DATA:WIDTH?;:HEADER?") == [
        "10000", "100.0000E-3", "SRI", "2", "0"]


def test_trigger_state_moves_ready_trigger_save_and_opc_waits_for_the_sequence():
    t = tek()
    t.engine.time_scale = 0.0
    t.run_line("HEADER OFF;:CH1:SCALE 0.1;:CH1:POSITION -3;:HOR:RECO 10000;:HOR:SCALE 2E-3;"
               ":TRIG:A:LEVEL:CH1 0.35;:TRIG:A:MODE NORMAL;:ACQ:STOPAFTER SEQUENCE;:ACQ:STATE RUN")
    assert texts(t, "TRIGGER:STATE?;:ACQ:STATE?;:BUSY?") == ["READY", "1", "1"]
    wait = t.run_line("*OPC?")[0]
    assert not wait.until(lambda: False)  # a hung-up client stops the wait
    before = int(texts(t, "ACQ:NUMACQ?")[0])
    result = t.engine.host_io("write", 32768, 0)
    assert result["triggered"] and result["trigger_s"] > 20e-6
    assert texts(t, "TRIGGER:STATE?;:ACQ:STATE?;:BUSY?") == ["SAVE", "0", "0"]
    assert wait.until(lambda: True) and wait.then().data == b"1"
    assert int(texts(t, "ACQ:NUMACQ?")[0]) == before + 1


def test_curve_encodings_carry_the_same_codes():
    t = tek()
    t.run_line("HEADER OFF;:CH1:SCALE 0.1;:CH1:POSITION -3;:TRIG:A:LEVEL:CH1 0.35;:TRIG:A:MODE NORM;"
               ":HOR:SCALE 2E-3;:ACQ:STOPA SEQ;:ACQ:STATE 1")
    t.engine.host_io("write", 4096, 0)
    t.run_line("DATA:START 1;STOP 10000;:DATA:WIDTH 2;ENCDG RIBINARY")
    ri = t.run_line("CURVE?")[0].data
    assert ri.startswith(b"#520000") and len(ri) == 7 + 20000
    codes = np.frombuffer(ri[7:], ">i2")
    assert b"\n" in ri[7:] and np.all(codes % 256 == 0)  # 8-bit ADC value in the high byte
    t.run_line("DATA:ENCDG SRIBINARY")
    assert np.array_equal(np.frombuffer(t.run_line("CURVE?")[0].data[7:], "<i2"), codes)
    t.run_line("DATA:ENCDG RPBINARY")
    rp = np.frombuffer(t.run_line("CURVE?")[0].data[7:], ">u2").astype(int)
    assert np.array_equal(rp - 32768, codes)
    pre = texts(t, "WFMOUTPRE:YOFF?")[0]
    assert float(pre) == pytest.approx(-3 * 6400 + 32768)
    t.run_line("DATA:ENCDG ASCII;:DATA:WIDTH 1")
    ascii_codes = np.array(texts(t, "CURVE?")[0].split(","), dtype=int)
    assert np.array_equal(ascii_codes, codes // 256)


def test_wfmoutpre_layouts():
    dpo, mdo = tek(), tek("tek_mdo3000")
    for d in (dpo, mdo):
        d.run_line("HEADER OFF")
    assert len(texts(dpo, "WFMOUTPRE?")[0].split(";")) == 16
    assert len(texts(mdo, "WFMOUTPRE?")[0].split(";")) == 22
    mdo.run_line("HEADER ON;VERBOSE OFF")
    assert texts(mdo, "WFMO?")[0].startswith(":WFMO:BYT_N 1;BIT_N 8;ENC BIN;BN_F RI;BYT_O MSB;WFI ")
    assert texts(mdo, "WFMOUTPRE:NR_PT?") == [":WFMO:NR_P 10000"]


def test_mso5_yoff_is_zero_and_yzero_carries_position():
    m = tek("tek_mso5")
    m.run_line("HEADER OFF;:CH1:POSITION -2;:CH1:OFFSET 0.05;:CH1:SCALE 0.1")
    m.run_line("ACQ:STATE RUN")
    m.engine.force()
    assert texts(m, "WFMO:YOFF?;:WFMO:YZERO?") == ["0.0E+0", "250.0000E-3"]
    m.run_line("HOR:RECO 20000")
    assert texts(m, "*ESR?") == ["16"]  # settings conflict: AUTO mode
    m.run_line("HOR:MODE MANUAL;:HOR:MODE:SAMPLERATE 5E5;:HOR:MODE:RECO 20000")
    assert texts(m, "HOR:MODE:SAMPLERATE?;:HOR:RECO?;:HOR:MODE:SCALE?") == ["500.0000E+3", "20000", "4.0000E-3"]


def test_keysight_is_strict_scpi_with_a_fifo_error_queue():
    k = KeysightDialect(load_model("keysight_dsox3000"), Engine(SawtoothSource()))
    # TIMEB is neither the short (TIM) nor the long (TIMEBASE) form: refused, not applied.
    assert texts(k, ":TIMEB:SCAL 1E-3;:TIMEBASE:SCALE?;:TIM:SCAL?") == ["+1.00000000E-04"] * 2
    assert texts(k, ":SYST:ERR?;:SYST:ERR?;*ESR?") == ['-113,"Undefined header"', '+0,"No error"', "+32"]
    k.run_line(":WAV:POIN:MODE RAW;:WAV:POIN 1000;:WAV:FORM WORD;:WAV:UNS 0;:SINGLE")
    assert int(texts(k, ":OPER:COND?")[0]) & 0x28 == 0x28  # running, waiting for the trigger
    k.engine.force()
    assert texts(k, ":OPER:COND?") == ["+0"]
    pre = texts(k, ":WAV:PRE?")[0].split(",")
    assert len(pre) == 10 and pre[0] == "+1" and pre[2] == "+1000" and pre[9] == "+0"
    data = k.run_line(":WAV:DATA?")[0].data
    assert data.startswith(b"#800002000")


def test_parser_errors_and_quotes():
    units = split_message('CH1:YUNITS "A;B";:DATA:SOURCE CH2', [])
    assert [u.args for u in units] == [['"A;B"'], ["CH2"]]
    with pytest.raises(ScpiError):
        split_message('CH1:YUNITS "A', [])
    with pytest.raises(ScpiError):
        split_message("12 34", [])


def test_render_helpers():
    ramp = lambda first, n: np.arange(first, first + n, dtype=float)  # noqa: E731
    assert find_crossing(ramp, 70_000.5, "RISE", 100_000, chunk=1000) == 70_001
    assert find_crossing(lambda f, n: -ramp(f, n), -5.0, "FALL", 100) == 5
    assert find_crossing(ramp, 1e9, "EITHER", 100) is None
    adc = digitise(np.array([-10.0, 0.0, 10.0]), scale=1.0, position_div=0.0, offset=0.0,
                   codes_per_div=25.0, adc_bits=8)
    assert adc.tolist() == [-128, 0, 127]
    assert transfer_codes(adc, 8, 2).tolist() == [-32768, 0, 32512]


def test_faults_parse_and_count_down():
    book = FaultBook([parse_fault("no_reply:match=CURV,count=2"), parse_fault({"kind": "slow", "count": None})])
    assert book.take("no_reply", "WFMO?") is None
    assert book.take("no_reply", "curve?") and book.take("no_reply", "CURVe?")
    assert book.take("no_reply", "CURVe?") is None
    assert all(book.take("slow") for _ in range(5))
    for bad in ("nonsense", "slow:delay=1", "truncated_block:fraction=2", {"kind": "slow", "x": 1}):
        with pytest.raises((ValueError, TypeError)):
            parse_fault(bad)


# ---------------------------------------------------------------- issue 24: what public clients ask

def test_tps2000_preamble_in_the_tds_order_and_select_lists_every_waveform():
    t = tek("tek_tds2000")
    t.run_line("HEADER OFF")
    fields = texts(t, "WFMPre?")[0].split(";")
    # TDS/TPS 2000 programmer manual order (QCoDeS' TPS2012 parser reads it by position):
    # NR_PT before WFID, XINCR;PT_OFF;XZERO;XUNIT, then YMULT;YZERO;YOFF;YUNIT.
    assert len(fields) == 16 and [i for i, f in enumerate(fields) if f.startswith('"')] == [6, 11, 15]
    assert fields[5] == "2500" and fields[9] == "0"
    assert texts(t, "SELECT?") == ["1;0;0;0;0"]
    t.run_line("HEADER ON")
    keyed = texts(t, "WFMPRE?")[0]
    assert keyed.startswith(":WFMPRE:BYT_NR ")
    from charz.scope._wire import parse_wfmoutpre

    assert parse_wfmoutpre(keyed).nr_pt == 2500          # the same reply, read by key
    assert texts(t, "TRIG:MAI:LEV 0.35;LEV?") == [":TRIGGER:MAIN:LEVEL 350.0000E-3"]


def test_tm_devices_connection_queries_get_the_manuals_replies():
    t = tek("tek_mso5")
    t.run_line("HEADER OFF")
    assert texts(t, ":ETHERNET:NAME?;:CH1:PROBETYPE?;:CH1:PROBE:ID:TYPE?;:CH2:PROBE:ID:SERNUMBER?") == [
        '"charz-mock"', "ANALOG", '"TCP0030A"', '"N/A"']
    assert texts(t, ":LICENSE:APPID?;:FILESYSTEM:CWD?") == ['""', '"C:/"']
    t.run_line(':FILESystem:CWD "E:"')                      # no USB stick in the mock: refused
    assert texts(t, ":FILESYSTEM:CWD?;*ESR?") == ['"C:/"', "16"]   # execution error (bit 4)
    assert texts(tek("tek_dpo4000"), "HEAD OFF;:FILES:CWD?") == ['"E:/"']


def test_measurement_immed_on_the_held_record():
    t = tek()
    t.run_line("HEADER OFF;:CH1:SCALE 0.1;POSITION -3")
    t.engine.wait_done(None, lambda: True)
    t.run_line("MEASU:IMM:SOU CH1;TYP MEAN")
    mean = float(texts(t, "MEASU:IMM:VAL?")[0])
    t.run_line("DATA:SOURCE CH1;ENCDG RIBINARY;WIDTH 1")
    ymult, yoff, yzero = (float(x) for x in texts(t, "WFMOUTPRE:YMULT?;YOFF?;YZERO?"))
    curve = t.run_line("CURVE?")[0].data
    n = int(curve[2:2 + int(curve[1:2])])
    codes = np.frombuffer(curve[2 + int(curve[1:2]):], np.int8)[:n].astype(float)
    assert mean == pytest.approx(((codes - yoff) * ymult + yzero).mean(), rel=1e-4)
    # no second source for a phase: the manuals' "no measurement" value, 9.9E37
    assert texts(t, "MEASU:IMM:TYP PHA;VAL?;UNI?") == ["99.0000E+36", '"A"']

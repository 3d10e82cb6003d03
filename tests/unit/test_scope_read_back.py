"""Read-back after configure: every setting a driver declares with a ``read_back`` is read,
and one error lists every one that differs (replayed pairs, every pair used).

The replies are what a scope that rounded or refused a value would answer, written from
the programmer manuals' reply forms."""

from __future__ import annotations

import pytest

from charz.errors import ScopeInstrumentError
from charz.scope import KeysightInfiniiVision, ReplayTransport, ScopeSettings, TekDPO, TekMSO
from charz.scope._surface import read_backs
from tests.unit.scope_scripts import TEK_MSO_CONFIGURE_WRITES

pytestmark = pytest.mark.unit

SETTINGS = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=1000,
                         sample_interval_s=2e-6, trigger_level=0.35, width_bytes=2)


def _configure(scope, pairs: list) -> ScopeInstrumentError:
    t = ReplayTransport(pairs)
    with t:  # leaving checks that every pair was used
        scope.attach(t)
        with pytest.raises(ScopeInstrumentError) as info:
            scope.configure(SETTINGS)
    assert info.value.code == "not-applied" and scope.settings is None
    return info.value


def test_keysight_lists_every_setting_it_did_not_take_and_only_those():
    idn = "KEYSIGHT TECHNOLOGIES,DSOX3024T,MY12345678,07.50.2021102830"
    scope = KeysightInfiniiVision(sleep=lambda s: None)
    writes = [(w, None) for w in [
        ":STOP", ":ACQuire:TYPE NORMal", ":CHANnel1:DISPlay ON", ":CHANnel1:COUPling DC",
        ":CHANnel1:UNITs AMPere", ":CHANnel1:SCALe 0.1", ":CHANnel1:OFFSet 0.3", ":TIMebase:MODE MAIN",
        ":TIMebase:REFerence CENTer", ":TIMebase:SCALe 0.0002", ":TIMebase:POSition 0.0008",
        ":TRIGger:MODE EDGE", ":TRIGger:EDGE:SOURce CHANnel1", ":TRIGger:EDGE:COUPling DC",
        ":TRIGger:EDGE:SLOPe POSitive", ":TRIGger:EDGE:LEVel 0.35", ":TRIGger:SWEep NORMal",
        ":WAVeform:SOURce CHANnel1", ":WAVeform:FORMat WORD", ":WAVeform:BYTeorder LSBFirst",
        ":WAVeform:UNSigned OFF", ":WAVeform:POINts:MODE RAW", ":WAVeform:POINts 1000"]]
    replies = [
        (":TIMebase:SCALe?", "+5.00000000E-04"),  # rounded to the 1-2-5 sequence: differs
        (":CHANnel1:SCALe?", "+1.00500000E-01"),  # within 1 %: agrees
        (":CHANnel1:UNITs?", "VOLT"),  # refused: differs
        (":TRIGger:EDGE:SOURce?", "CHAN1"),
        (":TRIGger:EDGE:LEVel?", "+3.51000000E-01"),  # 1 mA off, within a fiftieth of 100 mA/div
        (":TRIGger:EDGE:SLOPe?", "POS"),
        (":TRIGger:SWEep?", "AUTO"),  # differs
    ]
    error = _configure(scope, [("*IDN?", idn), ("*CLS", None)] + writes + replies)
    assert error.message.endswith(
        "the scope did not take the settings: timebase is 0.0005 s/div (asked for 0.0002 s/div); "
        "CH1 units is V (asked for A); trigger sweep is auto (asked for normal)")


def test_tek_mso_reads_volts_when_external_units_are_off_without_asking_for_them():
    # EXTUnits? is asked only while EXTUnits:STATE is on; off, the channel reads volts.
    scope = TekMSO(sleep=lambda s: None, headers=False)
    writes = [(w, None) for w in TEK_MSO_CONFIGURE_WRITES]
    replies = [
        ("HORizontal:MODe:SAMPLERate?", "500.0000E+3"), ("HORizontal:MODe:RECOrdlength?", "1000"),
        ("CH1:SCAle?", "100.0000E-3"), ("CH1:PROBEFunc:EXTUnits:STATE?", "0"),
        ("TRIGger:A:EDGE:SOUrce?", "CH1"), ("TRIGger:A:LEVel:CH1?", "400.0000E-3"),  # 50 mA off
        ("TRIGger:A:EDGE:SLOpe?", "RISE"), ("TRIGger:A:MODe?", "NORMAL"),
        ("ACQuire:STOPAfter?", "RUNSTOP"),
    ]
    pairs = ([("*IDN?", "TEKTRONIX,MSO54,C012345,CF:91.1CT FV:1.44"), ("HEADer OFF;:VERBose ON", None),
              ("*CLS", None)] + writes + replies)
    error = _configure(scope, pairs)
    assert error.message.endswith(
        "CH1 units is 'V' (asked for 'A'); trigger level is 0.4 (asked for 0.35); "
        "stop after is runstop (asked for sequence)")


def test_a_leaf_replaces_its_bases_read_back_of_the_same_setting_in_place():
    dpo = [c.header for c in read_backs(TekDPO)]
    mso = [c.header for c in read_backs(TekMSO)]
    assert dpo[:4] == ["HORizontal:SAMPLERate", "HORizontal:RECOrdlength", "CH<x>:SCAle", "CH<x>:YUNits"]
    assert mso[:4] == ["HORizontal:MODe:SAMPLERate", "HORizontal:MODe:RECOrdlength", "CH<x>:SCAle",
                       "CH<x>:PROBEFunc:EXTUnits"]
    assert dpo[4:] == mso[4:] and len(dpo) == 9

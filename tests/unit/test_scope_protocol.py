"""Driver protocol tests: recorded command/response pairs replayed in memory, every pair used.

The commands are written out as the programmer manuals spell them, so a change in
what a driver sends shows up here as a failing pair, not as a surprise on the bench.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from charz.errors import (
    ClippedWaveform,
    ScopeInstrumentError,
    ScopeProtocolError,
    ScopeTransferError,
    TriggerTimeout,
    UsageError,
)
from charz.scope import (
    KeysightInfiniiVision,
    ReplayTransport,
    Scope,
    ScopeSettings,
    TekDPO,
    TekMSO,
    load_model,
    open_scope,
)
from charz.scope._wire import KeysightPreamble, TekPreamble, format_keysight_preamble, format_wfmoutpre
from tests.unit.scope_scripts import TEK_MSO_CONFIGURE_WRITES

pytestmark = pytest.mark.unit

TEK_IDN = "TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14"
SETTINGS = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=1000,
                         sample_interval_s=2e-6, trigger_level=0.35, width_bytes=2)
# 16-bit codes carrying the 8-bit ADC value in the high byte; code 10 gives 0x0A00.
CODES = ((np.arange(1000) % 250) - 125).astype(np.int16) << 8


def block(codes: np.ndarray, head: bytes = b":CURVE ", order: str = "<") -> bytes:
    payload = codes.astype(codes.dtype.newbyteorder(order)).tobytes()
    n = str(len(payload)).encode()
    return head + b"#" + str(len(n)).encode() + n + payload + b"\n"


def tek_preamble(header: bool = True, xincr: float = 2e-6, yunit: str = "A", byte_order: str = "LSB") -> str:
    # LSB: what a scope answers to charz's DATa:ENCdg SRIbinary.
    p = TekPreamble(2, 16, "BIN", "RI", byte_order, "Ch1, DC coupling, 100.0mA/div, 200.0us/div, "
                    "1000 points, Sample mode", 1000, "Y", "s", xincr, -200e-6, 0, yunit,
                    0.1 / 6400, -3 * 6400, 0.0)
    return format_wfmoutpre(p, header=header)


def tek_connect(header: bool = True) -> list:
    return [("*IDN?", TEK_IDN), (f"HEADer {'ON' if header else 'OFF'};:VERBose ON", None),
            ("*CLS", None)]


TEK_CONFIGURE_WRITES = [
    "ACQuire:STATE STOP", "ACQuire:MODe SAMple", "ACQuire:STOPAfter SEQuence", "SELect:CH1 ON",
    "CH1:COUPling DC", 'CH1:YUNits "A"', "CH1:SCAle 0.1", "CH1:POSition -3", "CH1:OFFSet 0",
    "HORizontal:DELay:MODe OFF", "HORizontal:RECOrdlength 1000", "HORizontal:SCAle 0.0002",
    "HORizontal:POSition 10", "TRIGger:A:TYPe EDGe", "TRIGger:A:EDGE:SOUrce CH1",
    "TRIGger:A:EDGE:COUPling DC", "TRIGger:A:EDGE:SLOpe RISe", "TRIGger:A:LEVel:CH1 0.35",
    "TRIGger:A:MODe NORMal",
]


def tek_verify(header: bool = True, record_length: str = "1000") -> list:
    replies = [
        ("HORizontal:SAMPLERate?", ":HORIZONTAL:SAMPLERATE", "500.0000E+3"),
        ("HORizontal:RECOrdlength?", ":HORIZONTAL:RECORDLENGTH", record_length),
        ("CH1:SCAle?", ":CH1:SCALE", "100.0000E-3"),
        ("CH1:YUNits?", ":CH1:YUNITS", '"A"'),
        ("TRIGger:A:EDGE:SOUrce?", ":TRIGGER:A:EDGE:SOURCE", "CH1"),
        ("TRIGger:A:LEVel:CH1?", ":TRIGGER:A:LEVEL:CH1", "350.0000E-3"),
        ("TRIGger:A:EDGE:SLOpe?", ":TRIGGER:A:EDGE:SLOPE", "RISE"),
        ("TRIGger:A:MODe?", ":TRIGGER:A:MODE", "NORMAL"),
        ("ACQuire:STOPAfter?", ":ACQUIRE:STOPAFTER", "SEQUENCE"),
    ]
    return [(q, f"{h} {v}" if header else v) for q, h, v in replies]


def tek_configure(header: bool = True) -> list:
    return [(w, None) for w in TEK_CONFIGURE_WRITES] + tek_verify(header) + [("*ESR?", "0")]


TEK_ARM = [("ACQuire:STOPAfter SEQuence;:ACQuire:STATE RUN", None),
           ("TRIGger:STATE?", ":TRIGGER:STATE ARMED"), ("TRIGger:STATE?", ":TRIGGER:STATE READY")]
TEK_WAIT = [("ACQuire:STATE?", ":ACQUIRE:STATE 1"), ("ACQuire:STATE?", ":ACQUIRE:STATE 0")]
TEK_DATA = "DATa:SOUrce CH1;:DATa:ENCdg SRIbinary;:DATa:WIDth 2;:DATa:STARt 1;:DATa:STOP 1000"


TEK_FETCH = TEK_DATA + ";:WFMOutpre?;:ACQuire:NUMACq?;:CURVe?;*ESR?"


def tek_fetch(header: bool = True, codes: np.ndarray = CODES, byte_order: str = "LSB", *,
              preamble: str | None = None, numacq: int = 1, esr: str = "0",
              cut: int | None = None, after: bytes | None = None) -> list:
    """The one compound query of a fetch and its reply: <preamble>;<NUMACQ>;<block>;<ESR>.

    ``cut`` keeps that many data bytes (a truncated block); ``after`` replaces what
    follows the data (a block longer than announced)."""
    pre = preamble if preamble is not None else tek_preamble(header, byte_order=byte_order)
    count = f":ACQUIRE:NUMACQ {numacq}" if header else str(numacq)
    blk = block(codes, b":CURVE " if header else b"", "<" if byte_order == "LSB" else ">")[:-1]
    if cut is not None:
        blk = blk[:len(blk) - codes.nbytes + cut]
    tail = after if after is not None else f";{esr}\n".encode()
    return [(TEK_FETCH, f"{pre};{count};".encode("latin-1") + blk + (b"" if cut is not None else tail))]


def tek(pairs: list, **kw) -> tuple[TekDPO, ReplayTransport]:
    transport = ReplayTransport(pairs)
    scope = TekDPO(model=load_model("tek_dpo3000"), sleep=lambda s: None, **kw)
    scope.attach(transport)
    return scope, transport


@pytest.mark.parametrize("header", [True, False])
def test_tek_single_capture_uses_every_pair(header):
    pairs = tek_connect(header) + tek_configure(header) + TEK_ARM + TEK_WAIT + tek_fetch(header)
    if not header:  # bare replies to the polls too
        pairs = [(q, r.split(" ", 1)[1] if isinstance(r, str) and r.startswith(":") else r)
                 for q, r in pairs]
    scope, t = tek(pairs, headers=header)
    assert isinstance(scope, Scope)
    with t:
        scope.configure(SETTINGS)
        scope.arm()
        scope.wait(timeout_s=1.0)
        record = scope.fetch()
    assert record.codes.dtype == np.int16 and record.n_samples == 1000
    assert np.array_equal(record.codes, CODES)
    assert (record.sample_interval_s, record.t_first_s, record.unit, record.source) == (2e-6, -200e-6, "A", "CH1")
    values = record.values()
    assert values[0] == pytest.approx((-125 / 25 + 3) * 0.1)  # (code8/25 - position) x scale
    assert record.code_min == -32768 and record.code_max == 32512
    assert record.preamble.startswith(":WFMOUTPRE:" if header else "2;16;BIN")


def test_a_preamble_that_says_msb_first_is_honoured():
    # Firmware that ignores SRIbinary and sends MSB first says so in BYT_Or: the codes are read that way.
    pairs = tek_connect() + tek_configure() + TEK_ARM + TEK_WAIT + tek_fetch(byte_order="MSB")
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        scope.arm()
        scope.wait(timeout_s=1.0)
        record = scope.fetch()
    assert np.array_equal(record.codes, CODES)


def test_settings_outside_the_model_fail_before_anything_is_sent():
    scope, t = tek(tek_connect())
    with t:
        with pytest.raises(UsageError, match="1000, 10000, 100000"):
            scope.configure(ScopeSettings(record_length=20_000))
        with pytest.raises(UsageError, match="cannot sample every 3e-06 s") as info:
            scope.configure(ScopeSettings(record_length=10_000, sample_interval_s=3e-6))
        assert "nearest offered intervals: " in info.value.hint and "2e-06 s" in info.value.hint
        with pytest.raises(UsageError, match="CH1 ... CH4"):
            scope.configure(ScopeSettings(channel="CH6"))
        with pytest.raises(UsageError, match="not configured"):
            scope.fetch()


def test_a_reply_carrying_another_header_is_a_protocol_error_then_replies_resync():
    verify = tek_verify()
    verify[1] = ("HORizontal:RECOrdlength?", ":HORIZONTAL:SAMPLERATE 500.0000E+3")  # stale
    pairs = (tek_connect() + [(w, None) for w in TEK_CONFIGURE_WRITES] + verify[:2]
             + [("*IDN?", None), (None, ":CH1:SCALE 100.0000E-3"), (None, TEK_IDN)]  # resync
             + tek_configure())
    scope, t = tek(pairs)
    with t:
        with pytest.raises(ScopeProtocolError, match="another query"):
            scope.configure(SETTINGS)
        assert scope.settings is None
        scope.configure(SETTINGS)  # resynchronised first, then the full protocol again


def test_wait_gives_trigger_timeout_within_its_deadline_and_disarms():
    clock = itertools.count(0.0, 0.5).__next__  # each reading: +0.5 s
    pairs = (tek_connect() + tek_configure() + [("ACQuire:STATE?", ":ACQUIRE:STATE 1"),
                                                ("ACQuire:STATE STOP", None)]
             + tek_verify())
    transport = ReplayTransport(pairs)
    scope = TekDPO(model=load_model("tek_dpo3000"), sleep=lambda s: None, clock=clock)
    scope.attach(transport)
    with transport:
        scope.configure(SETTINGS)
        with pytest.raises(TriggerTimeout, match="no trigger within 1 s") as info:
            scope.wait(timeout_s=1.0)
    assert info.value.hint and info.value.code == "no-trigger"


def test_wait_notices_a_scope_reset_instead_of_blaming_the_trigger():
    clock = itertools.count(0.0, 0.5).__next__
    verify = tek_verify(record_length="10000")
    pairs = (tek_connect() + tek_configure() + [("ACQuire:STATE?", ":ACQUIRE:STATE 1"),
                                                ("ACQuire:STATE STOP", None)] + verify)
    transport = ReplayTransport(pairs)
    scope = TekDPO(model=load_model("tek_dpo3000"), sleep=lambda s: None, clock=clock)
    scope.attach(transport)
    with transport:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeInstrumentError, match="record length is 10000") as info:
            scope.wait(timeout_s=1.0)
    assert info.value.code == "settings-changed"


def test_a_damaged_block_is_fetched_once_more_when_the_acquisition_is_unchanged():
    resync = [("*IDN?", None), (None, TEK_IDN)]
    pairs = tek_connect() + tek_configure() + tek_fetch(cut=700) + resync + tek_fetch()
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        assert np.array_equal(scope.fetch().codes, CODES)


def test_the_record_is_not_fetched_again_after_a_new_acquisition():
    # NUMACq? travels in the same reply as the block: the second reply shows another capture.
    resync = [("*IDN?", None), (None, TEK_IDN)]
    pairs = tek_connect() + tek_configure() + tek_fetch(cut=700) + resync + tek_fetch(numacq=2)
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeTransferError, match="acquired again") as info:
            scope.fetch()
    assert info.value.code == "record-lost"


def test_a_block_longer_than_announced_is_noticed_by_what_follows_it():
    resync = [("*IDN?", None), (None, TEK_IDN)]
    long_block = tek_fetch(after=b"\x0b\x00\x0b\x00garbage;0\n")
    pairs = tek_connect() + tek_configure() + long_block + resync + long_block + resync
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeTransferError, match="damaged twice.*longer than announced"):
            scope.fetch()


def test_a_reply_shaped_for_another_query_is_a_protocol_error():
    pairs = tek_connect() + tek_configure() + [(TEK_FETCH, b":ACQUIRE:STATE 0;#10\n")]
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeProtocolError, match="another query"):
            scope.fetch()


def test_errors_in_the_queue_after_configure_are_reported_with_their_code():
    pairs = (tek_connect() + [(w, None) for w in TEK_CONFIGURE_WRITES] + tek_verify()
             + [("*ESR?", "16"), ("ALLEv?", ':ALLEV 221,"Settings conflict; HOR:SCA 2E-4"')])
    scope, t = tek(pairs)
    with t:
        with pytest.raises(ScopeInstrumentError, match="221 Settings conflict") as info:
            scope.configure(SETTINGS)
    assert info.value.code == 221


def test_a_power_on_bit_means_the_settings_are_gone():
    pairs = tek_connect() + tek_configure() + tek_fetch(esr="128")
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeInstrumentError, match="power-on"):
            scope.fetch()


def test_a_preamble_that_disagrees_with_the_settings_is_refused():
    # Refused from the text ahead of the block, before its data are read.
    fetch = tek_fetch(preamble=tek_preamble(xincr=4e-9, yunit="V"), cut=0)
    pairs = tek_connect() + tek_configure() + fetch
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ScopeInstrumentError, match="sample interval 4e-09 s.*units 'V'"):
            scope.fetch()


def test_clipping_raises_unless_allowed():
    clipped = CODES.copy()
    clipped[:100] = 127 << 8
    pairs = tek_connect() + tek_configure() + tek_fetch(codes=clipped) + tek_fetch(codes=clipped)
    scope, t = tek(pairs)
    with t:
        scope.configure(SETTINGS)
        with pytest.raises(ClippedWaveform, match="10.00%"):
            scope.fetch()
        record = scope.fetch(max_clipped_fraction=0.2)
    assert record.clipped and record.clipped_fraction == pytest.approx(0.1)


def test_open_scope_picks_the_driver_from_idn_and_refuses_unknown_instruments():
    t = ReplayTransport(tek_connect())
    with t:
        scope = open_scope("replay", transport=t)
    assert type(scope) is TekDPO and scope.model.name == "tek_dpo3000"
    with pytest.raises(ScopeProtocolError, match="no charz driver for RIGOL"):
        open_scope("replay", transport=ReplayTransport(
            [("*IDN?", "RIGOL TECHNOLOGIES,DS1054Z,DS1ZA1,00.04.04")]))
    keysight = ReplayTransport([("*IDN?", "KEYSIGHT TECHNOLOGIES,DSOX3024T,MY1,07.50")])
    with pytest.raises(ScopeProtocolError, match="does not drive") as info:
        TekDPO(sleep=lambda s: None).attach(keysight)
    assert info.value.code == "wrong-instrument"


def test_tek_mso_sets_record_length_and_rate_in_manual_mode():
    writes = TEK_MSO_CONFIGURE_WRITES
    verify = [
        ("HORizontal:MODe:SAMPLERate?", "500.0000E+3"), ("HORizontal:MODe:RECOrdlength?", "1000"),
        ("CH1:SCAle?", "100.0000E-3"), ("CH1:PROBEFunc:EXTUnits:STATE?", "1"),
        ("CH1:PROBEFunc:EXTUnits?", '"A"'), ("TRIGger:A:EDGE:SOUrce?", "CH1"),
        ("TRIGger:A:LEVel:CH1?", "350.0000E-3"), ("TRIGger:A:EDGE:SLOpe?", "RISE"),
        ("TRIGger:A:MODe?", "NORMAL"), ("ACQuire:STOPAfter?", "SEQUENCE"), ("*ESR?", "0"),
    ]
    pairs = ([("*IDN?", "TEKTRONIX,MSO54,C012345,CF:91.1CT FV:1.44"),
              ("HEADer OFF;:VERBose ON", None), ("*CLS", None)]
             + [(w, None) for w in writes] + verify)
    t = ReplayTransport(pairs)
    scope = TekMSO(sleep=lambda s: None, headers=False)
    with t:
        scope.attach(t)
        scope.configure(SETTINGS)
    with pytest.raises(UsageError, match="no sample rate"):
        scope.configure(ScopeSettings(record_length=1000, sample_interval_s=3e-6))


KS_IDN = "KEYSIGHT TECHNOLOGIES,DSOX3024T,MY12345678,07.50.2021102830"
KS_WAVEFORM = [":WAVeform:SOURce CHANnel1", ":WAVeform:FORMat WORD", ":WAVeform:BYTeorder LSBFirst",
               ":WAVeform:UNSigned OFF", ":WAVeform:POINts:MODE RAW", ":WAVeform:POINts 1000"]


def test_keysight_single_capture_uses_every_pair():
    writes = [
        ":STOP", ":ACQuire:TYPE NORMal", ":CHANnel1:DISPlay ON", ":CHANnel1:COUPling DC",
        ":CHANnel1:UNITs AMPere", ":CHANnel1:SCALe 0.1", ":CHANnel1:OFFSet 0.3", ":TIMebase:MODE MAIN",
        ":TIMebase:REFerence CENTer", ":TIMebase:SCALe 0.0002", ":TIMebase:POSition 0.0008",
        ":TRIGger:MODE EDGE", ":TRIGger:EDGE:SOURce CHANnel1", ":TRIGger:EDGE:COUPling DC",
        ":TRIGger:EDGE:SLOPe POSitive", ":TRIGger:EDGE:LEVel 0.35", ":TRIGger:SWEep NORMal",
        *KS_WAVEFORM,
    ]
    verify = [
        (":TIMebase:SCALe?", "+2.00000000E-04"), (":CHANnel1:SCALe?", "+1.00000000E-01"),
        (":CHANnel1:UNITs?", "AMP"), (":TRIGger:EDGE:SOURce?", "CHAN1"),
        (":TRIGger:EDGE:LEVel?", "+3.50000000E-01"), (":TRIGger:EDGE:SLOPe?", "POS"),
        (":TRIGger:SWEep?", "NORM"), ("*ESR?", "+0"),
    ]
    pre = KeysightPreamble(1, 0, 1000, 1, 2e-6, -200e-6, 0, 0.1 / 8192, 0.3, 0)
    data = CODES.astype("<i2").tobytes()
    pairs = ([("*IDN?", KS_IDN), ("*CLS", None)] + [(w, None) for w in writes] + verify
             + [(":AER?", "0"), (":SINGle", None), (":AER?", "1")]
             + [(":OPERegister:CONDition?", "+40"), (":OPERegister:CONDition?", "+0")]
             + [(";".join([*KS_WAVEFORM, ":WAVeform:PREamble?", ":CHANnel1:UNITs?",
                           ":OPERegister:CONDition?", ":WAVeform:DATA?", "*ESR?"]),
                 f"{format_keysight_preamble(pre)};AMP;+0;".encode()
                 + b"#8" + f"{len(data):08d}".encode() + data + b";+0\n")])
    t = ReplayTransport(pairs)
    scope = KeysightInfiniiVision(sleep=lambda s: None)
    with t:
        scope.attach(t)
        scope.configure(SETTINGS)
        scope.arm()
        scope.wait(1.0)
        record = scope.fetch()
    assert np.array_equal(record.codes, CODES)
    assert record.values()[0] == pytest.approx(-125 * 0.1 / 32 + 0.3)
    assert record.description.startswith("CH1, DC coupling")


def test_keysight_error_queue_is_drained_until_no_error():
    pairs = [("*IDN?", KS_IDN), ("*CLS", None), ("*ESR?", "+32"), (":SYSTem:ERRor?", '-113,"Undefined header"'),
             (":SYSTem:ERRor?", '-222,"Data out of range"'), (":SYSTem:ERRor?", '+0,"No error"')]
    t = ReplayTransport(pairs)
    scope = KeysightInfiniiVision(sleep=lambda s: None)
    with t:
        scope.attach(t)
        assert [e.code for e in scope.errors()] == [-113, -222]


def test_a_stale_idn_reply_is_discarded_not_parsed_as_the_next_answer():
    # issue 25: the late answer to a reconnect's *IDN? was read as the next query's number
    # ("number is not a number: 'TEKTRONIX,...'"); it is discarded and the real reply read
    pairs = tek_connect() + tek_configure() + [
        ("ACQuire:STOPAfter SEQuence;:ACQuire:STATE RUN", None),
        ("TRIGger:STATE?", TEK_IDN), (None, ":TRIGGER:STATE READY")]
    scope, t = tek(pairs)
    notes: list[str] = []
    scope.retry_notes = notes
    with t:
        scope.configure(SETTINGS)
        scope.arm()
    assert len(notes) == 1 and "stale *IDN? reply" in notes[0]

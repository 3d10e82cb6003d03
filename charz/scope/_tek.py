"""Tektronix drivers: DPO/MSO/MDO 2000/3000/4000 and the 4/5/6 Series MSO.

The SCPI surface is declared once, as descriptors, in the long forms of the
programmer manuals (the manuals advise full spelling for robust code).  Replies are
requested with headers (``HEADer ON; VERBose ON``) so each one can be matched to its
query; the preamble is parsed by key then, and by anchoring on its quoted fields
when headers are off.  A fetch is one compound query (``DATa`` set-up, ``WFMOutpre?``,
``ACQuire:NUMACq?``, ``CURVe?``, ``*ESR?``): one round trip per capture.

Example
-------
>>> TekDPO.record_length.query()
'HORizontal:RECOrdlength?'
>>> TekDPO.trigger_level.command(0.25, 1)
'TRIGger:A:LEVel:CH1 0.25'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from charz.scope._acquire import Expectation, Preamble, settings_changed
from charz.scope._base import ScopeDriver
from charz.scope._limits import (
    check_channel,
    check_vertical,
    derived_horizontal_scale_s,
    manual_sample_rate_hz,
)
from charz.scope._settings import ScopeSettings
from charz.scope._surface import BOOL, NR1, NR3, QSTRING, Codec, Control, ReadBack, enum_codec
from charz.scope._wire import (
    ScopeEvent,
    TekPreamble,
    block_dtype,
    header_matches,
    parse_nr1,
    parse_tek_events,
    parse_wfmoutpre,
    raise_reply_mismatch,
    split_compound,
)

__all__ = ["TekDPO", "TekMSO"]

_CHANNEL = enum_codec({f"CH{i}": f"CH{i}" for i in range(1, 9)})
_COUPLING = enum_codec({"DC": "DC", "AC": "AC", "GND": "GND"})
_SLOPE = enum_codec({"rise": "RISe", "fall": "FALL", "either": "EITHer"})
_TRIGGER_MODE = enum_codec({"normal": "NORMal", "auto": "AUTO"})
_TRIGGER_TYPE = enum_codec({"edge": "EDGe"})
_TRIGGER_STATE = enum_codec({"armed": "ARMED", "auto": "AUTO", "ready": "READY",
                             "save": "SAVE", "trigger": "TRIGGER"})
_STOP_AFTER = enum_codec({"sequence": "SEQuence", "runstop": "RUNSTop"})
_ACQ_MODE = enum_codec({"sample": "SAMple", "peakdetect": "PEAKdetect", "hires": "HIRes",
                        "average": "AVErage", "envelope": "ENVelope"})
_ENCODING = enum_codec({"ribinary": "RIBinary", "rpbinary": "RPBinary", "sribinary": "SRIbinary",
                        "srpbinary": "SRPbinary", "ascii": "ASCIi", "fastest": "FAStest"})
_HORIZONTAL_MODE = enum_codec({"auto": "AUTO", "manual": "MANual", "constant": "CONStant"})
# ACQuire:STATE takes RUN/STOP and answers 0/1.
_RUN_STATE: Codec[bool] = Codec(lambda s: parse_nr1(s, "ACQuire:STATE") != 0,
                                lambda run: "RUN" if run else "STOP")


def _probe(s: ScopeSettings) -> int:
    return s.channel_number


def _trigger(s: ScopeSettings) -> int:
    return int(s.trigger_channel[2:])


def _units_read_back(read: Callable[[Any, int | None], str] | None = None) -> ReadBack:
    # The scope may answer "a" or pad the string; what it means is compared.
    return ReadBack("{channel} units", lambda s: s.probe_units, x=_probe, show=repr, key="units",
                    normalise=lambda units: units.strip().upper(), read=read)


_RATE_READ_BACK = ReadBack("sample rate", lambda s: 1.0 / s.sample_interval_s, rel_tol=1e-4,
                           show=lambda rate: f"{rate:.6g} S/s")
_LENGTH_READ_BACK = ReadBack("record length", lambda s: s.record_length)

_WFID_SOURCE = re.compile(r"^\s*(ch|CH|Ch)(\d)")


class TekDPO(ScopeDriver):
    """Tektronix DPO/MSO 2000, 3000, 4000 and MDO 3000/4000 (``tek_dpo`` family)."""

    family = "tek_dpo"
    vendor = "Tektronix"

    # Settings with a ``read_back`` are checked after configure in the order declared here
    # (the replay tests pin that order on the wire).
    header = Control("HEADer", BOOL)
    verbose = Control("VERBose", BOOL)
    sample_rate = Control("HORizontal:SAMPLERate", NR3, query_only=True, read_back=_RATE_READ_BACK)
    record_length = Control("HORizontal:RECOrdlength", NR1, read_back=_LENGTH_READ_BACK)
    horizontal_scale = Control("HORizontal:SCAle", NR3)
    horizontal_position = Control("HORizontal:POSition", NR3)
    delay_mode = Control("HORizontal:DELay:MODe", BOOL)
    select = Control("SELect:CH<x>", BOOL)
    ch_scale = Control("CH<x>:SCAle", NR3, read_back=ReadBack("{channel} scale", lambda s: s.vertical_scale,
                                                               x=_probe, rel_tol=0.01))
    ch_position = Control("CH<x>:POSition", NR3)
    ch_offset = Control("CH<x>:OFFSet", NR3)
    ch_coupling = Control("CH<x>:COUPling", _COUPLING)
    ch_yunits = Control("CH<x>:YUNits", QSTRING, read_back=_units_read_back())
    ch_probe_units = Control("CH<x>:PRObe:UNIts", QSTRING, query_only=True)
    ch_probe_gain = Control("CH<x>:PRObe:GAIN", NR3)
    trigger_type = Control("TRIGger:A:TYPe", _TRIGGER_TYPE)
    trigger_source = Control("TRIGger:A:EDGE:SOUrce", _CHANNEL,
                             read_back=ReadBack("trigger source", lambda s: s.trigger_channel))
    trigger_coupling = Control("TRIGger:A:EDGE:COUPling", _COUPLING)
    # Scopes round the level to their trigger DAC; a fiftieth of a division is typical.
    trigger_level = Control("TRIGger:A:LEVel:CH<x>", NR3,
                            read_back=ReadBack("trigger level", lambda s: s.trigger_level, x=_trigger,
                                               abs_tol=lambda s: 0.02 * s.vertical_scale))
    trigger_slope = Control("TRIGger:A:EDGE:SLOpe", _SLOPE,
                            read_back=ReadBack("trigger slope", lambda s: s.trigger_slope))
    trigger_mode = Control("TRIGger:A:MODe", _TRIGGER_MODE,
                           read_back=ReadBack("trigger mode", lambda s: s.trigger_mode))
    trigger_state = Control("TRIGger:STATE", _TRIGGER_STATE, query_only=True)
    acq_mode = Control("ACQuire:MODe", _ACQ_MODE)
    acq_stop_after = Control("ACQuire:STOPAfter", _STOP_AFTER,
                             read_back=ReadBack("stop after", lambda s: "sequence"))
    acq_state = Control("ACQuire:STATE", _RUN_STATE)
    acq_count = Control("ACQuire:NUMACq", NR1, query_only=True)
    data_source = Control("DATa:SOUrce", _CHANNEL)
    data_encoding = Control("DATa:ENCdg", _ENCODING)
    data_width = Control("DATa:WIDth", NR1)
    data_start = Control("DATa:STARt", NR1)
    data_stop = Control("DATa:STOP", NR1)

    # ------------------------------------------------------------ set-up

    def _do_prepare(self) -> None:
        # Headers let every reply be matched to its query (a stale answer cannot pass
        # for a value); *CLS starts the event queue empty so errors are ours.
        self._write(f"{self.header.command(self.headers)};:{self.verbose.command(True)}")
        self._write("*CLS")

    def _validate(self, settings: ScopeSettings) -> None:
        check_channel(self.model, settings.channel)
        check_channel(self.model, settings.trigger_channel)
        check_vertical(self.model, settings)
        self._horizontal(settings)

    def _horizontal(self, settings: ScopeSettings) -> float:
        return derived_horizontal_scale_s(self.model, settings)

    def _channel_commands(self, s: ScopeSettings) -> list[str]:
        n = s.channel_number
        return [
            self.select.command(True, n),
            self.ch_coupling.command(s.coupling, n),
            self.ch_yunits.command(s.probe_units, n),
            self.ch_scale.command(s.vertical_scale, n),
            self.ch_position.command(s.vertical_position_div, n),
            self.ch_offset.command(s.vertical_offset, n),
        ]

    def _horizontal_commands(self, s: ScopeSettings) -> list[str]:
        return [
            self.delay_mode.command(False),
            self.record_length.command(s.record_length),
            self.horizontal_scale.command(self._horizontal(s)),
            self.horizontal_position.command(s.pretrigger_fraction * 100.0),
        ]

    def _do_configure(self, s: ScopeSettings) -> None:
        t = int(s.trigger_channel[2:])
        commands = [
            self.acq_state.command(False),
            self.acq_mode.command("sample"),
            self.acq_stop_after.command("sequence"),
            *self._channel_commands(s),
            *self._horizontal_commands(s),
            self.trigger_type.command("edge"),
            self.trigger_source.command(s.trigger_channel),
            self.trigger_coupling.command("DC"),
            self.trigger_slope.command(s.trigger_slope),
            self.trigger_level.command(s.trigger_level, t),
            self.trigger_mode.command(s.trigger_mode),
        ]
        for command in commands:
            self._write(command)

    # ------------------------------------------------------------ acquisition

    def _do_arm(self) -> None:
        self._write(f"{self.acq_stop_after.command('sequence')};:{self.acq_state.command(True)}")

    def _do_is_armed(self, remaining_s: float) -> bool:
        # ARMED means the pre-trigger part is still filling; READY waits for the edge.
        return self.trigger_state.get(timeout_s=self._poll_timeout(remaining_s)) != "armed"

    def _do_is_done(self, remaining_s: float) -> bool:
        return not self.acq_state.get(timeout_s=self._poll_timeout(remaining_s))

    def _do_stop(self) -> None:
        self._write(self.acq_state.command(False))

    def _do_force(self) -> None:
        self._write("TRIGger FORCe")

    # ------------------------------------------------------------ transfer

    def _data_commands(self, s: ScopeSettings) -> str:
        # DATa:STOP does not follow record-length changes, so it is set on every fetch.
        # SRIbinary is RIBinary least significant byte first (the manual: "useful when
        # transferring data to PCs"): the block is then used in place, not byte-swapped.
        return ";:".join((
            self.data_source.command(s.channel),
            self.data_encoding.command("sribinary"),
            self.data_width.command(s.width_bytes),
            self.data_start.command(1),
            self.data_stop.command(s.record_length),
        ))

    def _fetch_message(self, s: ScopeSettings) -> str:
        # One program message per capture (the manuals allow compound queries; WAVFrm? is
        # itself WFMOutpre?;CURVe?): the reply is <preamble>;<NUMACQ>;<block>;<ESR>.
        # NUMACq? sits in the same reply as the block, so a re-fetch can tell whether the
        # scope acquired again in between.
        return (f"{self._data_commands(s)};:WFMOutpre?;:{self.acq_count.query()};:CURVe?;*ESR?")

    def _preamble(self, text: str, s: ScopeSettings) -> Preamble:
        p = parse_wfmoutpre(text)
        if p.encdg != "BIN" or p.bn_fmt not in ("RI", "RP") or p.pt_fmt != "Y":
            raise settings_changed(self.resource, [
                f"the preamble announces {p.encdg}/{p.bn_fmt}/{p.pt_fmt} data "
                "(charz asked for SRIbinary sample-mode data)"])
        return Preamble(
            n_points=p.nr_pt, width_bytes=p.byt_nr, signed=p.bn_fmt == "RI",
            big_endian=p.byt_or == "MSB", y_mult=p.ymult, y_offset_codes=p.yoff,
            y_zero=p.yzero, unit=p.yunit, sample_interval_s=p.xincr,
            t_first_s=p.xzero - p.pt_off * p.xincr, source=_source_of(p, s.channel),
            description=p.wfid, text=text,
        )

    def _do_fetch(self, accept, timeout_s: float) -> tuple[np.ndarray, str]:  # noqa: ANN001
        s = self._require_configured()

        def expect(before: str) -> tuple[np.dtype, int, str]:
            units, block_head = split_compound(before)
            if len(units) < 2 or (block_head and not header_matches(block_head, "CURVe")):
                raise_reply_mismatch(before, "WFMOutpre?;:ACQuire:NUMACq?;:CURVe?")
            pre = self._preamble(";".join(units[:-1]), s)
            accept(pre, self.acq_count.parse_reply(units[-1]))
            return (block_dtype(pre.signed, pre.width_bytes, pre.big_endian),
                    pre.n_points * pre.width_bytes, "the preamble promised")

        reply = self._require_connected("a transfer").query_compound(
            self._fetch_message(s), expect=expect, timeout_s=timeout_s)
        return reply.data, reply.after

    def _do_read_events(self, after_esr: bool = False) -> tuple[ScopeEvent, ...]:
        if not after_esr:
            self._read_esr()  # Tek: events reach ALLEv? only after *ESR? has been read
        return parse_tek_events(self._query("ALLEv?"))

    def _expectation(self) -> Expectation:
        s = self._require_configured()
        codes_per_div = self.model.codes_per_div * (1 << (8 * (s.width_bytes - 1)))
        return Expectation(
            n_points=s.record_length, x_incr_s=s.sample_interval_s,
            y_mult=s.vertical_scale / codes_per_div,
            y_mult_rel_tol=1e-3 if self.family == "tek_dpo" else 0.35,
            y_unit=s.probe_units, width_bytes=s.width_bytes, source=s.channel,
        )


def _source_of(p: TekPreamble, fallback: str) -> str:
    m = _WFID_SOURCE.match(p.wfid)
    return f"CH{m.group(2)}" if m else fallback


class TekMSO(TekDPO):
    """Tektronix 4/5/6 Series MSO (``tek_mso`` family).

    Differences from the 2k/3k/4k (scope.md §1): record length and sample rate are set
    directly in ``HORizontal:MODe MANual``; channels are shown with
    ``DISplay:GLObal:CH<x>:STATE``; units come from ``CH<x>:PROBEFunc:EXTUnits``; YOFf is
    always 0 and YZEro carries position and offset; ENCdg has no FAStest.
    """

    family = "tek_mso"

    display = Control("DISplay:GLObal:CH<x>:STATE", BOOL)
    ext_units_state = Control("CH<x>:PROBEFunc:EXTUnits:STATE", BOOL)
    # Units are external units only while EXTUnits:STATE is on; off, the channel reads volts.
    ext_units = Control("CH<x>:PROBEFunc:EXTUnits", QSTRING, read_back=_units_read_back(
        lambda scope, n: scope.ext_units.get(n) if scope.ext_units_state.get(n) else "V"))
    horizontal_mode = Control("HORizontal:MODe", _HORIZONTAL_MODE)
    manual_configure = Control("HORizontal:MODe:MANual:CONFIGure",
                               enum_codec({"record_length": "RECORDLength",
                                           "horizontal_scale": "HORIZontalscale"}))
    # These take the place of the 2k/3k/4k's read-backs of rate and length (same keys).
    mode_sample_rate = Control("HORizontal:MODe:SAMPLERate", NR3, read_back=_RATE_READ_BACK)
    mode_record_length = Control("HORizontal:MODe:RECOrdlength", NR1, read_back=_LENGTH_READ_BACK)

    def _horizontal(self, settings: ScopeSettings) -> float:
        return manual_sample_rate_hz(self.model, settings)

    def _channel_commands(self, s: ScopeSettings) -> list[str]:
        n = s.channel_number
        return [
            self.display.command(True, n),
            self.ch_coupling.command(s.coupling, n),
            self.ext_units_state.command(s.probe_units == "A", n),
            self.ext_units.command(s.probe_units, n),
            self.ch_scale.command(s.vertical_scale, n),
            self.ch_position.command(s.vertical_position_div, n),
            self.ch_offset.command(s.vertical_offset, n),
        ]

    def _horizontal_commands(self, s: ScopeSettings) -> list[str]:
        return [
            self.delay_mode.command(False),
            self.horizontal_mode.command("manual"),
            self.manual_configure.command("record_length"),
            self.mode_sample_rate.command(self._horizontal(s)),
            self.mode_record_length.command(s.record_length),
            self.horizontal_position.command(s.pretrigger_fraction * 100.0),
        ]

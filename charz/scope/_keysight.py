"""Keysight (Agilent) InfiniiVision driver: 2000/3000/4000 X-Series.

Single sequence with ``:SINGle`` (``:DIGitize`` blocks the instrument and cannot be
bounded by a deadline), armed when ``:AER?`` latches, done when the Run bit (bit 3,
value 8) of ``:OPERegister:CONDition?`` clears.  Records come as signed WORDs, least
significant byte first (the host's order, so used as they arrive): the 8-bit ADC value
left-aligned in 16 bits.  A fetch is one compound query (waveform set-up, preamble,
units, Run bit, ``:WAVeform:DATA?``, ``*ESR?``): one round trip per capture.

Example
-------
>>> KeysightInfiniiVision.trigger_slope.command("rise")
':TRIGger:EDGE:SLOPe POSitive'
"""

from __future__ import annotations

import numpy as np

from charz.scope._acquire import Expectation, Preamble, settings_changed
from charz.scope._base import ScopeDriver
from charz.scope._limits import check_channel, check_vertical, keysight_memory_depth
from charz.scope._settings import ScopeSettings
from charz.scope._surface import BOOL, NR1, NR3, Control, ReadBack, enum_codec
from charz.scope._wire import (
    ScopeEvent,
    block_dtype,
    parse_keysight_error,
    parse_keysight_preamble,
    parse_nr1,
    raise_reply_mismatch,
    split_compound,
)

__all__ = ["KeysightInfiniiVision"]

_CHANNEL = enum_codec({f"CH{i}": f"CHANnel{i}" for i in range(1, 5)})
_COUPLING = enum_codec({"DC": "DC", "AC": "AC"})
_UNITS = enum_codec({"A": "AMPere", "V": "VOLT"})
_SLOPE = enum_codec({"rise": "POSitive", "fall": "NEGative", "either": "EITHer"})
_SWEEP = enum_codec({"normal": "NORMal", "auto": "AUTO"})
_FORMAT = enum_codec({"byte": "BYTE", "word": "WORD", "ascii": "ASCii"})


def _probe(s: ScopeSettings) -> int:
    return s.channel_number


RUN_BIT = 0x08  # :OPERegister:CONDition? bit 3, "Run"
MAX_ERRORS = 32


class KeysightInfiniiVision(ScopeDriver):
    """Keysight / Agilent InfiniiVision X-Series (``keysight_infiniivision`` family)."""

    family = "keysight_infiniivision"
    vendor = "Keysight"

    # Settings with a ``read_back`` are checked after configure in the order declared here
    # (the replay tests pin that order on the wire).
    timebase_mode = Control(":TIMebase:MODE", enum_codec({"main": "MAIN"}))
    timebase_reference = Control(":TIMebase:REFerence",
                                 enum_codec({"left": "LEFT", "center": "CENTer", "right": "RIGHt"}))
    timebase_scale = Control(":TIMebase:SCALe", NR3, read_back=ReadBack(
        "timebase", lambda s: s.window_s / 10, rel_tol=1e-4, show=lambda scale: f"{scale:.6g} s/div"))
    timebase_position = Control(":TIMebase:POSition", NR3)
    channel_display = Control(":CHANnel<x>:DISPlay", BOOL)
    channel_scale = Control(":CHANnel<x>:SCALe", NR3, read_back=ReadBack(
        "{channel} scale", lambda s: s.vertical_scale, x=_probe, rel_tol=0.01))
    channel_offset = Control(":CHANnel<x>:OFFSet", NR3)
    channel_coupling = Control(":CHANnel<x>:COUPling", _COUPLING)
    channel_units = Control(":CHANnel<x>:UNITs", _UNITS, read_back=ReadBack(
        "{channel} units", lambda s: s.probe_units, x=_probe))
    acquire_type = Control(":ACQuire:TYPE", enum_codec({"normal": "NORMal", "peak": "PEAK",
                                                        "average": "AVERage",
                                                        "hresolution": "HRESolution"}))
    trigger_mode = Control(":TRIGger:MODE", enum_codec({"edge": "EDGE"}))
    trigger_source = Control(":TRIGger:EDGE:SOURce", _CHANNEL,
                             read_back=ReadBack("trigger source", lambda s: s.trigger_channel))
    trigger_coupling = Control(":TRIGger:EDGE:COUPling", _COUPLING)
    # Scopes round the level to their trigger DAC; a fiftieth of a division is typical.
    trigger_level = Control(":TRIGger:EDGE:LEVel", NR3, read_back=ReadBack(
        "trigger level", lambda s: s.trigger_level, abs_tol=lambda s: 0.02 * s.vertical_scale))
    trigger_slope = Control(":TRIGger:EDGE:SLOPe", _SLOPE,
                            read_back=ReadBack("trigger slope", lambda s: s.trigger_slope))
    trigger_sweep = Control(":TRIGger:SWEep", _SWEEP,
                            read_back=ReadBack("trigger sweep", lambda s: s.trigger_mode))
    arm_event = Control(":AER", NR1, query_only=True)
    operation_condition = Control(":OPERegister:CONDition", NR1, query_only=True)
    waveform_source = Control(":WAVeform:SOURce", _CHANNEL)
    waveform_format = Control(":WAVeform:FORMat", _FORMAT)
    waveform_byteorder = Control(":WAVeform:BYTeorder", enum_codec({"msb": "MSBFirst",
                                                                    "lsb": "LSBFirst"}))
    waveform_unsigned = Control(":WAVeform:UNSigned", BOOL)
    waveform_points_mode = Control(":WAVeform:POINts:MODE",
                                   enum_codec({"normal": "NORMal", "maximum": "MAXimum", "raw": "RAW"}))
    waveform_points = Control(":WAVeform:POINts", NR1)

    # ------------------------------------------------------------ set-up

    def _do_prepare(self) -> None:
        self._write("*CLS")

    def _validate(self, settings: ScopeSettings) -> None:
        check_channel(self.model, settings.channel)
        check_channel(self.model, settings.trigger_channel)
        check_vertical(self.model, settings)
        keysight_memory_depth(self.model, settings)

    def _do_configure(self, s: ScopeSettings) -> None:
        n = s.channel_number
        window_s = s.window_s
        commands = [
            ":STOP",
            self.acquire_type.command("normal"),
            self.channel_display.command(True, n),
            self.channel_coupling.command(s.coupling, n),
            self.channel_units.command(s.probe_units, n),
            self.channel_scale.command(s.vertical_scale, n),
            # InfiniiVision has no separate position: OFFSet is the value at screen centre.
            self.channel_offset.command(s.vertical_offset - s.vertical_position_div * s.vertical_scale, n),
            self.timebase_mode.command("main"),
            self.timebase_reference.command("center"),
            self.timebase_scale.command(window_s / 10.0),
            # POSition is the time from the trigger to the centre reference.
            self.timebase_position.command((0.5 - s.pretrigger_fraction) * window_s),
            self.trigger_mode.command("edge"),
            self.trigger_source.command(s.trigger_channel),
            self.trigger_coupling.command("DC"),
            self.trigger_slope.command(s.trigger_slope),
            self.trigger_level.command(s.trigger_level),
            self.trigger_sweep.command(s.trigger_mode),
            # Transfer settings too: the scope sizes what it keeps by :WAVeform:POINts.
            *self._waveform_commands(s),
        ]
        for command in commands:
            self._write(command)

    # ------------------------------------------------------------ acquisition

    def _do_arm(self) -> None:
        self.arm_event.get()  # reading :AER? clears the latch left by an earlier run
        self._write(":SINGle")

    def _do_is_armed(self, remaining_s: float) -> bool:
        return self.arm_event.get(timeout_s=self._poll_timeout(remaining_s)) == 1

    def _do_is_done(self, remaining_s: float) -> bool:
        cond = self.operation_condition.get(timeout_s=self._poll_timeout(remaining_s))
        return not cond & RUN_BIT

    def _do_stop(self) -> None:
        self._write(":STOP")

    def _do_force(self) -> None:
        self._write(":TRIGger:FORCe")

    # ------------------------------------------------------------ transfer

    def _waveform_commands(self, s: ScopeSettings) -> list[str]:
        return [
            self.waveform_source.command(s.channel),
            self.waveform_format.command("word" if s.width_bytes == 2 else "byte"),
            # LSB first is the host's order: the block is then used in place, not byte-swapped.
            self.waveform_byteorder.command("lsb"),
            self.waveform_unsigned.command(False),
            self.waveform_points_mode.command("raw"),
            self.waveform_points.command(s.record_length),
        ]

    def _fetch_message(self, s: ScopeSettings) -> str:
        # One program message per capture: the reply is <preamble>;<units>;<OPER:COND>;
        # <block>;<ESR> (IEEE 488.2 compound query; the block has no header of its own).
        n = s.channel_number
        return ";".join([*self._waveform_commands(s), ":WAVeform:PREamble?",
                         self.channel_units.query(n), self.operation_condition.query(),
                         ":WAVeform:DATA?", "*ESR?"])

    def _preamble(self, text: str, units: str, s: ScopeSettings) -> Preamble:
        p = parse_keysight_preamble(text)
        if p.format == 4 or p.type != 0:
            raise settings_changed(self.resource, [
                f"the preamble announces format {p.format} / type {p.type} "
                "(charz asked for signed BYTE/WORD normal-mode data)"])
        return Preamble(
            n_points=p.points, width_bytes=2 if p.format == 1 else 1, signed=True,
            big_endian=False, y_mult=p.yincrement, y_offset_codes=float(p.yreference),
            y_zero=p.yorigin, unit=units, sample_interval_s=p.xincrement,
            t_first_s=p.xorigin - p.xreference * p.xincrement, source=s.channel,
            description=(f"{s.channel}, {s.coupling} coupling, {s.vertical_scale:g} {units}/div, "
                         f"{p.points} points, normal mode"),
            text=text,
        )

    def _do_fetch(self, accept, timeout_s: float) -> tuple[np.ndarray, str]:  # noqa: ANN001
        s = self._require_configured()
        n = s.channel_number

        def expect(before: str) -> tuple[np.dtype, int, str]:
            units, block_head = split_compound(before)
            if len(units) != 3 or block_head:
                raise_reply_mismatch(before, ":WAVeform:PREamble?;:CHANnel<n>:UNITs?;"
                                             ":OPERegister:CONDition?;:WAVeform:DATA?")
            pre = self._preamble(units[0], self.channel_units.parse_reply(units[1], n), s)
            cond = self.operation_condition.parse_reply(units[2])
            accept(pre, bool(cond & RUN_BIT))
            return (block_dtype(True, pre.width_bytes, pre.big_endian),
                    pre.n_points * pre.width_bytes, "the preamble promised")

        reply = self._require_connected("a transfer").query_compound(
            self._fetch_message(s), expect=expect, timeout_s=timeout_s)
        return reply.data, reply.after

    def _do_read_events(self, after_esr: bool = False) -> tuple[ScopeEvent, ...]:
        if not after_esr:
            self._read_esr()
        events = []
        for _ in range(MAX_ERRORS):
            event = parse_keysight_error(self._query(":SYSTem:ERRor?"))
            if event.code == 0:
                break
            events.append(event)
        return tuple(events)

    def _parse_esr(self, reply: str) -> int:
        return parse_nr1(reply, "*ESR?")

    def _expectation(self) -> Expectation:
        s = self._require_configured()
        codes_per_div = self.model.codes_per_div * (1 << (8 * (s.width_bytes - 1)))
        return Expectation(
            n_points=s.record_length, x_incr_s=s.sample_interval_s,
            y_mult=s.vertical_scale / codes_per_div, y_mult_rel_tol=0.35,
            y_unit=s.probe_units, width_bytes=s.width_bytes, source=s.channel,
        )

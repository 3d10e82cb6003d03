"""The Tektronix dialect of the mock scope (DPO/MSO/MDO 2k/3k/4k; 4/5/6 Series variant).

Behaviour follows the programmer manuals (MSO/DPO4000, MDO3000 Appendix D, TDS
family "Command Syntax"), summarised in ``research/scope.md``:

* ``HEADer ON`` answers ``:HORIZONTAL:RECORDLENGTH 10000`` (long keys with ``VERBose
  ON``, short ``:HOR:RECO 10000`` with it OFF); ``HEADer OFF`` answers ``10000``.
  Argument keywords are long only with both ON (``ENCDG BINARY`` vs ``BIN``).
* ``*RST`` restores factory settings but keeps HEADer, VERBose and DATa.
* events reach ``EVMsg?`` / ``ALLEv?`` after ``*ESR?`` was read; an unknown header
  queues 113 and sets ESR bit 5.
* ``WFMOutpre?`` has 16 fields (DPO3000) or 22 (MDO, 4/5/6 Series); ``CURVe?`` is an
  IEEE 488.2 definite-length block followed by LF.
* 8-bit data: 25 codes per division, RIBinary zero at screen centre; 16-bit data carry
  the ADC value left-aligned (the 8-bit value in the high byte).  RPBinary adds
  128 / 32768 (the sign bit flipped) and YOFF moves with it.
* 4/5/6 Series: ``HORizontal:MODe MANual`` sets record length and sample rate
  directly; YOFf is always 0 and YZEro carries position and offset; no FAStest.

Example
-------
>>> from charz.scope._models import load_model
>>> from charz.sim._scpi_acquire import Engine
>>> from charz.sim._scpi_demo import PulseTrainSource
>>> tek = TekDialect(load_model("tek_dpo3000"), Engine(PulseTrainSource()))
>>> [r.data for r in tek.run_line("HEADer OFF;:HOR:RECO 100000;RECO?;:hor:samplerate?")]
[b'100000', b'2.5000E+9']
"""

from __future__ import annotations

import math

import numpy as np

from charz.scope import ScopeModel
from charz.sim._scpi_acquire import Engine, FrontEnd, Frame
from charz.sim._scpi_dialect import (
    Command,
    Dialect,
    Reply,
    Wait,
    arg_bool,
    arg_enum,
    arg_int,
    arg_number,
    eng,
    nr3,
)
from charz.sim._scpi_parse import ScpiError, Unit, unquote
from charz.sim._scpi_render import transfer_codes
from charz.sim._scpi_status import Status

__all__ = ["TekDialect"]

_COUPLINGS = {"DC": "DC", "AC": "AC", "GND": "GND"}  # CH<x>:COUPling and the edge triggers

_MEAS_TYPES = {  # MEASUrement:IMMed:TYPe (TDS2000/TPS2000 manual names; short forms are the capitals)
    "FREQUENCY": "FREQuency", "MEAN": "MEAN", "PERIOD": "PERIod", "PHASE": "PHAse", "PK2PK": "PK2pk",
    "CRMS": "CRMs", "MINIMUM": "MINImum", "MAXIMUM": "MAXImum", "RISE": "RISe", "FALL": "FALL",
    "PWIDTH": "PWIdth", "NWIDTH": "NWIdth", "RMS": "RMS",
}

_ENCODINGS = {  # key → (manual mnemonic, ENCDG, BN_FMT, BYT_OR)
    "ASCII": ("ASCIi", "ASC", "RI", "MSB"),
    "FASTEST": ("FAStest", "BIN", "RI", "MSB"),
    "RIBINARY": ("RIBinary", "BIN", "RI", "MSB"),
    "RPBINARY": ("RPBinary", "BIN", "RP", "MSB"),
    "SRIBINARY": ("SRIbinary", "BIN", "RI", "LSB"),
    "SRPBINARY": ("SRPbinary", "BIN", "RP", "LSB"),
}
_ENUM_WORDS = {  # reply keyword → manual mnemonic (for long/short forms)
    "BIN": "BINary", "ASC": "ASCii", "LINEAR": "LINEAr", "TIME": "TIMe", "ANALOG": "ANALOG",
    "SAMPLE": "SAMple", "PEAKDETECT": "PEAKdetect", "HIRES": "HIRes", "AVERAGE": "AVErage",
    "ENVELOPE": "ENVelope", "SEQUENCE": "SEQuence", "RUNSTOP": "RUNSTop", "NORMAL": "NORMal",
    "AUTO": "AUTO", "EDGE": "EDGe", "RISE": "RISe", "FALL": "FALL", "EITHER": "EITHer",
    "DC": "DC", "AC": "AC", "GND": "GND", "MANUAL": "MANual", "RECORDLENGTH": "RECORDLength",
    "HORIZONTALSCALE": "HORIZontalscale", "FULL": "FULl", "MEG": "MEG", "FIFTY": "FIFty",
    **{k: v[0] for k, v in _ENCODINGS.items()},
    "FREQUENCY": "FREQuency", "PERIOD": "PERIod", "PHASE": "PHAse", "PK2PK": "PK2pk", "CRMS": "CRMs",
    "MINIMUM": "MINImum", "MAXIMUM": "MAXImum", "PWIDTH": "PWIdth", "NWIDTH": "NWIdth",
}
# WFMOutpre fields as the manual spells them (long form; the capitals are the short form).
_FIELDS_DPO = ("BYT_Nr", "BIT_Nr", "ENCdg", "BN_Fmt", "BYT_Or", "WFId", "NR_Pt", "PT_Fmt",
               "XUNit", "XINcr", "XZEro", "PT_Off", "YUNit", "YMUlt", "YOFf", "YZEro")
# TDS1000/2000, TPS2000, TBS1000 (WFMPre?): the same keys in another order, as their
# programmer manual prints the HEADer OFF reply and QCoDeS' TPS2012 driver reads it.
_FIELDS_TDS = ("BYT_Nr", "BIT_Nr", "ENCdg", "BN_Fmt", "BYT_Or", "NR_Pt", "WFId", "PT_Fmt",
               "XINcr", "PT_Off", "XZEro", "XUNit", "YMUlt", "YZEro", "YOFf", "YUNit")
_FIELDS_MDO = ("BYT_Nr", "BIT_Nr", "ENCdg", "BN_Fmt", "BYT_Or", "WFId", "NR_Pt", "PT_Fmt",
               "PT_ORder", "XUNit", "XINcr", "XZEro", "PT_Off", "YUNit", "YMUlt", "YOFf", "YZEro",
               "DOMain", "WFMTYPe", "CENTERFREQuency", "SPAN", "REFLEVel")


def _short(mnemonic: str) -> str:
    return "".join(c for c in mnemonic if not c.islower()).upper()


def _snap_sequence(x: float, mantissas: tuple[float, ...], lo: float, hi: float) -> float:
    """The nearest value of a 1-2-4-style sequence within [lo, hi] (log distance)."""
    x = min(max(x, lo), hi)
    best, best_d = lo, math.inf
    decade = math.floor(math.log10(x))
    for d in (decade - 1, decade, decade + 1):
        for m in mantissas:
            v = m * 10.0**d
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                dist = abs(math.log(v / x))
                if dist < best_d - 1e-12:
                    best, best_d = v, dist
    return float(f"{best:.6g}")


def _nearest(x: float, options: tuple[int, ...]) -> int:
    return min(options, key=lambda o: abs(math.log(o / max(x, 1e-30))))


class _Channel:
    def __init__(self, n: int, current_probe: bool):
        self.scale = 0.1
        self.position = 0.0
        self.offset = 0.0
        self.coupling = "DC"
        self.probe_gain = 1.0
        self.probe_units = "A" if current_probe else "V"
        self.yunits = self.probe_units
        self.ext_units_state = current_probe
        self.ext_units = self.probe_units
        self.displayed = n == 1 or current_probe
        self.bandwidth = "FULL"
        self.termination = "MEG"


class _Data:
    def __init__(self) -> None:
        self.source = 1
        self.encoding = "RIBINARY"
        self.width = 1
        self.start = 1
        self.stop = 10_000


class _Settings:
    """Everything *RST restores (HEADer, VERBose, DATa live elsewhere)."""

    def __init__(self, model: ScopeModel, probe: str, probe_channel: int):
        self.channels = {n: _Channel(n, probe == "current" and n == probe_channel)
                         for n in range(1, model.channels + 1)}
        # 10 000 points where the family offers it (a TDS/TPS records 2500, always)
        self.record_length = _nearest(10_000, model.record_lengths)
        self.hscale = 4e-6
        self.hposition = 50.0
        self.delay_mode = False
        self.delay_time = 0.0
        self.hmode = "AUTO"
        self.manual_configure = "RECORDLENGTH"
        self.rate = self.record_length / (10 * self.hscale)
        self.trig_type = "EDGE"
        self.trig_source = 1
        self.trig_coupling = "DC"
        self.trig_slope = "RISE"
        self.trig_levels = {n: 0.0 for n in self.channels}
        self.trig_mode = "AUTO"
        self.acq_mode = "SAMPLE"
        self.stop_after = "RUNSTOP"


class TekDialect(Dialect):
    """Tektronix SCPI as the manuals define it, over an acquisition :class:`Engine`."""

    lenient = True
    undefined_code = 113

    def __init__(self, model: ScopeModel, engine: Engine, *, idn: str | None = None,
                 probe: str = "current", probe_channel: int = 1):
        super().__init__(Status(tek_visibility=True))
        self.model = model
        self.engine = engine
        self.idn = idn or model.example_idn
        self.probe = probe
        self.probe_channel = probe_channel
        # The DPO5000/7000/70000 share the 4/5/6 Series' manual horizontal (HORizontal:MODe) and
        # keyed preamble; they add the commands below (self.dpo7k).
        self.mso = model.family in ("tek_mso", "tek_dpo7k")
        self.dpo7k = model.family == "tek_dpo7k"
        self.tds = model.preamble == "tds2000"
        self.fields = {"dpo3000": _FIELDS_DPO, "tds2000": _FIELDS_TDS}.get(model.preamble, _FIELDS_MDO)
        self.header_on = True
        self.verbose = True
        self.data = _Data()
        self.s = _Settings(model, probe, probe_channel)
        self._default_timebase()
        self.cwd = "C:/" if self.mso else "E:/"      # 4/5/6: internal drive; 2k/3k/4k: the front USB port
        self.meas_type, self.meas_source = "MEAN", "CH1"
        self.table = self._table()
        self._start_running()

    # ------------------------------------------------------------ power and reset

    def _start_running(self) -> None:
        # After power-on and after *RST a Tek scope acquires continuously.
        self.engine.arm(self._frame(), single=False)
        self.engine.force()

    def factory_reset(self, power_cycle: bool = False) -> None:
        """*RST (or Default Setup); a power cycle also resets HEADer/VERBose/DATa."""
        self.engine.stop()
        self.s = _Settings(self.model, self.probe, self.probe_channel)
        self._default_timebase()
        if power_cycle:
            self.header_on, self.verbose, self.data = True, True, _Data()
            self.status.clear()
            self.engine.forget()
            self.status.record(401, "Power on")
        self._start_running()

    def _default_timebase(self) -> None:
        # The power-on scale within the model's rate limit (a 2000 series' 125 k points
        # cannot be 4 us/div); unchanged on the models whose default was already valid.
        if not self.mso:
            self._set_hscale(self.s.hscale)

    # ------------------------------------------------------------ formatting

    def _word(self, key: str) -> str:
        mnemonic = _ENUM_WORDS.get(key, key)
        # 4/5/6 Series: VERBose alone sets argument length (a real MSO5 answers DATa:ENCdg?
        # with ASCII under HEADer OFF, which tm_devices' set_and_check relies on).
        long_form = self.verbose and (self.header_on or self.mso)
        return mnemonic.upper() if long_form else _short(mnemonic)

    def _units(self, ch: int) -> str:
        c = self.s.channels[ch]
        if self.mso:
            return c.ext_units if c.ext_units_state else c.probe_units
        return c.yunits

    def _channel(self, numbers: list[int]) -> _Channel:
        n = numbers[0]
        if n not in self.s.channels:
            raise ScpiError(113, f"Undefined header; no channel CH{n}")
        return self.s.channels[n]

    # ------------------------------------------------------------ horizontal

    def _dt(self) -> float:
        if self.mso and self.s.hmode == "MANUAL":
            return 1.0 / self.s.rate
        return 10.0 * self.s.hscale / self.s.record_length

    def _set_hscale(self, value: float) -> None:
        m = self.model
        lo = max(m.horizontal_scale_min_s, self.s.record_length / (10 * m.max_sample_rate_hz))
        scale = _snap_sequence(value, m.horizontal_scale_mantissas, lo, m.horizontal_scale_max_s)
        if self.mso and self.s.hmode == "MANUAL":
            self.s.rate = self._snap_rate(self.s.record_length / (10 * scale))
        else:
            self.s.hscale = scale

    def _snap_rate(self, rate: float) -> float:
        m = self.model
        return _snap_sequence(rate, m.sample_rate_mantissas, m.sample_rate_min_hz, m.max_sample_rate_hz)

    def _set_record_length(self, n: int) -> None:
        if self.mso and self.s.hmode != "MANUAL":
            raise ScpiError(221, "Settings conflict; record length is set in HORizontal:MODe MANual")
        self.s.record_length = _nearest(n, self.model.record_lengths)
        if not self.mso:
            self._set_hscale(self.s.hscale)  # the rate limit may move the scale

    def _hscale_now(self) -> float:
        if self.mso and self.s.hmode == "MANUAL":
            return self.s.record_length / (10 * self.s.rate)
        return self.s.hscale

    # ------------------------------------------------------------ acquisition

    def _frame(self) -> Frame:
        n = self.s.record_length
        channels = {}
        for ch, c in self.s.channels.items():
            if c.displayed or ch == self.data.source:
                channels[ch] = FrontEnd(c.scale, c.position, c.offset, self.model.codes_per_div,
                                        self.model.adc_bits, self._units(ch), c.coupling)
        return Frame(
            n_points=n, dt_s=self._dt(), trigger_index=int(round(self.s.hposition / 100 * n)),
            delay_s=self.s.delay_time if self.s.delay_mode else 0.0,
            trigger_channel=self.s.trig_source,
            trigger_level=self.s.trig_levels[self.s.trig_source],
            trigger_slope=self.s.trig_slope, auto=self.s.trig_mode == "AUTO", channels=channels,
        )

    def _acq_state(self, unit: Unit, _: list[int]) -> None:
        word = unit.args[0].upper() if len(unit.args) == 1 else ""
        if word in ("RUN", "ON") or (word not in ("OFF", "STOP") and arg_bool(unit)):
            self.engine.arm(self._frame(), single=self.s.stop_after == "SEQUENCE")
        else:
            self.engine.stop()

    def _opc_query(self, unit: Unit, _: list[int]) -> Wait:
        return Wait(lambda alive: self.engine.wait_done(None, alive), lambda: Reply(b"1"))

    # ------------------------------------------------------------ waveform transfer

    def _available(self) -> str:
        # 4/5/6 Series manual, DATa:SOUrce:AVAILable?: the sources holding a waveform,
        # comma-separated, NONE if there are none (tm_devices' curve_query asks it first).
        acq = self.engine.latest()
        chans = [] if acq is None else sorted(
            ch for ch in acq.frame.channels  # type: ignore[attr-defined]
            if ch in self.s.channels and self.s.channels[ch].displayed)
        return ",".join(f"CH{ch}" for ch in chans) or "NONE"

    def _record(self) -> tuple[object, FrontEnd, int, int]:
        acq = self.engine.latest()
        ch = self.data.source
        c = self.s.channels.get(ch)
        if acq is None or c is None or ch not in acq.frame.channels or not c.displayed:
            raise ScpiError(221, f"Settings conflict; waveform CH{ch} is not displayed")
        n = acq.frame.n_points
        start = min(max(self.data.start, 1), n)
        stop = min(max(self.data.stop, start), n)
        return acq, acq.frame.channels[ch], start, stop

    def _preamble_values(self) -> list[tuple[str, str]]:
        acq, fe, start, stop = self._record()
        frame = acq.frame  # type: ignore[attr-defined]
        enc = _ENCODINGS[self.data.encoding if not (self.mso and self.data.encoding == "FASTEST")
                         else "RIBINARY"]
        width = self.data.width
        cpd = self.model.codes_per_div * (1 << (8 * (width - 1)))
        rp_offset = (1 << (8 * width - 1)) if enc[2] == "RP" else 0
        if self.mso:
            yoff, yzero = float(rp_offset), fe.offset - fe.position_div * fe.scale
        else:
            yoff, yzero = fe.position_div * cpd + rp_offset, fe.offset
        wfid = (f"Ch{self.data.source}, {fe.coupling} coupling, {eng(fe.scale, fe.units)}/div, "
                f"{eng(frame.dt_s * frame.n_points / 10, 's')}/div, {frame.n_points} points, "
                "Sample mode")
        values = {
            "BYT_Nr": str(width), "BIT_Nr": str(8 * width), "ENCdg": self._word(enc[1]),
            "BN_Fmt": enc[2], "BYT_Or": enc[3], "WFId": f'"{wfid}"',
            "NR_Pt": str(stop - start + 1), "PT_Fmt": "Y", "PT_ORder": self._word("LINEAR"),
            "XUNit": '"s"', "XINcr": nr3(frame.dt_s),
            "XZEro": nr3(frame.x_zero_s + (start - 1) * frame.dt_s), "PT_Off": "0",
            "YUNit": f'"{fe.units}"', "YMUlt": nr3(fe.scale / cpd), "YOFf": nr3(yoff),
            "YZEro": nr3(yzero), "DOMain": self._word("TIME"), "WFMTYPe": self._word("ANALOG"),
            "CENTERFREQuency": nr3(0.0), "SPAN": nr3(0.0), "REFLEVel": nr3(0.0),
        }
        return [(f, values[f]) for f in self.fields]

    def _preamble(self, unit: Unit, _: list[int]) -> Reply:
        pairs = self._preamble_values()
        if not self.header_on:
            text = ";".join(v for _, v in pairs)
        else:
            key = (lambda f: f.upper()) if self.verbose else _short
            prefix = (":WFMPRE:" if self.verbose else ":WFMP:") if self.tds else (
                ":WFMOUTPRE:" if self.verbose else ":WFMO:")
            text = prefix + ";".join(f"{key(f)} {v}" for f, v in pairs)
        return Reply(text.encode("latin-1"), "preamble", unit.text)

    def _preamble_field(self, name: str):  # noqa: ANN202 - returns a handler
        def query(unit: Unit, _: list[int]) -> str:
            if self.dpo7k and name in ("XUNit", "YUNit"):
                # A DPO7000 names the units of a source even when it holds no waveform
                # (QCoDeS' driver asks every channel's when it connects).
                return '"s"' if name == "XUNit" else f'"{self._units(self.data.source)}"'
            return dict(self._preamble_values())[name]
        return query

    def _curve(self, unit: Unit, _: list[int]) -> Reply:
        acq, fe, start, stop = self._record()
        ch = self.data.source
        adc = acq.adc[ch][start - 1:stop]  # type: ignore[attr-defined]
        width = self.data.width
        codes = transfer_codes(adc, self.model.adc_bits, width)
        enc = _ENCODINGS["RIBINARY" if self.data.encoding == "FASTEST" else self.data.encoding]
        head = b":CURVE " if self.header_on else b""
        if enc[1] == "ASC":
            if codes.size > self.model.ascii_max_points:
                raise ScpiError(221, "Settings conflict; ASCII transfers are limited to "
                                f"{self.model.ascii_max_points} points")
            text = ",".join(map(str, codes.tolist())).encode("ascii")
            return Reply(head + text, "text", unit.text)
        if enc[2] == "RP":
            codes = (codes.astype(np.int32) + (1 << (8 * width - 1))).astype(
                np.uint8 if width == 1 else np.uint16)
        order = ">" if enc[3] == "MSB" else "<"
        payload = codes.astype(codes.dtype.newbyteorder(order), copy=False).tobytes()
        length = str(len(payload)).encode()
        return Reply(head + b"#" + str(len(length)).encode() + length + payload, "block", unit.text)

    # ------------------------------------------------------------ the table

    def _table(self) -> list[Command]:
        """Every command the scope answers, in matching order; the families add their own."""
        table = [*self._table_common(), *self._table_channels(), *self._table_timebase_trigger(),
                 *self._table_acquire_data(), *self._table_clients()]
        if self.tds:
            # TDS/TPS 2000: the trigger is TRIGger:MAIn (one level, for the edge source), and
            # SELect? lists every waveform's state.
            table += self._table_tds()
        if self.dpo7k:
            # DPO5000/7000/70000 manual: the time base reports its unit (QCoDeS' DPO7000xx
            # asks it when it connects, to name its sample-rate unit).
            table += [
                Command("HORizontal:MAIn:UNIts", query=lambda u, x: '"s"'),
            ]
        if self.mso:
            table += self._table_mso()
        return table

    def _set_channel_attr(self, attr: str, conv):  # noqa: ANN001, ANN202
        def handler(u: Unit, x: list[int]) -> None:
            setattr(self._channel(x), attr, conv(u))
        return handler

    @staticmethod
    def _num_getter(getter):  # noqa: ANN001, ANN202
        return lambda u, x: nr3(getter(x))

    def _enum_set(self, attr: str, choices: dict[str, str], target=None):  # noqa: ANN001, ANN202
        def handler(u: Unit, x: list[int]) -> None:
            setattr(target() if target else self.s, attr, arg_enum(u, choices))
        return handler

    def _table_common(self) -> list[Command]:
        """IEEE 488.2 commands, headers, status and events."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("*IDN", query=lambda u, x: self.idn, kind="idn"),
            Q("*RST", set=lambda u, x: self.factory_reset()),
            Q("*CLS", set=lambda u, x: self.status.clear()),
            Q("*ESR", query=lambda u, x: str(self.status.read_esr())),
            Q("*OPC", set=lambda u, x: self.status.set_bits(0x01), query=self._opc_query),
            Q("*WAI", set=lambda u, x: Wait(lambda alive: self.engine.wait_done(None, alive),
                                            lambda: None)),
            Q("*STB", query=lambda u, x: str(0x20 if self.status.esr else 0)),
            Q("HEADer", set=lambda u, x: setattr(self, "header_on", arg_bool(u)),
              query=lambda u, x: "1" if self.header_on else "0"),
            Q("VERBose", set=lambda u, x: setattr(self, "verbose", arg_bool(u)),
              query=lambda u, x: "1" if self.verbose else "0"),
            Q("BUSY", query=lambda u, x: "1" if self.engine.running() and
              s().stop_after == "SEQUENCE" else "0"),
            Q("ALLEv", query=lambda u, x: self.status.allev()),
            Q("EVMsg", query=lambda u, x: self.status.evmsg()),
            Q("EVQty", query=lambda u, x: str(self.status.count())),
        ]

    def _table_channels(self) -> list[Command]:
        """The vertical settings of each channel."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("SELect:CH<x>", set=set_channel_attr("displayed", arg_bool),
              query=lambda u, x: "1" if ch(x).displayed else "0"),
            Q("CH<x>:SCAle", set=lambda u, x: setattr(ch(x), "scale", min(max(
                arg_number(u), self.model.vertical_scale_min), self.model.vertical_scale_max)),
              query=num_getter(lambda x: ch(x).scale)),
            Q("CH<x>:POSition", set=lambda u, x: setattr(ch(x), "position",
                                                        min(max(arg_number(u), -5.0), 5.0)),
              query=num_getter(lambda x: ch(x).position)),
            Q("CH<x>:OFFSet", set=set_channel_attr("offset", arg_number),
              query=num_getter(lambda x: ch(x).offset)),
            Q("CH<x>:COUPling", set=lambda u, x: setattr(ch(x), "coupling", arg_enum(u, _COUPLINGS)),
              query=lambda u, x: self._word(ch(x).coupling)),
            Q("CH<x>:YUNits", set=lambda u, x: setattr(ch(x), "yunits", unquote(u.args[0])
                                                       if u.args else ""),
              query=lambda u, x: f'"{ch(x).yunits}"'),
            Q("CH<x>:PRObe:GAIN", set=set_channel_attr("probe_gain", arg_number),
              query=num_getter(lambda x: ch(x).probe_gain)),
            Q("CH<x>:PRObe:UNIts", query=lambda u, x: f'"{ch(x).probe_units}"'),
            Q("CH<x>:BANdwidth", set=lambda u, x: None, query=lambda u, x: self._word("FULL")),
            Q("CH<x>:TERmination", set=lambda u, x: setattr(ch(x), "termination", arg_enum(
                u, {"FIFTY": "FIFty", "MEG": "MEG"})), query=lambda u, x: self._word(ch(x).termination)),
        ]

    def _table_timebase_trigger(self) -> list[Command]:
        """The time base and the A trigger."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("HORizontal:SCAle", set=lambda u, x: self._set_hscale(arg_number(u)),
              query=lambda u, x: nr3(self._hscale_now())),
            Q("HORizontal:RECOrdlength", set=lambda u, x: self._set_record_length(arg_int(u)),
              query=lambda u, x: str(s().record_length)),
            Q("HORizontal:POSition", set=lambda u, x: setattr(s(), "hposition",
                                                             min(max(arg_number(u), 0.0), 100.0)),
              query=lambda u, x: nr3(s().hposition)),
            Q("HORizontal:SAMPLERate", set=self._set_rate if self.mso else None,
              query=lambda u, x: nr3(1.0 / self._dt())),
            Q("HORizontal:DELay:MODe", set=lambda u, x: setattr(s(), "delay_mode", arg_bool(u)),
              query=lambda u, x: "1" if s().delay_mode else "0"),
            Q("HORizontal:DELay:TIMe", set=lambda u, x: setattr(s(), "delay_time", arg_number(u)),
              query=lambda u, x: nr3(s().delay_time)),
            Q("TRIGger", set=self._trigger_force),
            Q("TRIGger:STATE", query=lambda u, x: self.engine.trigger_state()),
            Q("TRIGger:A:TYPe", set=enum_set("trig_type", {"EDGE": "EDGe"}),
              query=lambda u, x: self._word(s().trig_type)),
            Q("TRIGger:A:EDGE:SOUrce", set=self._trigger_source,
              query=lambda u, x: f"CH{s().trig_source}"),
            Q("TRIGger:A:EDGE:SLOpe", set=enum_set("trig_slope", {"RISE": "RISe", "FALL": "FALL",
                                                                 "EITHER": "EITHer"}),
              query=lambda u, x: self._word(s().trig_slope)),
            Q("TRIGger:A:EDGE:COUPling", set=enum_set("trig_coupling", _COUPLINGS),
              query=lambda u, x: self._word(s().trig_coupling)),
            Q("TRIGger:A:LEVel:CH<x>", set=self._trigger_level,
              query=lambda u, x: nr3(s().trig_levels[self._channel_number(x)])),
            Q("TRIGger:A:MODe", set=enum_set("trig_mode", {"AUTO": "AUTO", "NORMAL": "NORMal"}),
              query=lambda u, x: self._word(s().trig_mode)),
        ]

    def _table_acquire_data(self) -> list[Command]:
        """Acquisition, the data source and encoding, the preamble and the curve."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("ACQuire:MODe", set=enum_set("acq_mode", {
                "SAMPLE": "SAMple", "PEAKDETECT": "PEAKdetect", "HIRES": "HIRes",
                "AVERAGE": "AVErage", "ENVELOPE": "ENVelope"}),
              query=lambda u, x: self._word(s().acq_mode)),
            Q("ACQuire:STOPAfter", set=enum_set("stop_after", {"RUNSTOP": "RUNSTop",
                                                               "SEQUENCE": "SEQuence"}),
              query=lambda u, x: self._word(s().stop_after)),
            Q("ACQuire:STATE", set=self._acq_state,
              query=lambda u, x: "1" if self.engine.running() else "0"),
            Q("ACQuire:NUMACq", query=lambda u, x: str(self.engine.count)),
            Q("DATa", set=self._data_init, query=self._data_query, raw=True),
            Q("DATa:SOUrce:AVAILable", query=lambda u, x: self._available()),
            Q("DATa:SOUrce", set=self._data_source, query=lambda u, x: f"CH{self.data.source}"),
            Q("DATa:ENCdg", set=self._data_encoding, query=lambda u, x: self._word(self.data.encoding)),
            Q("DATa:WIDth", set=self._data_width, query=lambda u, x: str(self.data.width)),
            Q("DATa:STARt", set=lambda u, x: setattr(self.data, "start", max(arg_int(u), 1)),
              query=lambda u, x: str(self.data.start)),
            Q("DATa:STOP", set=lambda u, x: setattr(self.data, "stop", max(arg_int(u), 1)),
              query=lambda u, x: str(self.data.stop)),
            Q("WFMOutpre", query=self._preamble, raw=True, kind="preamble"),
            Q("WFMPre", query=self._preamble, raw=True, kind="preamble"),
            Q("WFMOutpre:BYT_Nr", set=self._data_width, query=self._preamble_field("BYT_Nr")),
            Q("WFMOutpre:ENCdg", set=self._wfmo_encdg, query=self._preamble_field("ENCdg")),
            Q("WFMOutpre:BN_Fmt", set=self._wfmo_bn_fmt, query=self._preamble_field("BN_Fmt")),
            Q("WFMOutpre:BYT_Or", set=self._wfmo_byt_or, query=self._preamble_field("BYT_Or")),
            *[Q(f"WFMOutpre:{f}", query=self._preamble_field(f)) for f in self.fields
              if f not in ("BYT_Nr", "ENCdg", "BN_Fmt", "BYT_Or")],
            Q("CURVe", query=self._curve, raw=True, kind="block"),
            Q("WAVFrm", query=self._wavfrm, raw=True, kind="block"),
        ]

    def _table_clients(self) -> list[Command]:
        """What public clients ask on connecting, and the immediate measurement."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            # What public clients ask when they connect (tm_devices: hostname, probes, the
            # working directory for its USB-drive scan); the manuals' reply shapes.
            Q("ETHERnet:NAMe", query=lambda u, x: '"charz-mock"'),
            Q("ETHERnet:IPADDress", query=lambda u, x: '"127.0.0.1"'),
            Q("CH<x>:PRObe:ID:TYPe", query=lambda u, x: f'"{self._probe_type(x)}"'),
            Q("CH<x>:PRObe:ID:SERnumber", query=lambda u, x: '"C000001"' if self._probe_type(x) != "1X" else '"N/A"'),
            Q("FILESystem:CWD", set=self._set_cwd, query=lambda u, x: f'"{self.cwd}"'),
            # TDS/TPS-style immediate measurement (PyMeasure's TDS2000 reads it), on the
            # record the scope holds, as the front panel's Measure menu computes it.
            Q("MEASUrement:IMMed:TYPe", set=lambda u, x: setattr(self, "meas_type", arg_enum(u, _MEAS_TYPES)),
              query=lambda u, x: self._word(self.meas_type)),
            Q("MEASUrement:IMMed:SOUrce1", set=self._meas_source, query=lambda u, x: self.meas_source),
            Q("MEASUrement:IMMed:SOUrce", set=self._meas_source, query=lambda u, x: self.meas_source),
            Q("MEASUrement:IMMed:UNIts", query=lambda u, x: f'"{self._meas_unit()}"'),
            Q("MEASUrement:IMMed:VALue", query=lambda u, x: nr3(self._meas_value())),
        ]

    def _table_tds(self) -> list[Command]:
        """TDS/TPS 2000 only."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("TRIGger:MAIn:TYPe", set=enum_set("trig_type", {"EDGE": "EDGe"}),
              query=lambda u, x: self._word(s().trig_type)),
            Q("TRIGger:MAIn:EDGE:SOUrce", set=self._trigger_source, query=lambda u, x: f"CH{s().trig_source}"),
            Q("TRIGger:MAIn:EDGE:SLOpe", set=enum_set("trig_slope", {"RISE": "RISe", "FALL": "FALL"}),
              query=lambda u, x: self._word(s().trig_slope)),
            Q("TRIGger:MAIn:EDGE:COUPling", set=enum_set("trig_coupling", _COUPLINGS),
              query=lambda u, x: self._word(s().trig_coupling)),
            Q("TRIGger:MAIn:LEVel", set=lambda u, x: s().trig_levels.__setitem__(s().trig_source, arg_number(u)),
              query=lambda u, x: nr3(s().trig_levels[s().trig_source])),
            Q("TRIGger:MAIn:MODe", set=enum_set("trig_mode", {"AUTO": "AUTO", "NORMAL": "NORMal"}),
              query=lambda u, x: self._word(s().trig_mode)),
            Q("SELect", query=self._select_all, raw=True),
        ]

    def _table_mso(self) -> list[Command]:
        """MSO 4/5/6 series only."""
        s, ch, Q = (lambda: self.s), self._channel, Command  # s(): *RST replaces self.s
        set_channel_attr, num_getter, enum_set = self._set_channel_attr, self._num_getter, self._enum_set
        return [
            Q("CH<x>:PROBETYPE", query=lambda u, x: (ch(x), "ANALOG")[1]),
            Q("LICense:APPID", query=lambda u, x: '""'),   # no options installed
            Q("DISplay:GLObal:CH<x>:STATE", set=set_channel_attr("displayed", arg_bool),
              query=lambda u, x: "1" if ch(x).displayed else "0"),
            Q("CH<x>:PROBEFunc:EXTUnits", set=lambda u, x: setattr(ch(x), "ext_units",
                                                                  unquote(u.args[0]) if u.args else ""),
              query=lambda u, x: f'"{ch(x).ext_units}"'),
            Q("CH<x>:PROBEFunc:EXTUnits:STATE", set=set_channel_attr("ext_units_state", arg_bool),
              query=lambda u, x: "1" if ch(x).ext_units_state else "0"),
            Q("HORizontal:MODe", set=enum_set("hmode", {"AUTO": "AUTO", "MANUAL": "MANual"}),
              query=lambda u, x: self._word(s().hmode)),
            Q("HORizontal:MODe:MANual:CONFIGure", set=enum_set("manual_configure", {
                "RECORDLENGTH": "RECORDLength", "HORIZONTALSCALE": "HORIZontalscale"}),
              query=lambda u, x: self._word(s().manual_configure)),
            Q("HORizontal:MODe:SAMPLERate", set=self._set_rate,
              query=lambda u, x: nr3(1.0 / self._dt())),
            Q("HORizontal:MODe:RECOrdlength", set=lambda u, x: self._set_record_length(arg_int(u)),
              query=lambda u, x: str(s().record_length)),
            Q("HORizontal:MODe:SCAle", set=lambda u, x: self._set_hscale(arg_number(u)),
              query=lambda u, x: nr3(self._hscale_now())),
        ]

    # ------------------------------------------------------------ handlers

    def _select_all(self, unit: Unit, _: list[int]) -> str:
        names = [f"CH{n}" for n in sorted(self.s.channels)] + ["MATH", "REFA", "REFB"]
        states = ["1" if self.s.channels[n].displayed else "0" for n in sorted(self.s.channels)] + ["0"] * 3
        if not self.header_on:
            return ";".join(states)
        head = ":SELECT:" if self.verbose else ":SEL:"
        return head + ";".join(f"{n} {v}" for n, v in zip(names, states))

    def _probe_type(self, numbers: list[int]) -> str:
        n = self._channel_number(numbers)
        return "TCP0030A" if n == self.probe_channel and self.probe == "current" else "1X"

    def _set_cwd(self, unit: Unit, _: list[int]) -> None:
        # A drive that is not there (no USB stick in the mock) is refused, as on the scope.
        path = unquote(unit.args[0]) if unit.args else ""
        if not path.upper().startswith(self.cwd[:2].upper()):
            raise ScpiError(221, f"Settings conflict; no drive {path[:2] or path!r}")
        self.cwd = path

    def _meas_source(self, unit: Unit, _: list[int]) -> None:
        text = (unit.args[0] if unit.args else "").strip().upper()
        if not (text.startswith("CH") and text[2:].isdigit() and int(text[2:]) in self.s.channels):
            raise ScpiError(102, f"Syntax error; measurement source {text!r}")
        self.meas_source = f"CH{int(text[2:])}"

    def _meas_unit(self) -> str:
        kind = self.meas_type
        if kind in ("FREQUENCY",):
            return "Hz"
        if kind in ("PERIOD", "RISE", "FALL", "PWIDTH", "NWIDTH"):
            return "s"
        return self.s.channels[int(self.meas_source[2:])].yunits or "V"

    def _meas_values(self) -> tuple[np.ndarray, float]:
        acq = self.engine.latest()
        n = int(self.meas_source[2:])
        c = self.s.channels.get(n)
        if acq is None or n not in acq.frame.channels or c is None or not c.displayed:
            raise ScpiError(221, f"Settings conflict; no waveform on {self.meas_source}")
        fe = acq.frame.channels[n]
        codes = transfer_codes(acq.adc[n], self.model.adc_bits, 1).astype(np.float64)
        cpd = self.model.codes_per_div
        return codes * (fe.scale / cpd) - fe.position_div * fe.scale + fe.offset, acq.frame.dt_s

    def _meas_value(self) -> float:
        v, dt = self._meas_values()
        kind = self.meas_type
        simple = {"MEAN": np.mean, "MAXIMUM": np.max, "MINIMUM": np.min, "PK2PK": np.ptp,
                  "CRMS": lambda a: np.sqrt(np.mean(a * a)), "RMS": lambda a: np.sqrt(np.mean(a * a))}
        if kind in simple:
            return float(simple[kind](v))
        if kind in ("FREQUENCY", "PERIOD"):
            mid = (v.max() + v.min()) / 2
            rises = np.flatnonzero((v[:-1] < mid) & (v[1:] >= mid))
            if rises.size < 2 or v.max() == v.min():
                return 9.9e37                # the manuals' "no measurement" value
            period = (rises[-1] - rises[0]) * dt / (rises.size - 1)
            return 1.0 / period if kind == "FREQUENCY" else period
        return 9.9e37

    def _channel_number(self, numbers: list[int]) -> int:
        self._channel(numbers)
        return numbers[0]

    def _set_rate(self, unit: Unit, _: list[int]) -> None:
        if self.s.hmode != "MANUAL":
            raise ScpiError(221, "Settings conflict; sample rate is set in HORizontal:MODe MANual")
        self.s.rate = self._snap_rate(arg_number(unit))

    def _trigger_force(self, unit: Unit, _: list[int]) -> None:
        arg_enum(unit, {"FORCE": "FORCe"})
        self.engine.force()

    def _trigger_source(self, unit: Unit, _: list[int]) -> None:
        choices = {str(n): f"CH{n}" for n in self.s.channels}
        self.s.trig_source = int(arg_enum(unit, choices))

    def _trigger_level(self, unit: Unit, numbers: list[int]) -> None:
        self.s.trig_levels[self._channel_number(numbers)] = arg_number(unit)

    def _data_init(self, unit: Unit, _: list[int]) -> None:
        arg_enum(unit, {"INIT": "INIT"})
        self.data = _Data()

    def _data_query(self, unit: Unit, _: list[int]) -> str:
        d = self.data
        values = [("SOUrce", f"CH{d.source}"), ("ENCdg", self._word(d.encoding)),
                  ("WIDth", str(d.width)), ("STARt", str(d.start)), ("STOP", str(d.stop))]
        if not self.header_on:
            return ";".join(v for _, v in values)
        key = (lambda f: f.upper()) if self.verbose else _short
        return (":DATA:" if self.verbose else ":DAT:") + ";".join(f"{key(k)} {v}" for k, v in values)

    def _data_source(self, unit: Unit, _: list[int]) -> None:
        choices = {str(n): f"CH{n}" for n in self.s.channels}
        self.data.source = int(arg_enum(unit, choices))

    def _data_encoding(self, unit: Unit, _: list[int]) -> None:
        choices = {k: v[0] for k, v in _ENCODINGS.items()
                   if v[0] in self.model.encodings}
        self.data.encoding = arg_enum(unit, choices)

    def _data_width(self, unit: Unit, _: list[int]) -> None:
        width = arg_int(unit)
        if width not in self.model.widths:
            raise ScpiError(222, f"Data out of range; width {width}")
        self.data.width = width

    def _set_encoding_part(self, index: int, value: str) -> None:
        current = list(_ENCODINGS[self.data.encoding][1:])
        current[index] = value
        for key, (_, *parts) in _ENCODINGS.items():
            if parts == current and key != "FASTEST":
                self.data.encoding = key
                return
        self.data.encoding = "ASCII" if current[0] == "ASC" else self.data.encoding

    def _wfmo_encdg(self, unit: Unit, _: list[int]) -> None:
        self._set_encoding_part(0, "BIN" if arg_enum(unit, {"BIN": "BINary", "ASC": "ASCii"}) == "BIN"
                                else "ASC")

    def _wfmo_bn_fmt(self, unit: Unit, _: list[int]) -> None:
        self._set_encoding_part(1, arg_enum(unit, {"RI": "RI", "RP": "RP"}))

    def _wfmo_byt_or(self, unit: Unit, _: list[int]) -> None:
        self._set_encoding_part(2, arg_enum(unit, {"MSB": "MSB", "LSB": "LSB"}))

    def _wavfrm(self, unit: Unit, x: list[int]) -> Reply:
        pre = self._preamble(unit, x)
        curve = self._curve(unit, x)
        return Reply(pre.data + b";" + curve.data, "block", unit.text)

    # ------------------------------------------------------------ fault helpers

    def corrupt_preamble(self, text: bytes, mode: str) -> bytes:
        """Garble or drop YMULT (the field after the quoted YUNIT)."""
        units = text.decode("latin-1").split(";")
        quoted = [i for i, u in enumerate(units) if '"' in u]
        target = next((i for i, u in enumerate(units)
                       if u.lstrip(":").upper().split(" ")[0].split(":")[-1] in ("YMULT", "YMU")),
                      quoted[-1] + 1 if quoted else len(units) - 1)
        if mode == "missing":
            del units[target]
        else:
            head, sep, _ = units[target].rpartition(" ")
            units[target] = f"{head}{sep}1.2.3E+x" if sep else "1.2.3E+x"
        return ";".join(units).encode("latin-1")

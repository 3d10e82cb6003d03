"""The Keysight InfiniiVision dialect of the mock scope (2000/3000/4000 X-Series).

From the InfiniiVision programmer's guides: strict SCPI mnemonics (short or long form
only), no headers in replies, ``:WAVeform:PREamble?`` with ten fields
``format,type,points,count,xincrement,xorigin,xreference,yincrement,yorigin,yreference``,
``:WAVeform:DATA?`` as an ``#8``-style definite block, errors in ``:SYSTem:ERRor?``
(``-113,"Undefined header"``), ``:SINGle`` / ``:DIGitize`` / ``:RUN`` / ``:STOP``,
``:OPERegister:CONDition?`` with the Run bit (8) and the Wait Trig bit (32), ``:AER?``
and ``:TER?`` latches.  The acquisition fills ten divisions with the deepest memory
the maximum rate allows; ``:WAVeform:POINts`` decimates it.

Example
-------
>>> from charz.scope._models import load_model
>>> from charz.sim._scpi_acquire import Engine
>>> from charz.sim._scpi_demo import PulseTrainSource
>>> ks = KeysightDialect(load_model("keysight_dsox3000"), Engine(PulseTrainSource()))
>>> [r.data for r in ks.run_line(":TIM:SCAL 2E-3;:TIMEBASE:SCALE?;:FOO;:SYST:ERR?")]
[b'+2.00000000E-03', b'-113,"Undefined header"']
"""

from __future__ import annotations

import numpy as np

from charz.scope import ScopeModel
from charz.sim._scpi_acquire import Engine, FrontEnd, Frame
from charz.sim._scpi_dialect import Command, Dialect, Reply, Wait, arg_bool, arg_enum, arg_int, arg_number
from charz.sim._scpi_parse import ScpiError, Unit
from charz.sim._scpi_render import transfer_codes
from charz.sim._scpi_status import Status

__all__ = ["KeysightDialect"]

RUN_BIT, WAIT_TRIG_BIT = 0x08, 0x20


def _num(x: float) -> str:
    return f"{x:+.8E}"


class _Channel:
    def __init__(self, n: int, current_probe: bool):
        self.scale = 0.1
        self.offset = 0.0
        self.coupling = "DC"
        self.units = "AMP" if current_probe else "VOLT"
        self.displayed = n == 1 or current_probe


class _Settings:
    def __init__(self, model: ScopeModel, probe: str, probe_channel: int):
        self.channels = {n: _Channel(n, probe == "current" and n == probe_channel)
                         for n in range(1, model.channels + 1)}
        self.tscale = 100e-6
        self.tposition = 0.0
        self.reference = "CENTER"
        self.acq_type = "NORMAL"
        self.trig_source = 1
        self.trig_level = 0.0
        self.trig_slope = "POSITIVE"
        self.trig_coupling = "DC"
        self.trig_sweep = "AUTO"


class _Waveform:
    def __init__(self) -> None:
        self.source = 1
        self.format = "BYTE"
        self.byteorder = "MSBFIRST"
        self.unsigned = True
        self.points_mode = "NORMAL"
        self.points = 1000


class KeysightDialect(Dialect):
    """InfiniiVision SCPI over an acquisition :class:`Engine`."""

    lenient = False
    undefined_code = -113

    def __init__(self, model: ScopeModel, engine: Engine, *, idn: str | None = None,
                 probe: str = "current", probe_channel: int = 1):
        super().__init__(Status(tek_visibility=False))
        self.model = model
        self.engine = engine
        self.idn = idn or model.example_idn
        self.probe = probe
        self.probe_channel = probe_channel
        self.header_on = False
        self.s = _Settings(model, probe, probe_channel)
        self.wav = _Waveform()
        self.table = self._table()
        self._run()
        self.engine.force()

    def undefined(self, unit: Unit) -> None:
        self.status.record(-113, "Undefined header")

    def factory_reset(self, power_cycle: bool = False) -> None:
        self.engine.stop()
        self.s = _Settings(self.model, self.probe, self.probe_channel)
        self.wav = _Waveform()
        if power_cycle:
            self.status.clear()
            self.engine.forget()
            self.status.set_bits(0x80)
        self._run()
        self.engine.force()

    # ------------------------------------------------------------ acquisition

    def _depth(self) -> int:
        window = 10 * self.s.tscale
        fits = [d for d in self.model.memory_depths if d / window <= self.model.max_sample_rate_hz * (1 + 1e-9)]
        return max(fits) if fits else min(self.model.memory_depths)

    def _frame(self) -> Frame:
        depth = self._depth()
        window = 10 * self.s.tscale
        # Digitise only what the transfer will ask for when it divides the memory evenly.
        stride = depth // self.wav.points if self.wav.points and depth % self.wav.points == 0 else 1
        n = depth // stride
        ref = {"LEFT": 0.1, "CENTER": 0.5, "RIGHT": 0.9}[self.s.reference]
        pre = min(max(ref - self.s.tposition / window, 0.0), 1.0)
        channels = {ch: FrontEnd(c.scale, 0.0, c.offset, self.model.codes_per_div, self.model.adc_bits,
                                 "A" if c.units == "AMP" else "V", c.coupling)
                    for ch, c in self.s.channels.items() if c.displayed or ch == self.wav.source}
        return Frame(n_points=n, dt_s=window / n, trigger_index=int(round(pre * n)), delay_s=0.0,
                     trigger_channel=self.s.trig_source, trigger_level=self.s.trig_level,
                     trigger_slope={"POSITIVE": "RISE", "NEGATIVE": "FALL"}.get(self.s.trig_slope, "EITHER"),
                     auto=self.s.trig_sweep == "AUTO", channels=channels)

    def _run(self) -> None:
        self.engine.arm(self._frame(), single=False)

    def _single(self, unit: Unit, _: list[int]) -> None:
        self.engine.arm(self._frame(), single=True)

    def _digitize(self, unit: Unit, _: list[int]) -> Wait:
        self.engine.arm(self._frame(), single=True)
        return Wait(lambda alive: self.engine.wait_done(None, alive), lambda: None)

    def _condition(self) -> int:
        cond = 0
        if self.engine.running():
            cond |= RUN_BIT
        if self.engine.waiting_for_trigger():
            cond |= WAIT_TRIG_BIT
        return cond

    # ------------------------------------------------------------ transfer

    def _record(self) -> tuple[object, FrontEnd, int]:
        acq = self.engine.latest()
        ch = self.wav.source
        if acq is None or ch not in acq.frame.channels or not self.s.channels[ch].displayed:
            raise ScpiError(-222, "Data out of range; waveform source is off")
        n = acq.frame.n_points
        want = self.wav.points if self.wav.points_mode != "NORMAL" else min(self.wav.points, 62500)
        stride = max(1, n // max(want, 1)) if want < n else 1
        return acq, acq.frame.channels[ch], stride

    def _preamble(self, unit: Unit, _: list[int]) -> Reply:
        acq, fe, stride = self._record()
        frame = acq.frame  # type: ignore[attr-defined]
        points = frame.n_points // stride
        word = self.wav.format == "WORD"
        cpd = self.model.codes_per_div * (256 if word else 1)
        yref = (32768 if word else 128) if self.wav.unsigned else 0
        fmt = {"BYTE": 0, "WORD": 1, "ASCII": 4}[self.wav.format]
        fields = [f"{fmt:+d}", "+0", f"{points:+d}", "+1", _num(frame.dt_s * stride),
                  _num(frame.x_zero_s), "+0", _num(fe.scale / cpd), _num(fe.offset), f"{yref:+d}"]
        return Reply(",".join(fields).encode("ascii"), "preamble", unit.text)

    def _data(self, unit: Unit, _: list[int]) -> Reply:
        acq, fe, stride = self._record()
        adc = acq.adc[self.wav.source][::stride][: acq.frame.n_points // stride]  # type: ignore[attr-defined]
        if self.wav.format == "ASCII":
            values = (transfer_codes(adc, self.model.adc_bits, 1).astype(np.float64)
                      * fe.scale / self.model.codes_per_div + fe.offset)
            # "BYTE, WORD and ASCii formatted waveform records are transmitted using the
            # arbitrary block program data format" (InfiniiVision Programmer's Guide,
            # :WAVeform Commands, "Data Format for Transfer"): #8NNNNNNNN, then the text.
            text = ",".join(f"{v:+.6E}" for v in values).encode("ascii")
            return Reply(b"#8" + f"{len(text):08d}".encode() + text, "block", unit.text)
        width = 2 if self.wav.format == "WORD" else 1
        codes = transfer_codes(adc, self.model.adc_bits, width)
        if self.wav.unsigned:
            codes = (codes.astype(np.int32) + (1 << (8 * width - 1))).astype(
                np.uint8 if width == 1 else np.uint16)
        order = ">" if self.wav.byteorder == "MSBFIRST" else "<"
        payload = codes.astype(codes.dtype.newbyteorder(order), copy=False).tobytes()
        return Reply(b"#8" + f"{len(payload):08d}".encode() + payload, "block", unit.text)

    # ------------------------------------------------------------ the table

    def _table(self) -> list[Command]:
        s = lambda: self.s  # noqa: E731 - replaced by *RST
        Q = Command

        def ch(x: list[int]) -> _Channel:
            n = x[0] if x else 1
            if n not in self.s.channels:
                raise ScpiError(-113, "Undefined header")
            return self.s.channels[n]

        def enum_set(target, attr: str, choices: dict[str, str]):  # noqa: ANN001, ANN202
            return lambda u, x: setattr(target(), attr, arg_enum(u, choices, lenient=False))

        sources = {str(n): f"CHANnel{n}" for n in range(1, self.model.channels + 1)}
        couplings = {"DC": "DC", "AC": "AC"}
        short = {"POSITIVE": "POS", "NEGATIVE": "NEG", "EITHER": "EITH", "NORMAL": "NORM",
                 "AUTO": "AUTO", "CENTER": "CENT", "LEFT": "LEFT", "RIGHT": "RIGH", "AMP": "AMP",
                 "VOLT": "VOLT", "BYTE": "BYTE", "WORD": "WORD", "ASCII": "ASC", "MSBFIRST": "MSBF",
                 "LSBFIRST": "LSBF", "RAW": "RAW", "MAXIMUM": "MAX", "DC": "DC", "AC": "AC",
                 "EDGE": "EDGE", "MAIN": "MAIN"}
        return [
            Q("*IDN", query=lambda u, x: self.idn, kind="idn"),
            Q("*RST", set=lambda u, x: self.factory_reset()),
            Q("*CLS", set=lambda u, x: self.status.clear()),
            Q("*ESR", query=lambda u, x: f"{self.status.read_esr():+d}"),
            Q("*OPC", set=lambda u, x: self.status.set_bits(0x01),
              query=lambda u, x: Wait(lambda alive: self.engine.wait_done(None, alive),
                                      lambda: Reply(b"1"))),
            Q(":SYSTem:ERRor", query=lambda u, x: self.status.next_error()),
            Q(":RUN", set=lambda u, x: self._run()),
            Q(":STOP", set=lambda u, x: self.engine.stop()),
            Q(":SINGle", set=self._single),
            Q(":DIGitize", set=self._digitize),
            Q(":AER", query=lambda u, x: "1" if self.engine.take_armed_event() else "0"),
            Q(":TER", query=lambda u, x: "+1" if self.engine.take_trigger_event() else "+0"),
            Q(":OPERegister:CONDition", query=lambda u, x: f"{self._condition():+d}"),
            Q(":CHANnel<x>:DISPlay", set=lambda u, x: setattr(ch(x), "displayed", arg_bool(u)),
              query=lambda u, x: "1" if ch(x).displayed else "0"),
            Q(":CHANnel<x>:SCALe", set=lambda u, x: setattr(ch(x), "scale", min(max(
                arg_number(u), self.model.vertical_scale_min), self.model.vertical_scale_max)),
              query=lambda u, x: _num(ch(x).scale)),
            Q(":CHANnel<x>:OFFSet", set=lambda u, x: setattr(ch(x), "offset", arg_number(u)),
              query=lambda u, x: _num(ch(x).offset)),
            Q(":CHANnel<x>:COUPling", set=lambda u, x: setattr(ch(x), "coupling",
                                                             arg_enum(u, couplings, lenient=False)),
              query=lambda u, x: ch(x).coupling),
            Q(":CHANnel<x>:UNITs", set=lambda u, x: setattr(ch(x), "units", arg_enum(
                u, {"AMP": "AMPere", "VOLT": "VOLT"}, lenient=False)),
              query=lambda u, x: short[ch(x).units]),
            Q(":TIMebase:MODE", set=lambda u, x: arg_enum(u, {"MAIN": "MAIN"}, lenient=False),
              query=lambda u, x: "MAIN"),
            Q(":TIMebase:SCALe", set=lambda u, x: setattr(s(), "tscale", min(max(
                arg_number(u), self.model.horizontal_scale_min_s), self.model.horizontal_scale_max_s)),
              query=lambda u, x: _num(s().tscale)),
            Q(":TIMebase:POSition", set=lambda u, x: setattr(s(), "tposition", arg_number(u)),
              query=lambda u, x: _num(s().tposition)),
            Q(":TIMebase:REFerence", set=enum_set(s, "reference", {
                "LEFT": "LEFT", "CENTER": "CENTer", "RIGHT": "RIGHt"}),
              query=lambda u, x: short[s().reference]),
            Q(":ACQuire:TYPE", set=enum_set(s, "acq_type", {"NORMAL": "NORMal", "AVERAGE": "AVERage",
                                                          "HRESOLUTION": "HRESolution", "PEAK": "PEAK"}),
              query=lambda u, x: short.get(s().acq_type, s().acq_type)),
            Q(":ACQuire:POINts", query=lambda u, x: f"{self._depth():+d}"),
            Q(":ACQuire:SRATe", query=lambda u, x: _num(self._depth() / (10 * s().tscale))),
            Q(":TRIGger:MODE", set=lambda u, x: arg_enum(u, {"EDGE": "EDGE"}, lenient=False),
              query=lambda u, x: "EDGE"),
            Q(":TRIGger:SWEep", set=enum_set(s, "trig_sweep", {"AUTO": "AUTO", "NORMAL": "NORMal"}),
              query=lambda u, x: short[s().trig_sweep]),
            Q(":TRIGger:FORCe", set=lambda u, x: self.engine.force()),
            Q(":TRIGger:EDGE:SOURce", set=lambda u, x: setattr(s(), "trig_source", int(arg_enum(
                u, sources, lenient=False))), query=lambda u, x: f"CHAN{s().trig_source}"),
            Q(":TRIGger:EDGE:LEVel", set=lambda u, x: setattr(s(), "trig_level", arg_number(u)),
              query=lambda u, x: _num(s().trig_level)),
            Q(":TRIGger:EDGE:SLOPe", set=enum_set(s, "trig_slope", {
                "POSITIVE": "POSitive", "NEGATIVE": "NEGative", "EITHER": "EITHer"}),
              query=lambda u, x: short[s().trig_slope]),
            Q(":TRIGger:EDGE:COUPling", set=enum_set(s, "trig_coupling", couplings),
              query=lambda u, x: s().trig_coupling),
            Q(":WAVeform:SOURce", set=lambda u, x: setattr(self.wav, "source", int(arg_enum(
                u, sources, lenient=False))), query=lambda u, x: f"CHAN{self.wav.source}"),
            Q(":WAVeform:FORMat", set=enum_set(lambda: self.wav, "format", {
                "BYTE": "BYTE", "WORD": "WORD", "ASCII": "ASCii"}), query=lambda u, x: short[self.wav.format]),
            Q(":WAVeform:BYTeorder", set=enum_set(lambda: self.wav, "byteorder", {
                "MSBFIRST": "MSBFirst", "LSBFIRST": "LSBFirst"}), query=lambda u, x: short[self.wav.byteorder]),
            Q(":WAVeform:UNSigned", set=lambda u, x: setattr(self.wav, "unsigned", arg_bool(u)),
              query=lambda u, x: "1" if self.wav.unsigned else "0"),
            Q(":WAVeform:POINts:MODE", set=enum_set(lambda: self.wav, "points_mode", {
                "NORMAL": "NORMal", "MAXIMUM": "MAXimum", "RAW": "RAW"}),
              query=lambda u, x: short[self.wav.points_mode]),
            Q(":WAVeform:POINts", set=lambda u, x: setattr(self.wav, "points", max(arg_int(u), 1)),
              query=lambda u, x: f"{self._points():+d}"),
            Q(":WAVeform:PREamble", query=self._preamble, raw=True, kind="preamble"),
            Q(":WAVeform:DATA", query=self._data, raw=True, kind="block"),
        ]

    def _points(self) -> int:
        try:
            acq, _, stride = self._record()
        except ScpiError:
            return self.wav.points
        return acq.frame.n_points // stride  # type: ignore[attr-defined]

    def corrupt_preamble(self, text: bytes, mode: str) -> bytes:
        """Garble or drop yincrement (field 8)."""
        fields = text.decode("ascii").split(",")
        if mode == "missing":
            del fields[7]
        else:
            fields[7] = "+1.2.3E+x"
        return ",".join(fields).encode("ascii")

"""Public vendor clients, not charz's drivers, read the mock scope.

PyMeasure's ``KeysightDSOX1102G`` (its own command strings, its own parsing of the
preamble and of the ASCii ``:WAVeform:DATA?`` block) and tm_devices' ``curve_query``
on the 4/5/6 Series dialect read the same acquisition charz's driver fetched; samples
and scaling must agree.  An unknown header, in either dialect, gets no reply and lands
in the event queue, where each client's own error check (pymeasure ``check_errors``,
tm_devices ``expect_esr``) reports it.  The mock is held to what these clients send,
not to what charz sends.

Issue 24 adds what the clients ask beyond that: tm_devices' connection queries on each Tek
family it drives (DPO4000, MSO2000, MDO3000, 4/5/6 Series), PyMeasure's TDS2000
``MEASUrement:IMMed``, and QCoDeS' TPS2012 (TPS2000 dialect) and DPO7000xx (DPO7000
dialect) through connect and one waveform, checked against the source's closed form.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import pyvisa
import pyvisa.constants
import pyvisa.errors

from charz.scope import ScopeSettings, open_scope
from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeServer

pytestmark = pytest.mark.system

pymeasure_keysight = pytest.importorskip("pymeasure.instruments.keysight")


def charz_capture(server: MockScopeServer, width: int):
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=width)
    scope = open_scope(server.resource, timeout_s=2.0)
    try:
        scope.configure(settings)
        scope.arm()
        io = server.host_io("write", 32768, 4096 * 256)
        assert io["triggered"], io
        scope.wait(timeout_s=2.0)
        return scope.fetch()
    finally:
        scope.close()


def test_pymeasure_infiniivision_reads_what_charz_fetched():
    with MockScopeServer(SawtoothSource(), dialect="keysight") as server:
        record = charz_capture(server, width=1)
        dso = pymeasure_keysight.KeysightDSOX1102G(
            server.resource, visa_library="@py", read_termination="\n", write_termination="\n")
        try:
            dso.waveform_source = "channel1"
            pre = dso.waveform_preamble
            data = np.asarray(dso.waveform_data, dtype=np.float64)  # sets ASCii itself
            pre_ascii = dso.waveform_preamble
            errors = dso.ask(":SYSTem:ERRor?")
        finally:
            dso.adapter.close()
    assert pre["format"] == "BYTE" and pre_ascii["format"] == "ASCII"
    assert pre["points"] == pre_ascii["points"] == record.n_samples == len(data)
    assert pre["xincrement"] == pytest.approx(record.sample_interval_s, rel=1e-9)
    assert pre["xorigin"] == pytest.approx(record.t_first_s, rel=1e-9, abs=1e-15)
    assert pre["yincrement"] == pytest.approx(record.y_mult, rel=1e-9)
    assert pre["yorigin"] == pytest.approx(record.y_zero, rel=1e-9, abs=1e-15)
    # The ASCii values carry 7 significant digits: equal to charz's scaled codes to that.
    values = record.values()
    assert np.abs(data - values).max() <= 1e-6 * np.abs(values).max()
    assert len(set(record.codes.tolist())) > 100  # a sawtooth, not a constant
    assert errors.startswith("+0,")


def test_pymeasure_sees_an_unknown_header_in_the_error_queue(caplog):
    with MockScopeServer(SawtoothSource(), dialect="keysight") as server:
        dso = pymeasure_keysight.KeysightDSOX1102G(
            server.resource, visa_library="@py", read_termination="\n", write_termination="\n")
        try:
            dso.write(":BOGus:HEADer 1")  # a real scope stays silent and queues -113
            error = dso.ask(":SYSTem:ERRor?")
            # An unknown *query* is not answered either: the client times out, and its
            # own error path (check_errors: SYST:ERR? until 0, each entry logged) shows it.
            dso.adapter.connection.timeout = 300
            with pytest.raises(pyvisa.errors.VisaIOError) as info:
                dso.ask(":BOGus:QUERy?")
            assert info.value.error_code == pyvisa.constants.StatusCode.error_timeout
            dso.adapter.connection.timeout = 2000
            with caplog.at_level(logging.ERROR):
                errors = dso.check_errors()
            esr = int(dso.ask("*ESR?"))
        finally:
            dso.adapter.close()
    code, _, message = error.strip().partition(",")
    assert int(code) == -113 and "header" in message.lower()
    assert [int(e[0]) for e in errors] == [-113]
    assert any("-113" in r.getMessage() for r in caplog.records)
    assert esr == 0x20  # command error (bit 5): reading the queue does not clear the ESR


@pytest.fixture
def device_manager(tmp_path, monkeypatch):
    """tm_devices' DeviceManager is a process-wide singleton: one per test, closed after.

    STANDALONE keeps it off any VISA runtime but pyvisa-py; its log files go to tmp_path.
    """
    tm_devices = pytest.importorskip("tm_devices")
    monkeypatch.setenv("TM_OPTIONS", "STANDALONE")
    monkeypatch.chdir(tmp_path)
    dm = tm_devices.DeviceManager(verbose=False)
    dm.visa_library = "@py"
    try:
        yield dm
    finally:
        dm.remove_all_devices()
        dm.close()


@pytest.mark.parametrize("width", [1, 2])
def test_tm_devices_curve_query_reads_what_charz_fetched(device_manager, width):
    with MockScopeServer(SawtoothSource(), dialect="tek-mso5") as server:
        record = charz_capture(server, width=width)
        scope = device_manager.add_scope("127.0.0.1", connection_type="SOCKET", port=server.port)
        assert scope.model == "MSO54"
        codes = scope.curve_query(1)  # DATa:SOUrce:AVAILable?, set_and_check, ENC ASCII, CURVe?
        width_now = int(scope.query("DATa:WIDth?"))
        errors = scope.query("*ESR?")
    assert width_now == width and errors == "0"
    assert len(codes) == record.n_samples
    assert np.array_equal(np.asarray(codes), record.codes.astype(np.int64))
    assert len(set(record.codes.tolist())) > 100  # a sawtooth, not a constant


def test_tm_devices_sees_an_unknown_header_through_its_error_check(device_manager):
    with MockScopeServer(SawtoothSource(), dialect="tek-mso5") as server:
        scope = device_manager.add_scope("127.0.0.1", connection_type="SOCKET", port=server.port)
        scope.write("BOGus:HEADer 1")  # no reply; 113 queued, ESR bit 5 (command error)
        scope.visa_timeout = 300
        with pytest.raises(pyvisa.errors.Error, match="BOGus:QUERy"):
            scope.query("BOGus:QUERy?")  # an unknown query is not answered: a timeout
        scope.visa_timeout = 5000
        # tm_devices' own check (*ESR?, then :ALLEv?) fails with the scope's words.
        with pytest.raises(AssertionError, match="113"):
            scope.expect_esr(0)
        esr, messages = scope.get_errors()  # the queue is empty once read
    assert esr == 0 and messages == ('0,"No events to report - queue empty"',)


# ---------------------------------------------------------------- issue 24: what the clients ask

@pytest.mark.parametrize("dialect, driver", [("tek-dpo4000", "DPO4K"), ("tek-dpo2000", "MSO2KB"),
                                             ("tek-mdo", "MDO3K"), ("tek-mso5", "MSO5")])
def test_tm_devices_connects_to_each_family_without_a_timeout(device_manager, dialect, driver):
    with MockScopeServer(SawtoothSource(), dialect=dialect) as server:
        scope = device_manager.add_scope("127.0.0.1", connection_type="SOCKET", port=server.port)
        scope.visa_timeout = 1000     # a query the mock left unanswered would raise, not pass
        assert type(scope).__name__ == driver
        if driver != "MSO2KB":        # tm_devices' 2000-series driver takes the host from the address
            assert scope.hostname.split()[-1] == "charz-mock"
        if driver == "MSO5":          # the 4/5/6 Series driver's own connection queries
            assert scope.channel["CH1"].probe.probetype == "ANALOG"
            assert scope.license_list == () and scope.usb_drives == ()
        esr = scope.query("*ESR?")
    assert esr.split()[-1] == "0"


def test_pymeasure_tds2000_measurement_reads_the_record_charz_fetched():
    from pymeasure.instruments.tektronix import TDS2000

    with MockScopeServer(SawtoothSource(), dialect="tek") as server:
        record = charz_capture(server, width=1)
        tds = TDS2000(server.resource, visa_library="@py", read_termination="\n", write_termination="\n",
                      timeout=2000)
        try:
            tds.write("HEADer OFF")       # a TDS answers with headers after power-on, as the manual says
            tds.measurement.source = "CH1"
            got = {}
            for kind in ("MEAN", "MAXI", "MINI", "PK2"):
                tds.measurement.type = kind
                got[kind] = tds.measurement.value[0]
            unit = tds.measurement.unit
            tds.measurement.type = "PHA"
            phase = tds.measurement.value[0]
        finally:
            tds.adapter.close()
    v = record.values()
    step = record.y_mult
    assert got["MEAN"] == pytest.approx(v.mean(), abs=step)
    assert got["MAXI"] == pytest.approx(v.max(), abs=step) and got["MINI"] == pytest.approx(v.min(), abs=step)
    assert got["PK2"] == pytest.approx(np.ptp(v), abs=2 * step) and got["PK2"] > 100 * step
    assert unit == '"A"' and phase == 9.9e37    # no second source: the manuals' "no measurement"


def test_qcodes_tps2012_connects_and_reads_one_waveform():
    """QCoDeS' TPS2012 driver (its own WFMPre? order, RPBinary width 2, WAVFrm?) on the
    TPS2000 dialect; the samples against the source's own closed form."""
    qcodes_tek = pytest.importorskip("qcodes.instrument_drivers.tektronix")
    source = SawtoothSource()
    with MockScopeServer(source, dialect="tek-tps2000") as server:
        tps = qcodes_tek.TektronixTPS2012("tps", server.resource, visalib="@py", timeout=3, terminator="\n")
        try:
            # The driver is written for GPIB/USB, where EOI ends a message and the LF stays in
            # it (the driver cuts it off itself): over a socket, end reads at LF and keep it.
            tps.visa_handle.read_termination = None
            tps.visa_handle.set_visa_attribute(pyvisa.constants.VI_ATTR_TERMCHAR_EN, True)
            tps.write("HEADer OFF")   # the driver parses bare replies; the scope starts with headers
            tps.write("CH1:SCAle 0.1;POSition -3")
            tps.horizontal_scale(1e-4)
            tps.trigger_source("CH1")
            tps.trigger_level(0.35)
            tps.write("TRIGger:MAIn:MODe NORMal;:ACQuire:STOPAfter SEQuence;:ACQuire:STATE RUN")
            assert tps.ask("TRIGger:STATE?").strip() == "READY"
            io = server.host_io("write", 32768, 0)
            assert io["triggered"]
            assert tps.ask("*OPC?").strip() == "1"
            tps.ch1.curvedata.prepare_curvedata()
            amps = np.asarray(tps.ch1.curvedata.get())
            pre = tps.ch1.curvedata._preambleparser(tps.ask("WFMPre?").strip())
            esr = tps.ask("*ESR?").strip()
        finally:
            tps.close()
    assert pre["no_of_points"] == amps.size == 2500 and pre["x_incr"] == 4e-7
    expected = source.current_a(io["trigger_s"] + pre["x_zero"], pre["x_incr"], 2500)
    assert np.abs(amps - expected).max() <= 0.1 / 25 / 2 + 1e-12      # half an 8-bit step
    assert np.ptp(amps) > 0.4 and esr == "0"


def test_qcodes_dpo7000xx_connects_and_reads_one_waveform():
    """QCoDeS' DPO7000xx driver (MSO/DPO5000, DPO7000, DPO70000) on the DPO7000 dialect:
    its connection queries (HORizontal:MAIn:UNIts?, every channel's units), its manual
    horizontal mode and one binary CURVE?; the samples against the source's closed form."""
    dpo7200xx = pytest.importorskip("qcodes.instrument_drivers.tektronix.DPO7200xx")
    source = SawtoothSource()
    with MockScopeServer(source, dialect="tek-dpo7000") as server:
        dpo = dpo7200xx.TektronixDPO7000xx("dpo", server.resource, visalib="@py", timeout=2)
        try:
            # It connected to a scope answering with headers (the power-on state); its value
            # parsers read bare numbers, so a user turns them off, as on the real scope.
            assert dpo.ask("HEADer?") == ":HEADER 1"
            dpo.write("HEADer OFF")
            assert dpo.ask("*ESR?") == "0"                   # nothing it asked was undefined
            ch = dpo.channel1
            dpo.write("CH1:SCAle 0.1;POSition -3")
            dpo.horizontal.mode("manual")
            dpo.horizontal.record_length(10_000)
            dpo.horizontal.sample_rate(5e5)
            dpo.write("TRIGger:A:EDGE:SOUrce CH1;:TRIGger:A:LEVel:CH1 0.35;:TRIGger:A:MODe NORMal")
            dpo.write("ACQuire:STOPAfter SEQuence;:ACQuire:STATE RUN")
            assert dpo.ask("TRIGger:STATE?") == "READY"
            io = server.host_io("write", 32768, 0)
            assert io["triggered"] and dpo.ask("*OPC?") == "1"
            dpo.write("DATa:ENCdg RIBinary;:DATa:WIDth 2")
            amps = np.asarray(ch.waveform.trace())
            xincr, n = ch.waveform.x_increment(), ch.waveform.length()
            xzero = float(dpo.ask("WFMOutpre:XZEro?"))
            esr = dpo.ask("*ESR?")
        finally:
            dpo.close()
    assert n == amps.size == 10_000 and xincr == 2e-6
    expected = source.current_a(io["trigger_s"] + xzero, xincr, n)
    assert np.abs(amps - expected).max() <= 0.1 / 25 / 2 + 1e-12      # half an 8-bit step
    assert np.ptp(amps) > 0.4 and esr == "0"


def test_qcodes_connects_to_charz_mock_scope_run_from_the_shell():
    # The same dialect through the command a user runs (`charz mock-scope --dialect …`),
    # not the in-process server: the client connects and every connection query is answered.
    import signal
    import subprocess
    import sys

    dpo7200xx = pytest.importorskip("qcodes.instrument_drivers.tektronix.DPO7200xx")
    proc = subprocess.Popen([sys.executable, "-m", "charz", "mock-scope", "--dialect", "tek-dpo7000", "--preset", "pulse"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = [proc.stdout.readline() for _ in range(2)]
        assert banner[0].startswith("mock scope tek-dpo7000 (tek_dpo7000)")
        dpo = dpo7200xx.TektronixDPO7000xx("dpo_shell", banner[1].split()[1], visalib="@py", timeout=2)
        try:
            idn = dpo.IDN()
            unit = dpo.horizontal.unit()
            esr = dpo.ask("*ESR?")
        finally:
            dpo.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    assert idn["model"] == "DPO7254C" and unit.endswith("s") and esr.split()[-1] == "0"

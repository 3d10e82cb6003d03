"""charz's real drivers over real pyvisa-py sockets against the mock scope.

Each capture is compared with the source's own current at the same instants: the
scaled record must match within one ADC step (noise-free source).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from charz.scope import KeysightInfiniiVision, ScopeSettings, TekDPO, TekMSO, open_scope
from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeServer

pytestmark = pytest.mark.system


def capture(server: MockScopeServer, settings: ScopeSettings, *, headers: bool = True):
    scope = open_scope(server.resource, timeout_s=2.0, headers=headers)
    try:
        scope.configure(settings)
        scope.arm()
        io = server.host_io("write", 32768, 4096 * 256)
        assert io["triggered"], io
        scope.wait(timeout_s=2.0)
        return scope, scope.fetch(), io
    finally:
        scope.close()


def check_against_source(record, source, io, settings, adc_codes_per_div: float = 25.0) -> None:
    expected = source.current_a(io["trigger_s"] + record.t_first_s, record.sample_interval_s, record.n_samples)
    step = settings.vertical_scale / adc_codes_per_div
    error = np.abs(record.values() - expected)
    assert error.max() <= step * (1 + 1e-9), error.max() / step
    assert record.n_samples == settings.record_length
    assert record.sample_interval_s == pytest.approx(settings.sample_interval_s, rel=1e-9)
    assert record.t_first_s == pytest.approx(-settings.pretrigger_fraction * settings.window_s, rel=1e-6)
    assert record.unit == "A" and not record.clipped


@pytest.mark.parametrize("n, width, headers", [
    (10_000, 1, True), (10_000, 2, True), (10_000, 1, False), (10_000, 2, False),
    (1_000_000, 2, True), (1_000_000, 1, False),
])
def test_tek_records_match_the_source(n, width, headers):
    source = SawtoothSource()
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=n,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=width)
    with MockScopeServer(source, dialect="tek") as server:
        t0 = time.monotonic()
        scope, record, io = capture(server, settings, headers=headers)
        elapsed = time.monotonic() - t0
    assert type(scope) is TekDPO
    assert record.codes.dtype == (np.int8 if width == 1 else np.int16)
    check_against_source(record, source, io, settings)
    assert b"\n" in record.codes.tobytes()  # the block carried LF bytes (as they travelled: LSB first)
    assert record.description.startswith("Ch1, DC coupling, 100.0mA/div")
    assert record.preamble.startswith(":WFMOUTPRE:BYT_NR" if headers else f"{width};{8 * width};BIN")
    assert elapsed < 10


@pytest.mark.parametrize("dialect, cls, width, headers", [
    ("tek-mdo", TekDPO, 2, False), ("tek-mso5", TekMSO, 2, True), ("tek-mso5", TekMSO, 1, False),
    ("keysight", KeysightInfiniiVision, 2, True), ("keysight", KeysightInfiniiVision, 1, True),
])
def test_other_families_match_the_source(dialect, cls, width, headers):
    source = SawtoothSource()
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=width)
    with MockScopeServer(source, dialect=dialect) as server:
        scope, record, io = capture(server, settings, headers=headers)
    assert type(scope) is cls
    # The 5 Series' 12-bit ADC shows 16 times finer steps in 16-bit transfers.
    cpd = {"tek-mso5": 400.0 if width == 2 else 25.0, "keysight": 32.0}.get(dialect, 25.0)
    check_against_source(record, source, io, settings, adc_codes_per_div=cpd)


def test_several_captures_in_one_session_and_sequential_clients():
    source = SawtoothSource()
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                             sample_interval_s=2e-6, trigger_level=0.35)
    with MockScopeServer(source) as server:
        for _client in range(2):
            scope = open_scope(server.resource, timeout_s=2.0)
            scope.configure(settings)
            for size in (4096, 65536):
                scope.arm()
                io = server.host_io("write", size, 0)
                scope.wait(2.0)
                check_against_source(scope.fetch(), source, io, settings)
            assert scope.errors() == ()
            scope.close()
    assert len(source.ios) == 4


def test_slow_acquisitions_are_waited_for_in_real_time():
    source = SawtoothSource()
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=100_000,
                             sample_interval_s=2e-6, trigger_level=0.35)  # a 0.2 s record
    with MockScopeServer(source, time_scale=1.0) as server:
        scope = open_scope(server.resource, timeout_s=2.0)
        scope.configure(settings)
        scope.arm()  # returns once the 20 ms pre-trigger part is filled (ARMED -> READY)
        io = server.host_io("write", 32768, 0)
        waited = scope.wait(2.0)
        assert 0.15 < waited < 1.0  # the 180 ms after the trigger
        check_against_source(scope.fetch(), source, io, settings)
        scope.close()


@pytest.mark.parametrize("dialect", ["tek", "keysight"])
def test_realtime_charges_what_the_modelled_scope_costs(dialect):
    # instruments/<model>.toml [timing]: arming, processing, per-query latency and the
    # link's rate, on top of the record window; each step takes at least its share.
    source = SawtoothSource()
    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=2)  # 20 ms
    with MockScopeServer(source, dialect=dialect, time_scale=1.0) as server:
        t = server.model.timing
        assert t.arm_s > 0 and t.processing_s > 0 and t.query_s > 0
        scope = open_scope(server.resource, timeout_s=2.0)
        scope.configure(settings)
        t0 = time.monotonic()
        scope.arm()
        armed_s = time.monotonic() - t0
        io = server.host_io("write", 32768, 0)
        waited_s = scope.wait(2.0)
        t0 = time.monotonic()
        record = scope.fetch()
        fetch_s = time.monotonic() - t0
        scope.close()
    window_s = settings.record_length * settings.sample_interval_s
    assert armed_s >= t.arm_s + settings.pretrigger_fraction * window_s
    assert waited_s >= t.processing_s + (1 - settings.pretrigger_fraction) * window_s - 0.005
    # One compound query: its units' latencies plus the block over the link.
    assert fetch_s >= 3 * t.query_s + t.transfer_s(record.codes.nbytes)
    check_against_source(record, source, io, settings)


@pytest.mark.parametrize("dialect, msb_first, lsb_first", [
    ("tek", "HEADer OFF;:DATa:ENCdg RIBinary", "HEADer OFF;:DATa:ENCdg SRIbinary"),
    ("keysight", ":WAVeform:BYTeorder MSBFirst", ":WAVeform:BYTeorder LSBFirst"),
])
def test_both_byte_orders_carry_the_same_record(dialect, msb_first, lsb_first):
    # charz asks for LSB first; scopes default to MSB first.  Both orders, read through
    # pyvisa-py with the matching flag, must give the record the driver fetched.
    from charz.scope import PyVisaTransport

    settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=2)
    query = "CURVe?" if dialect == "tek" else ":WAVeform:DATA?"
    with MockScopeServer(SawtoothSource(), dialect=dialect) as server:
        _, record, _ = capture(server, settings)
        transport = PyVisaTransport.open(server.resource, timeout_s=2.0)
        try:
            transport.write(msb_first)
            big = transport.query_binary(query, datatype="h", big_endian=True)
            transport.write(lsb_first)
            little = transport.query_binary(query, datatype="h", big_endian=False)
        finally:
            transport.close()
    assert np.array_equal(big, record.codes) and np.array_equal(little, record.codes)
    assert len(set(record.codes.tolist())) > 100  # a sawtooth, not a constant both orders agree on


@pytest.mark.parametrize("width", [1, 2])
def test_newline_bytes_in_the_data_do_not_split_the_block_read(width):
    """A termchar read ends at every 0x0A byte, and pyvisa-py copies its pending buffer each
    time (query_binary_values crawled 1000x slower on a trace at ADC code 10).  charz reads
    the announced byte count instead: a handful of VISA reads, however many LF bytes."""
    from charz.scope import PyVisaTransport

    source = SawtoothSource()
    # 0.1 A idle at 0.25 A/div and 25 codes/div, position 0: the idle trace sits at ADC code 10.
    settings = ScopeSettings(vertical_scale=0.25, vertical_position_div=0.0, record_length=100_000,
                             sample_interval_s=2e-6, trigger_level=0.35, width_bytes=width)
    with MockScopeServer(source, dialect="tek") as server:
        transport = PyVisaTransport.open(server.resource, timeout_s=2.0)
        lib = transport._inst.visalib
        reads = []
        real_read = lib.read

        def counting_read(session, count):
            reads.append(count)
            return real_read(session, count)

        scope = open_scope(server.resource, timeout_s=2.0, transport=transport)
        try:
            scope.configure(settings)
            scope.arm()
            io = server.host_io("write", 32768, 4096 * 256)
            scope.wait(timeout_s=2.0)
            lib.read = counting_read
            record = scope.fetch()
        finally:
            lib.read = real_read
            scope.close()
    check_against_source(record, source, io, settings)
    lf = record.codes.tobytes().count(b"\n")
    assert lf > settings.record_length / 2, "the idle trace must put LF bytes all through the block"
    n_bytes = settings.record_length * width
    # The preamble, the acquisition count and *ESR? are a few reads; the block is its header
    # read plus one per chunk.
    assert len(reads) <= 8 + n_bytes // transport.chunk_bytes + 1, (len(reads), lf)

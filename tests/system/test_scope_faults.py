"""Every fault the mock can inject, through the real driver and pyvisa-py: a clear error
(or one bounded retry), within a time bound, and never a silently wrong record."""

from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np
import pytest

from charz.errors import (
    ClippedWaveform,
    ScopeConnectionError,
    ScopeInstrumentError,
    ScopeProtocolError,
    ScopeTimeout,
    ScopeTransferError,
    TriggerTimeout,
)
from charz.scope import ScopeSettings, TekDPO, open_scope
from charz.sim._scpi_demo import SawtoothSource
from charz.sim.scope_server import MockScopeControl, MockScopeServer

pytestmark = pytest.mark.system

IO_TIMEOUT_S = 1.0
SETTINGS = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=10_000,
                         sample_interval_s=2e-6, trigger_level=0.35, width_bytes=2)


@contextmanager
def bench(dialect: str = "tek", headers: bool = True, configure: bool = True, **server_kw):
    source = SawtoothSource()
    with MockScopeServer(source, dialect=dialect, **server_kw) as server:
        scope = open_scope(server.resource, timeout_s=IO_TIMEOUT_S, headers=headers)
        try:
            if configure:
                scope.configure(SETTINGS)
            yield server, scope, source
        finally:
            scope.close()


def acquire(server, scope) -> dict:
    scope.arm()
    io = server.host_io("write", 32768, 0)
    scope.wait(timeout_s=2.0)
    return io


def assert_matches(record, source, io) -> None:
    expected = source.current_a(io["trigger_s"] + record.t_first_s, record.sample_interval_s, record.n_samples)
    assert np.abs(record.values() - expected).max() <= 0.1 / 25 + 1e-12


@contextmanager
def within(seconds: float):
    t0 = time.monotonic()
    yield
    assert time.monotonic() - t0 < seconds, f"took {time.monotonic() - t0:.2f} s"


def test_connection_dropped_mid_block():
    with bench() as (server, scope, _):
        acquire(server, scope)
        server.add_fault("drop_mid_block")
        with within(IO_TIMEOUT_S + 1.5), pytest.raises(ScopeConnectionError, match="closed the connection"):
            scope.fetch()


def test_no_reply_times_out_then_the_next_call_resynchronises():
    with bench() as (server, scope, source):
        io = acquire(server, scope)
        server.add_fault({"kind": "no_reply", "match": "WFMO"})
        with within(IO_TIMEOUT_S + 0.5), pytest.raises(ScopeTimeout) as info:
            scope.fetch()
        assert info.value.code == -1073807339  # VI_ERROR_TMO kept
        assert_matches(scope.fetch(), source, io)


@pytest.mark.parametrize("kind", ["truncated_block", "long_block"])
def test_a_damaged_block_is_fetched_once_more(kind):
    with bench() as (server, scope, source):
        io = acquire(server, scope)
        server.add_fault(kind)
        with within(2 * IO_TIMEOUT_S + 1.0):
            record = scope.fetch()
        assert_matches(record, source, io)
        assert server.faults.active() == []


@pytest.mark.parametrize("kind, words", [("truncated_block", "damaged twice"),
                                         ("long_block", "longer than announced")])
def test_a_block_damaged_twice_is_an_error(kind, words):
    with bench() as (server, scope, _):
        acquire(server, scope)
        server.add_fault({"kind": kind, "count": 2})
        with within(3 * IO_TIMEOUT_S + 1.5), pytest.raises(ScopeTransferError, match=words):
            scope.fetch()


def test_the_record_is_not_fetched_again_after_a_new_acquisition():
    with bench() as (server, scope, _):
        acquire(server, scope)
        server.add_fault("truncated_block")
        resync = scope._resync

        def resync_while_the_scope_acquires_again():
            resync()
            with server.lock:  # someone armed and the drive drew current meanwhile
                server.dialect.run_line("ACQuire:STATE RUN")
            server.host_io("write", 32768, 0)

        scope._resync = resync_while_the_scope_acquires_again
        with pytest.raises(ScopeTransferError, match="acquired again") as info:
            scope.fetch()
        assert info.value.code == "record-lost"


@pytest.mark.parametrize("headers", [True, False])
@pytest.mark.parametrize("mode", ["garbage", "missing"])
def test_bad_preamble_is_a_protocol_error(headers, mode):
    with bench(headers=headers) as (server, scope, _):
        acquire(server, scope)
        server.add_fault({"kind": "bad_preamble", "mode": mode})
        with within(1.0), pytest.raises(ScopeProtocolError, match="YMULT|layout"):
            scope.fetch()


def test_error_queue_entries_fail_configure_with_their_code():
    with bench(configure=False) as (server, scope, _):
        server.add_fault({"kind": "error_queue", "code": 221, "message": "Settings conflict",
                          "match": "HORizontal"})
        with within(1.0), pytest.raises(ScopeInstrumentError, match="221 Settings conflict") as info:
            scope.configure(SETTINGS)
        assert info.value.code == 221
        scope.configure(SETTINGS)  # the queue was drained


def test_over_range_is_clipped_like_an_adc_and_refused():
    with bench() as (server, scope, _):
        server.add_fault({"kind": "over_range", "gain": 50.0})
        acquire(server, scope)
        with pytest.raises(ClippedWaveform, match="ADC limits") as info:
            scope.fetch()
        assert "raise the vertical scale" in info.value.hint
        record = scope.fetch(max_clipped_fraction=1.0)
        assert record.clipped and record.codes.max() == 127 << 8


def test_a_trigger_that_never_fires_times_out_on_time():
    with bench() as (server, scope, _):
        scope.arm()
        server.add_fault("no_trigger")
        assert server.host_io("write", 32768, 0)["triggered"] is False
        with within(1.0 + 0.5), pytest.raises(TriggerTimeout, match="no trigger within 1 s"):
            scope.wait(timeout_s=1.0)
        assert server.engine.trigger_state() == "SAVE"  # the driver stopped the sequence


def test_very_slow_replies_within_and_beyond_the_timeout():
    with bench() as (server, scope, source):
        io = acquire(server, scope)
        server.add_fault({"kind": "slow", "delay_s": 0.3})  # a fetch is one reply
        assert_matches(scope.fetch(), source, io)  # slower, still inside the timeout
        assert server.faults.active() == []
        server.add_fault({"kind": "slow", "delay_s": 1.6})
        with within(IO_TIMEOUT_S + 0.5), pytest.raises(ScopeTimeout):
            scope.fetch()
        time.sleep(0.8)  # the late reply arrives; the next call lines replies up again
        assert_matches(scope.fetch(), source, io)


def test_wrong_idn_is_refused():
    with MockScopeServer(SawtoothSource(), faults=["wrong_idn"]) as server:
        with within(1.0), pytest.raises(ScopeProtocolError, match="no charz driver for RIGOL"):
            open_scope(server.resource, timeout_s=IO_TIMEOUT_S)
    with MockScopeServer(SawtoothSource(), dialect="keysight") as server:
        with pytest.raises(ScopeProtocolError, match="does not drive"):
            TekDPO(io_timeout_s=IO_TIMEOUT_S).connect(server.resource)


def test_a_reply_to_the_wrong_query_is_never_taken_as_a_value():
    with bench(configure=False) as (server, scope, _):
        server.add_fault({"kind": "stale_reply", "match": "HORizontal:RECO"})
        with within(1.0), pytest.raises(ScopeProtocolError, match="another query"):
            scope.configure(SETTINGS)
        scope.configure(SETTINGS)
    with bench(headers=False, configure=False) as (server, scope, _):
        server.add_fault({"kind": "stale_reply", "match": "HORizontal:RECO"})
        with pytest.raises(ScopeInstrumentError, match="record length is 500000"):
            scope.configure(SETTINGS)  # without headers the value check catches it


@pytest.mark.parametrize("power_cycle", [False, True])
def test_a_reset_mid_session_is_noticed(power_cycle):
    with bench() as (server, scope, _):
        server.add_fault({"kind": "reset", "power_cycle": power_cycle})
        scope.arm()  # the reset lands on the arm command: factory settings, AUTO trigger
        server.host_io("write", 32768, 0)
        with within(3.0), pytest.raises(ScopeInstrumentError) as info:
            scope.wait(timeout_s=2.0)
            scope.fetch()
        assert info.value.code == "settings-changed"


def test_faults_over_the_control_channel_and_on_keysight():
    with bench(dialect="keysight") as (server, scope, source):
        with MockScopeControl(server.control_port) as ctl:
            assert ctl.fault("error_queue", code=-221, message="Settings conflict")["faults"] == ["error_queue"]
            with pytest.raises(ScopeInstrumentError, match="-221"):
                scope.configure(SETTINGS)
            scope.configure(SETTINGS)
            scope.arm()
            io = ctl.io("write", 32768, 0)
            scope.wait(2.0)
            ctl.fault("truncated_block")
            record = scope.fetch()
            assert ctl.status()["faults"] == []
            with pytest.raises(ValueError, match="unknown fault kind"):
                ctl.fault("gremlins")
    expected = source.current_a(io["trigger_s"] + record.t_first_s, record.sample_interval_s, record.n_samples)
    assert np.abs(record.values() - expected).max() <= 0.1 / 32 + 1e-9

"""Bench mode's current averaging through charz's real scope drivers and pyvisa-py, against the mock scope.

The mock's drive is idle here (nobody tells it of fio's writes), so the mean is its idle
current; what is tested is the plumbing: configure, arm, force, wait, fetch, scale, and the
worker thread that runs a section while the scope keeps acquiring.
"""

from __future__ import annotations

import time

import pytest

from charz.scope import open_scope
from charz.sim import SimulatedBench, load_preset
from charz.sim.scope_server import MockScopeServer
from charz.validate import average_current, averaging_settings, measure_section

pytestmark = pytest.mark.system


@pytest.mark.parametrize("dialect", ["tek", "keysight"])
def test_mean_current_over_the_real_driver(dialect):
    model = load_preset("qpro")
    with MockScopeServer(SimulatedBench(model, seed=1), dialect=dialect) as server, \
            open_scope(server.resource) as scope:
        avg = average_current(scope, averaging_settings(), running=lambda: True, max_records=3)
    assert avg.records == 3 and avg.discarded == 0 and avg.window_s == 1.0
    # 2-byte codes at 0.2 A/div: the idle drive's 100 mA comes back within noise and one code
    assert avg.mean_a == pytest.approx(model.currents.idle_a, abs=2e-3)


def test_a_section_in_real_time_uses_only_records_inside_it():
    # time_scale 1: each 1000-point record at 100 µs takes 0.1 s, as on a real scope
    settings = averaging_settings(record_length=1000, sample_interval_s=1e-4)
    with MockScopeServer(SimulatedBench(load_preset("mxp")), time_scale=1.0) as server, \
            open_scope(server.resource) as scope:
        t0 = time.monotonic()
        value, avg = measure_section(scope, settings, lambda: (time.sleep(0.55), "fio's job")[1])
        elapsed = time.monotonic() - t0
    assert value == "fio's job"
    assert 3 <= avg.records <= 5 and avg.discarded <= 1
    assert avg.mean_a == pytest.approx(load_preset("mxp").currents.idle_a, abs=2e-3)
    assert elapsed < 2.0


def test_a_failing_section_reports_fio_s_error_after_the_scope_stops():
    from charz.errors import WorkloadError

    def fio_fails():
        time.sleep(0.1)
        raise WorkloadError("fio exited with status 1")

    with MockScopeServer(SimulatedBench(load_preset("qpro"))) as server, open_scope(server.resource) as scope:
        with pytest.raises(WorkloadError, match="status 1"):
            measure_section(scope, averaging_settings(record_length=1000), fio_fails)

"""Real and mock benches as two types, stored the way archives have always held them.

The stored sections below were written by charz before the two types existed (commit
8588f61: a ``charz characterize --mock`` session.json, and a real bench's ``to_dict``):
they must still read, and a bench must store itself the same way again."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest

from charz.errors import UsageError
from charz.session import MockBench, RealBench, bench_from_dict
from charz.session._bench import STORED_ORDER

pytestmark = pytest.mark.unit

# session.json's "bench" of `charz characterize --mock --preset mxp`, with what the session adds.
STORED_MOCK = json.loads(
    '{"kind": "mock", "target": "scratch.bin", "target_is_scratch": true, "scope_resource": null, '
    '"visa_library": "@py", "channel": "CH1", "rail_v": 5.0, "rail_v_origin": "assumed: 5 V SATA rail, '
    'as 003 multiplies by 5 V", "write_sample_interval_s": 2e-06, "read_sample_interval_s": 4e-06, '
    '"record_length": 10000, "pretrigger_fraction": 0.1, "trigger_timeout_s": 2.0, "preset": "mxp", '
    '"seed": 0, "standby": true, "write_cache": false, "dialect": "tek", "mock_faults": [], '
    '"mock_time_scale": 0.0}')
SESSION_ADDS = {"scope": "TEKTRONIX,DPO3014,C010101,CF:91.1CT FV:v2.14", "autoset": {"vertical_scale_a_per_div": 0.1},
                "initializations": [], "changes": []}
STORED_REAL = json.loads(
    '{"kind": "real", "target": "/dev/sdb", "target_is_scratch": false, "scope_resource": '
    '"TCPIP::192.168.1.20::4000::SOCKET", "visa_library": "@py", "channel": "CH2", "rail_v": 12.0, '
    '"rail_v_origin": "given on the command line", "write_sample_interval_s": 2e-06, '
    '"read_sample_interval_s": 4e-06, "record_length": 10000, "pretrigger_fraction": 0.1, '
    '"trigger_timeout_s": 2.0, "preset": null, "seed": 0, "standby": true, "write_cache": false, '
    '"dialect": "tek", "mock_faults": [], "mock_time_scale": 0.0}')


@pytest.mark.parametrize("stored, kind", [(STORED_MOCK, MockBench), (STORED_REAL, RealBench)])
def test_an_older_archives_bench_reads_and_is_stored_again_byte_for_byte(stored, kind):
    bench = bench_from_dict({**stored, **SESSION_ADDS})
    assert type(bench) is kind and bench.kind == stored["kind"]
    # same keys, same order, same values; the one key added since (--scope-timeout) comes in
    # at its default, after the trigger timeout
    again = bench.to_dict()
    assert again.pop("scope_timeout_s") == 2.0
    assert json.dumps(again) == json.dumps(stored)
    assert list(bench.to_dict()).index("scope_timeout_s") == list(stored).index("trigger_timeout_s") + 1


def test_each_bench_holds_only_its_own_fields():
    mock = bench_from_dict(STORED_MOCK)
    real = bench_from_dict(STORED_REAL)
    assert (mock.preset, mock.dialect, mock.mock_faults) == ("mxp", "tek", ())
    assert not hasattr(mock, "scope_resource")
    assert real.scope_resource == "TCPIP::192.168.1.20::4000::SOCKET" and real.rail_v == 12.0
    assert not any(hasattr(real, name) for name in ("preset", "seed", "dialect", "mock_faults", "write_cache"))


def test_a_mock_benchs_faults_round_trip_as_a_tuple_and_a_list():
    bench = replace(bench_from_dict(STORED_MOCK), mock_faults=("no_trigger:count=1",))
    assert bench.to_dict()["mock_faults"] == ["no_trigger:count=1"]
    assert bench_from_dict(bench.to_dict()) == bench


@pytest.mark.parametrize("change, message", [
    ({"kind": "lab"}, "bench kind must be 'mock' or 'real'"),
    ({"kind": None}, "malformed"),
    ({"scope_resource": None}, "a real bench needs a scope"),
    ({"target": None, "kind": "mock", "preset": "mxp"}, "malformed"),
])
def test_a_damaged_bench_section_is_a_usage_error_that_says_what(change, message):
    stored = {k: v for k, v in {**STORED_REAL, **change}.items() if v is not None}
    with pytest.raises(UsageError, match=message):
        bench_from_dict(stored)


def test_the_benches_refuse_what_they_cannot_run_with():
    with pytest.raises(UsageError, match="a mock bench needs a preset"):
        MockBench(target="x", preset="")
    with pytest.raises(UsageError, match="a real bench needs a scope"):
        RealBench(target="/dev/sdb", scope_resource="")


def test_every_field_of_both_benches_is_stored_once_and_nothing_else():
    # A field added to either bench but not to the stored order would be lost on resume.
    names = {f.name for cls in (RealBench, MockBench) for f in fields(cls)}
    assert sorted(STORED_ORDER) == sorted(names) and len(set(STORED_ORDER)) == len(STORED_ORDER)

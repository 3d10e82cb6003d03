"""Requests built and checked without a command line: ``charz characterize``'s and ``charz
resume``'s options as plain values in, a complete configuration or a UsageError out.

The expected sweeps are written from the option help ("one page to 160 KB in page steps",
"page steps to 160 KB and 512 KB"), not from charz's defaults functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from charz.errors import UsageError
from charz.session import CharacterizeRequest, DeviceOptions, MockBench, RealBench, ResumeRequest

pytestmark = pytest.mark.unit

SCOPE = "TCPIP::192.168.1.20::4000::SOCKET"
GIVEN = dict(channels=8, packages=16, page_size="4k")
KIB = 1024


def sheet(name: str) -> dict:
    """A preset's spec sheet as the simulator gives it (microseconds as *_us)."""
    assert name == "demo"
    return {"channels": 4, "packages": 8, "page_size_bytes": 8192, "t_prog_us": 900.0, "t_xfer_page_us": 82.0,
            "host_rate_bytes_per_s": 3e8, "dies_per_package": 2}  # the last is no spec-sheet value: dropped


def mock(tmp_path, **kw) -> CharacterizeRequest:
    return CharacterizeRequest.build(mock=True, preset="demo", out=tmp_path / "s", spec_sheet=sheet,
                                     dialects=("tek", "keysight"), **kw)


@pytest.mark.parametrize("kw, message, hint", [
    (dict(mock=True, scope=SCOPE), "choose the bench: --mock, or --scope RESOURCE with --device DEV",
     "try: charz characterize --mock --preset mxp"),
    (dict(), "choose the bench", "--mock --preset mxp"),
    (dict(scope=SCOPE), "a real bench needs --device", "e.g. /dev/sdb"),
    (dict(mock=True, dialect="rigol", dialects=("tek", "keysight")), "unknown mock dialect 'rigol'",
     "use one of tek, keysight"),
    (dict(mock=True, channels=8), "the analysis needs the drive's packages, page_size_bytes",
     "give --channels, --packages and --page-size"),
    (dict(scope=SCOPE, device="/dev/sdb", channels=100, packages=200, page_size="4k"),
     "given values: channels = 100 is out of range: accepted an integer 1 ... 64", "spec sheet"),
    (dict(scope=SCOPE, device="/dev/sdb", rail_v=0.1, **GIVEN), "rail_v = 0.1 is out of range", "volts"),
    (dict(scope=SCOPE, device="/dev/sdb", t_prog_us=1e6, **GIVEN), "t_prog_s = 1.0 is out of range", "µs"),
    (dict(scope=SCOPE, device="/dev/sdb", page_size="4q", channels=8, packages=16), "'4q' is not a size",
     "4k, 160k"),
    (dict(scope=SCOPE, device="/dev/sdb", sizes="160k:4k:4k", **GIVEN), "runs backwards", None),
    (dict(scope=SCOPE, device="/dev/sdb", repeats=0, **GIVEN), "repeats must be at least 1", None),
])
def test_what_cannot_run_is_refused_before_anything_exists(tmp_path, kw, message, hint):
    with pytest.raises(UsageError, match=message) as info:
        CharacterizeRequest.build(out=tmp_path / "s", **kw)
    assert info.value.exit_code == 2
    assert hint is None or hint in (info.value.hint or "")
    assert not (tmp_path / "s").exists()


def test_a_real_bench_request_is_complete_with_the_sweep_the_help_promises(tmp_path):
    r = CharacterizeRequest.build(scope=SCOPE, device="/dev/sdb", out=tmp_path / "s", erase="discard",
                                  confirm_serial="S123", channel="CH2", repeats=2, **GIVEN)
    assert isinstance(r.bench, RealBench)
    assert (r.bench.scope_resource, r.bench.target, r.bench.target_is_scratch, r.bench.channel) == \
        (SCOPE, "/dev/sdb", False, "CH2")
    assert r.given == {"channels": 8, "packages": 16, "page_size_bytes": 4096}
    assert r.plan.write_sizes == tuple(range(4 * KIB, 160 * KIB + 1, 4 * KIB))
    assert r.plan.read_sizes == tuple(range(4 * KIB, 160 * KIB + 1, 4 * KIB)) + (512 * KIB,)
    assert r.plan.repeats == 2
    assert r.device == DeviceOptions(erase="discard", confirm_serial="S123", allow_signatures=False, standby=True)
    assert (r.bench.rail_v, r.bench.rail_v_origin.startswith("assumed: 5 V")) == (5.0, True)
    assert r.analyze and r.out == tmp_path / "s"


def test_a_mock_request_takes_the_presets_sheet_and_the_callers_values_win(tmp_path):
    r = mock(tmp_path, packages=4, t_switch_us=33.0, rail_v=12.0, sizes="8k,32k", read_sizes="none",
             mock_faults=["no_trigger:count=1"], dialect="keysight", seed=7)
    assert isinstance(r.bench, MockBench)
    assert r.given == pytest.approx({"channels": 4, "packages": 4, "page_size_bytes": 8192, "t_prog_s": 900e-6,
                                     "t_xfer_page_s": 82e-6, "host_rate_bytes_per_s": 3e8, "t_switch_s": 33e-6})
    assert (r.plan.write_sizes, r.plan.read_sizes) == ((8 * KIB, 32 * KIB), ())
    b = r.bench
    assert (b.preset, b.seed, b.dialect, b.mock_faults) == ("demo", 7, "keysight", ("no_trigger:count=1",))
    assert (b.rail_v, b.rail_v_origin) == (12.0, "given on the command line")
    # no --device: O_DIRECT goes to a scratch file in the session directory (or --scratch)
    assert (b.target, b.target_is_scratch) == (str(tmp_path / "s" / "scratch.bin"), True)
    assert mock(tmp_path, scratch=tmp_path / "big" / "x.bin").bench.target == str(tmp_path / "big" / "x.bin")


def test_the_default_session_directory_is_named_after_the_drive_and_the_time():
    real = CharacterizeRequest.build(scope=SCOPE, device="/dev/sdb", **GIVEN)
    assert real.out.parent == Path("runs") and real.out.name.startswith("sdb-20")
    sim = CharacterizeRequest.build(mock=True, preset="demo", spec_sheet=sheet)
    assert sim.out.name.startswith("demo-20") and sim.bench.target == str(sim.out / "scratch.bin")


def test_a_resume_request_carries_only_what_changed():
    r = ResumeRequest.build("runs/x", scope=SCOPE, device=Path("/dev/sdc"), mock_faults=["stall"],
                            confirm_serial="S1", analyze=False)
    assert r.session == Path("runs/x") and r.device == DeviceOptions(confirm_serial="S1")
    assert dict(r.changes) == {"scope": SCOPE, "channel": None, "visa_library": None, "device": "/dev/sdc"}
    assert (r.mock_faults, r.scratch, r.analyze) == (("stall",), None, False)
    assert ResumeRequest.build("d", scratch="/tmp/s.bin").scratch == Path("/tmp/s.bin")

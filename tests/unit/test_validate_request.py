"""``charz validate``'s request built and checked without a command line, before any I/O."""

from __future__ import annotations

from pathlib import Path

import pytest

from charz.errors import ProfileError, UsageError
from charz.validate import BenchValidation, MockValidation, ValidateRequest

pytestmark = pytest.mark.unit

SCOPE = "TCPIP::192.168.1.20::4000::SOCKET"


@pytest.mark.parametrize("kw, message", [
    (dict(mock=True, device="/dev/null"), "choose the bench: --mock, or --device DEV with --scope RESOURCE"),
    (dict(), "choose the bench"),
    (dict(device="/dev/sdb"), "a bench needs both --device and --scope"),
    (dict(mock=True, file_size="1x"), "'1x' is not a size"),
    (dict(mock=True, record_sizes="4k,8k", file_size="12k"), "12288"),  # 8 KiB does not divide it
])
def test_what_cannot_run_is_refused_with_a_usage_error(kw, message):
    with pytest.raises(UsageError, match=message) as info:
        ValidateRequest.build(**kw)
    assert info.value.exit_code == 2


def test_the_bench_is_chosen_before_the_sizes_are_read():
    # both wrong: the bench is what the message names, as the command always said
    with pytest.raises(UsageError, match="choose the bench"):
        ValidateRequest.build(file_size="1x")


def test_a_mock_request_defaults_to_characterizes_preset_and_003s_sweep():
    r = ValidateRequest.build(mock=True, turnaround_us=5.0, seed=3, model_requests=100)
    assert r.mock and r.bench == MockValidation("mxp", None, pytest.approx(5e-6), 3, 100)
    assert r.record_sizes_bytes == (4096, 8192, 16384, 32768, 65536)  # 003 §6: 4 KB to 64 KB
    assert r.file_size_bytes == 128 * 2 ** 20  # 003 §6: 128 MB
    assert (r.rail.volts, r.rail.origin.startswith("assumed")) == (5.0, True)
    assert r.unit.value_bytes is None and r.profile is None


def test_a_bench_request_keeps_the_drive_settings_unless_asked_and_writes_beside_the_profile(tmp_path):
    r = ValidateRequest.build(device="/dev/sdb", scope=SCOPE, rail_v=12.0, channel="CH3", vertical_scale=0.5,
                              scope_points=500, scope_interval=2e-3, confirm_serial="S9")
    b = r.bench
    assert isinstance(b, BenchValidation) and not r.mock
    assert (b.device, b.scope_resource, b.confirm_serial, b.drive_settings) == ("/dev/sdb", SCOPE, "S9", True)
    assert (b.settings.channel, b.settings.vertical_scale, b.settings.record_length,
            b.settings.sample_interval_s) == ("CH3", 0.5, 500, 2e-3)
    assert b.output_dir == Path.cwd() and (r.rail.volts, r.rail.origin) == (12.0, "given on the command line")
    kept = ValidateRequest.build(device="/dev/sdb", scope=SCOPE, keep_drive_settings=True)
    assert kept.bench.drive_settings is False


def test_a_bad_profile_is_refused_at_build_time(tmp_path):
    bad = tmp_path / "p.toml"
    bad.write_text('schema = "charz.profile/1"\n[results]\nwrite_io_unit_bytes = "lots"\n')
    with pytest.raises(ProfileError, match="p.toml"):
        ValidateRequest.build(mock=True, profile=bad)

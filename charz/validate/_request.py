"""What ``charz validate`` is asked to do, built and checked from plain values before any I/O.

The command only parses its options and hands the values to :meth:`ValidateRequest.build`:
the bench is chosen (the mock, or a device with a scope), the record sizes checked against
the file size, the rail voltage given or assumed, and the profile read — all before fio or
the scope is touched, so a bad profile costs nothing.

Example
-------
>>> r = ValidateRequest.build(mock=True, record_sizes="8k,4k", file_size="1M")
>>> r.record_sizes_bytes, r.file_size_bytes, r.bench.preset, r.rail.volts, r.unit.value_bytes is None
((4096, 8192), 1048576, 'mxp', 5.0, True)
>>> ValidateRequest.build(scope="TCPIP::10.0.0.2::4000::SOCKET")
Traceback (most recent call last):
charz.errors.UsageError: a bench needs both --device and --scope
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from charz.errors import UsageError
from charz.scope import ScopeSettings
from charz.workload import parse_size, parse_sizes
from charz.validate._result import RailVoltage
from charz.validate._scope import averaging_settings
from charz.validate._sections import check_sweep
from charz.validate._unit import NO_PROFILE, MeasuredUnit, unit_from_profile

__all__ = ["BenchValidation", "MockValidation", "ValidateRequest"]

DEFAULT_PRESET = "mxp"  # charz characterize's


@dataclass(frozen=True)
class MockValidation:
    """The real fio on a scratch file, the drive's side from a simulated SSD's model."""

    preset: str
    scratch_dir: Path | None = None
    turnaround_s: float = 20e-6
    seed: int = 0
    max_requests: int | None = None


@dataclass(frozen=True)
class BenchValidation:
    """fio on the drive under test, its supply current averaged by the scope."""

    device: str
    scope_resource: str
    settings: ScopeSettings
    output_dir: Path  # where the guard keeps its notes: the profile's folder, else the working directory
    visa_library: str = "@auto"
    confirm_serial: str | None = None
    allow_signatures: bool = False
    drive_settings: bool = True  # 003 Table 3's settings for the run (restored afterwards)


def profile_preset(profile_data: Any) -> str | None:
    """The simulated drive a profile was made from (its provenance), so --profile alone suffices."""
    if not isinstance(profile_data, dict):
        return None
    prov = profile_data.get("provenance") or {}
    return prov.get("preset") if prov.get("bench_kind") in ("mock", "simulated") else None


def _read_unit(profile: Path | None) -> tuple[Any, MeasuredUnit]:
    from charz.profile import read_profile

    if profile is None:
        return None, NO_PROFILE
    data = read_profile(profile)
    return data, unit_from_profile(data, origin=str(profile))


@dataclass(frozen=True)
class ValidateRequest:
    """003 §6's record-size sweep on one bench, with the unit it is judged against."""

    bench: Union[MockValidation, BenchValidation]
    record_sizes_bytes: tuple[int, ...]
    file_size_bytes: int
    rail: RailVoltage
    unit: MeasuredUnit = NO_PROFILE
    profile: Path | None = None
    profile_data: Any = None  # the profile as read, to add the validation section to

    @property
    def mock(self) -> bool:
        return isinstance(self.bench, MockValidation)

    @classmethod
    def build(cls, *, mock: bool = False, preset: str | None = None, device: str | Path | None = None,
              scope: str | None = None, record_sizes: str = "4k,8k,16k,32k,64k", file_size: str = "128M",
              profile: str | Path | None = None, rail_v: float | None = None,
              scratch_dir: str | Path | None = None, turnaround_us: float = 20.0, seed: int = 0,
              model_requests: int | None = None, confirm_serial: str | None = None,
              allow_signatures: bool = False, keep_drive_settings: bool = False, channel: str = "CH1",
              visa_library: str = "@auto", vertical_scale: float = 0.2, scope_points: int = 1000,
              scope_interval: float = 1e-3) -> ValidateRequest:
        """Check and complete what ``charz validate`` was given (its options' values; sizes as
        written on the command line, ``"4k,8k"``, ``"128M"``)."""
        if mock == bool(device or scope):
            raise UsageError("choose the bench: --mock, or --device DEV with --scope RESOURCE",
                             hint="try: charz validate --mock --preset mxp")
        if not mock and not (device and scope):
            raise UsageError("a bench needs both --device and --scope",
                             hint="the drive under test and the scope that measures its supply current")
        file_size_bytes = parse_size(file_size)
        sizes = tuple(check_sweep(parse_sizes(record_sizes), file_size_bytes))
        rail = RailVoltage.from_option(rail_v)
        profile = Path(profile) if profile is not None else None
        profile_data, unit = _read_unit(profile)  # before any I/O: a bad profile costs nothing
        bench: Union[MockValidation, BenchValidation]
        if mock:
            bench = MockValidation(preset or profile_preset(profile_data) or DEFAULT_PRESET,
                                   Path(scratch_dir) if scratch_dir is not None else None,
                                   turnaround_us * 1e-6, seed, model_requests)
        else:
            settings = averaging_settings(channel=channel, vertical_scale_a=vertical_scale,
                                          record_length=scope_points, sample_interval_s=scope_interval)
            bench = BenchValidation(str(device), str(scope), settings,
                                    profile.parent if profile is not None else Path.cwd(), visa_library,
                                    confirm_serial, allow_signatures, not keep_drive_settings)
        return cls(bench, sizes, file_size_bytes, rail, unit, profile, profile_data)

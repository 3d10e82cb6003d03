"""What a session is asked to do, built and checked from plain values before anything starts.

``charz characterize`` and ``charz resume`` only parse their options and hand the values
to :meth:`CharacterizeRequest.build` / :meth:`ResumeRequest.build`; the checks, the
defaults and the configuration are here, testable without a command line:

* the bench: ``mock``, or a scope with a device; the mock's dialect;
* the drive's spec-sheet values: a preset's first, the caller's win; their ranges (the
  same the archive holds them to); the three the analysis cannot do without;
* the sweep (default sizes from the page size), the session directory and the target.

Every refusal is a :class:`~charz.errors.UsageError` saying what to give instead, raised
before the session directory exists.

Example
-------
>>> r = CharacterizeRequest.build(scope="TCPIP::10.0.0.2::4000::SOCKET", device="/dev/sdb",
...                               channels=8, packages=16, page_size="4k", out="runs/x")
>>> type(r.bench).__name__, r.bench.target, len(r.plan.write_sizes), r.given["page_size_bytes"]
('RealBench', '/dev/sdb', 40, 4096)
>>> CharacterizeRequest.build(mock=True, scope="TCPIP::10.0.0.2::4000::SOCKET")
Traceback (most recent call last):
charz.errors.UsageError: choose the bench: --mock, or --scope RESOURCE with --device DEV
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Not yet exported by charz.archive (whose __init__ another change is rewriting): the same
# import the CLI had.
from charz.archive._given import check_given, check_rail_v
from charz.errors import UsageError
from charz.session._bench import BenchConfig, MockBench, RealBench
from charz.session._plan import SweepPlan, build_sweep, default_read_sizes, default_write_sizes, parse_size, parse_sizes
from charz.session._session import SCRATCH_NAME, DeviceOptions, SessionResult, SessionUI, resume_session, start_session

__all__ = ["CharacterizeRequest", "ResumeRequest"]

#: What the analysis cannot do without, and where each comes from.
REQUIRED_GIVEN = ("channels", "packages", "page_size_bytes")


def _given(preset_given: Mapping[str, Any], **overrides: Any) -> dict[str, Any]:
    """Spec-sheet values in SI (as archives hold them): preset first, the caller's win."""
    given: dict[str, Any] = {}
    for key, value in preset_given.items():
        if key.endswith("_us"):
            given[key[:-3] + "_s"] = value * 1e-6
        elif key in ("channels", "packages", "page_size_bytes", "host_rate_bytes_per_s"):
            given[key] = value
    for key, value in overrides.items():
        if value is None:
            continue
        if key.endswith("_us"):
            given[key[:-3] + "_s"] = value * 1e-6
        else:
            given[key] = value
    return given


def _checked_given(given: dict[str, Any], rail_v: float) -> dict[str, Any]:
    try:  # the same ranges the archive holds them to, said before anything starts
        given = check_given(given, where="given values", prefix="")
        check_rail_v(rail_v, where="given values", field="rail_v")
    except ValueError as exc:
        raise UsageError(str(exc), hint="check the value against the spec sheet (units: bytes, µs, volts)") from None
    missing = [k for k in REQUIRED_GIVEN if k not in given]
    if missing:
        raise UsageError(f"the analysis needs the drive's {', '.join(missing)}",
                         hint="give --channels, --packages and --page-size from the spec sheet and the board")
    return given


def _sweep(page: int, sizes: str | None, read_sizes: str | None, repeats: int) -> SweepPlan:
    writes = parse_sizes(sizes) if sizes else default_write_sizes(page)
    reads = [] if read_sizes == "none" else (parse_sizes(read_sizes) if read_sizes else default_read_sizes(page))
    return build_sweep(writes, reads, repeats)


@dataclass(frozen=True)
class CharacterizeRequest:
    """A new characterization: where, on which bench, the sweep, the drive's given values.

    Build it with :meth:`build`; :meth:`start` runs it (:func:`start_session`).
    """

    out: Path
    bench: BenchConfig
    plan: SweepPlan
    given: dict[str, Any]
    device: DeviceOptions = DeviceOptions()
    analyze: bool = True

    @classmethod
    def build(cls, *, mock: bool = False, preset: str = "mxp", device: str | Path | None = None,
              scope: str | None = None, out: str | Path | None = None, scratch: str | Path | None = None,
              channels: int | None = None, packages: int | None = None, page_size: str | None = None,
              t_xfer_us: float | None = None, t_prog_us: float | None = None, t_switch_us: float | None = None,
              host_rate: float | None = None, sizes: str | None = None, read_sizes: str | None = None,
              repeats: int = 5, erase: str | None = None, confirm_serial: str | None = None,
              allow_signatures: bool = False, rail_v: float | None = None, channel: str = "CH1",
              visa_library: str = "@auto", record_length: int = 10_000, seed: int = 0, standby: bool = True,
              write_cache: bool = False, mock_faults: Iterable[str] = (), dialect: str = "tek",
              analyze: bool = True, spec_sheet: Callable[[str], Mapping[str, Any]] | None = None,
              dialects: Collection[str] | None = None) -> CharacterizeRequest:
        """Check and complete what ``charz characterize`` was given (its options' values).

        ``spec_sheet(preset)`` gives a mock preset's spec-sheet values (``microseconds`` as
        ``*_us``) and ``dialects`` the mock scope's dialects: the simulator's knowledge,
        passed in by the caller so the session never imports the simulator.  Sizes are
        text as on the command line (``"4k"``, ``"4k:160k:4k,512k"``; ``read_sizes="none"``).
        """
        if mock == bool(scope):
            raise UsageError("choose the bench: --mock, or --scope RESOURCE with --device DEV",
                             hint="try: charz characterize --mock --preset mxp")
        preset_given: Mapping[str, Any] = {}
        if mock:
            if dialects is not None and dialect not in dialects:  # said before the session directory exists
                raise UsageError(f"unknown mock dialect {dialect!r}", hint=f"use one of {', '.join(dialects)}")
            preset_given = spec_sheet(preset) if spec_sheet is not None else {}
        elif device is None:
            raise UsageError("a real bench needs --device",
                             hint="the whole-disk block device the probe measures, e.g. /dev/sdb")
        given = _given(preset_given, channels=channels, packages=packages,
                       page_size_bytes=parse_size(page_size) if page_size else None, t_xfer_page_us=t_xfer_us,
                       t_prog_us=t_prog_us, t_switch_us=t_switch_us, host_rate_bytes_per_s=host_rate)
        given = _checked_given(given, 5.0 if rail_v is None else rail_v)
        plan = _sweep(given["page_size_bytes"], sizes, read_sizes, repeats)
        name = preset if mock else Path(device).name  # type: ignore[arg-type]
        out = Path(out) if out is not None else Path("runs") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
        common: dict[str, Any] = dict(
            target=str(device) if device is not None else str(scratch or (out / SCRATCH_NAME)),
            target_is_scratch=device is None, visa_library=visa_library, channel=channel,
            rail_v=5.0 if rail_v is None else rail_v, record_length=record_length, standby=standby)
        if rail_v is not None:
            common["rail_v_origin"] = "given on the command line"
        bench: BenchConfig = (MockBench(**common, preset=preset, seed=seed, write_cache=write_cache,
                                        mock_faults=tuple(mock_faults), dialect=dialect) if mock
                              else RealBench(**common, scope_resource=scope))
        return cls(out, bench, plan, given, DeviceOptions(erase=erase, confirm_serial=confirm_serial,
                                                          allow_signatures=allow_signatures, standby=standby),
                   analyze)

    def start(self, ui: SessionUI, *, mock=None) -> SessionResult:  # noqa: ANN001
        """Run it; ``mock`` provides the mock bench (``charz.sim.mock_bench``) for a :class:`MockBench`."""
        return start_session(self.out, self.bench, self.plan, self.given, ui=ui, device=self.device,
                             analyze=self.analyze, mock=mock)


@dataclass(frozen=True)
class ResumeRequest:
    """Going on with an interrupted session, with what changed on the bench since.

    ``changes`` maps the bench settings a resume may change (scope, channel,
    visa_library, device) to their new values; each is checked against the session's
    bench and recorded when the session is opened (:func:`resume_session`).
    """

    session: Path
    device: DeviceOptions = DeviceOptions()
    analyze: bool = True
    mock_faults: tuple[str, ...] = ()
    changes: Mapping[str, str | None] = field(default_factory=dict)
    scratch: Path | None = None

    @classmethod
    def build(cls, session: str | Path, *, confirm_serial: str | None = None, analyze: bool = True,
              mock_faults: Iterable[str] = (), scope: str | None = None, channel: str | None = None,
              visa_library: str | None = None, device: str | Path | None = None,
              scratch: str | Path | None = None) -> ResumeRequest:
        """What ``charz resume`` was given (None: unchanged)."""
        changes = {"scope": scope, "channel": channel, "visa_library": visa_library,
                   "device": str(device) if device else None}
        return cls(Path(session), DeviceOptions(confirm_serial=confirm_serial), analyze, tuple(mock_faults),
                   changes, Path(scratch) if scratch is not None else None)

    def start(self, ui: SessionUI, *, mock=None) -> SessionResult:  # noqa: ANN001
        """Run it; ``mock`` provides the mock bench, used only if the session was recorded on one."""
        return resume_session(self.session, ui=ui, device=self.device, analyze=self.analyze, mock=mock,
                              mock_faults=self.mock_faults, changes=dict(self.changes), scratch=self.scratch)

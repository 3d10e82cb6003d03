"""A characterization session from start to profile, and its resumption.

    guard + claim the target → identify → confirm → initialize (003 Table 3)
      → open the bench → autoset the scope → run the plan into the archive
      → restore the drive → analyze → profile

Every stage writes what it did into the archive's ``session.json`` before the
next starts, so ``charz resume DIR`` can rebuild the bench, skip what is done
and go on.  A Ctrl-C (or any error) leaves the archive readable with every
completed capture, and the drive's settings restored.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Protocol

from charz import __version__
from charz.errors import UsageError
from charz.session._bench import MOCK, BenchConfig, open_bench
from charz.session._plan import MIB, SweepPlan

CALIBRATION_REGION_BYTES = 16 * MIB
SPARE_REGION_BYTES = 64 * MIB
SCRATCH_NAME = "scratch.bin"  # in OUT, when no --scratch is given


class SessionUI(Protocol):
    """How a session talks to its user (the CLI, or a test)."""

    def log(self, text: str) -> None: ...

    def confirm(self, text: str, token_name: str) -> str | None:
        """Show ``text`` and return what the user typed (None: no one to ask)."""

    def progress(self, total: int, done: int, description: str) -> contextlib.AbstractContextManager[Callable[[], None]]:
        """A context whose value is called once per finished step."""


@dataclass(frozen=True)
class DeviceOptions:
    erase: str | None = None  # discard | secure-erase | enhanced-secure-erase | format
    confirm_serial: str | None = None
    allow_signatures: bool = False
    standby: bool = True


@dataclass(frozen=True)
class SessionResult:
    out: Path
    stats: Any
    profile: dict | None
    profile_path: Path | None


def _span(plan: SweepPlan) -> tuple[int, int, int]:
    calibration = -(-plan.span_bytes // MIB) * MIB
    spare = calibration + CALIBRATION_REGION_BYTES
    return calibration, spare, spare + SPARE_REGION_BYTES


@contextlib.contextmanager
def _prepared_target(config: BenchConfig, out: Path, options: DeviceOptions, ui: SessionUI, *, expect_serial: str | None = None):
    """Yield (claim, drive metadata, initialization record) for the bench's O_DIRECT target."""
    if config.target_is_scratch:
        yield None, {"model": "scratch file", "serial": None, "path": config.target,
                     "note": "a file on the host's file system stands in for the drive's LBAs"}, {
            "device": config.target, "plan": "none: a scratch file has no drive settings", "applied": [], "skipped": []}
        return
    from charz.device import SubprocessRunner, claim_target, confirmation_for, identify, initialize, plan_initialization

    runner = SubprocessRunner()
    with claim_target(config.target, output_dir=out, allow_signatures=options.allow_signatures, runner=runner) as hold:
        ident = identify(hold.path, runner=runner)
        if expect_serial is not None and ident.serial != expect_serial:
            raise UsageError(f"{config.target} is now serial {ident.serial!r}, but this session measured {expect_serial!r}",
                             hint="resume only on the drive the session started on")
        plan = plan_initialization(ident, erase=options.erase, standby=options.standby)
        ui.log(plan.describe())
        action = "writing the characterization sweep (and any erase) destroys all data on"
        confirmation = confirmation_for(ident, action, hold.report)
        typed = options.confirm_serial
        if typed is None:
            typed = ui.confirm(confirmation.text, confirmation.token_name)
        else:  # confirmed by a script: still say, in the log, what was confirmed
            ui.log(confirmation.text)
        confirmation.check(typed)
        with initialize(plan, runner=runner, hold=hold, confirm_serial=typed) as init:
            drive = {
                "model": ident.model,
                "serial": ident.serial,
                "firmware": ident.firmware,
                "size_bytes": ident.size_bytes,
                "transport": str(ident.transport),
                "path": ident.path,
                "queue_limits": _plain(ident.queue),
                # What was on it when the user confirmed (the guard's findings under the claim).
                "found_before": {
                    "partitions": list(hold.report.partitions) if hold.report else [],
                    "signatures": [sig.describe() for sig in hold.report.signatures] if hold.report else [],
                },
            }
            yield hold, drive, init.record()


def _plain(obj: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    return asdict(obj) if is_dataclass(obj) else obj


def _scope_settings(config: BenchConfig, op: str, vertical_scale: float = 0.1, trigger_level: float = 0.05):
    from charz.scope import ScopeSettings
    from charz.session._autoset import POSITION_DIV

    dt = config.write_sample_interval_s if op == "write" else config.read_sample_interval_s
    return ScopeSettings(channel=config.channel, vertical_scale=vertical_scale, record_length=config.record_length,
                         sample_interval_s=dt, pretrigger_fraction=config.pretrigger_fraction,
                         trigger_level=trigger_level, vertical_position_div=POSITION_DIV, width_bytes=1)


def _run_plan(bench, writer, plan: SweepPlan, autoset_meta: dict, ui: SessionUI):
    from charz.session._run import Runner
    from charz.workload import FreshLbaAllocator

    config = bench.config
    write_s = _scope_settings(config, "write", autoset_meta["vertical_scale_a_per_div"], autoset_meta["trigger_level_a"])
    read_s = replace(write_s, sample_interval_s=config.read_sample_interval_s)
    _, spare_start, spare_end = _span(plan)
    used_end = max(_spare_used(writer.records, plan), default=spare_start)
    spare = FreshLbaAllocator(spare_end, start_bytes=max(spare_start, used_end))
    done = writer.completed_steps()
    steps = list(plan.steps)
    captured = [s for s in steps if s.captured]
    remaining = sum(1 for s in captured if s.id not in done)
    with ui.progress(len(captured), len(captured) - remaining, f"characterizing ({config.kind} bench)") as tick:
        runner = Runner(bench, writer, write_settings=write_s, read_settings=read_s, spare=spare,
                        progress=lambda step: tick(), log=ui.log)
        # Glitches ridden out while connecting and during autoset belong to no capture.
        runner.stats.notes.extend(f"set-up: {text}" for text in runner.link_retries())
        # A fill only needs to happen once; after a resume it is done if any read is.
        fills_done = {s.id for s in steps if s.op == "fill" and any(c.id in done for c in captured if c.op == "read")}
        return runner.run(steps, done | fills_done)


def _attempts(record: dict):
    """(op, size, offset) of every request a capture's step sent, failed attempts first."""
    for offset in (record.get("extra") or {}).get("earlier_attempt_offsets_bytes", []):
        yield record["op"], int(record["size_bytes"]), int(offset)
    yield record["op"], int(record["size_bytes"]), int(record["offset_bytes"])


def _requests_seen(autoset_meta: dict, records) -> list[tuple[str, int, int]]:
    """Every request the drive saw, in order: calibration, then each capture's attempts.

    Fills are not told to the simulated drive, and a step that never triggered left no
    capture; neither is here.
    """
    calibration = [tuple(r) for r in autoset_meta.get("calibration_requests", [])]
    return calibration + [req for record in records for req in _attempts(record)]


def _spare_used(records, plan: SweepPlan):
    # Retries wrote beyond the plan: a resumed session must not hand those LBAs out again.
    for record in records:
        for _, size, offset in _attempts(record):
            if offset >= plan.span_bytes:
                yield offset + size


def start_session(out: Path, config: BenchConfig, plan: SweepPlan, given: dict[str, Any], *, ui: SessionUI,
                  device: DeviceOptions = DeviceOptions(), analyze: bool = True, mock=None) -> SessionResult:
    """A new session into ``out`` (which must not exist or be empty).

    ``mock`` provides the mock bench (``charz.sim.mock_bench``) when ``config.kind`` is mock.
    """
    from charz.archive import ArchiveWriter

    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} exists and is not empty", hint=f"choose a new --out, or continue it with: charz resume {out}")
    if config.target_is_scratch and os.path.lexists(config.target):
        # The sweep writes over a scratch file's first hundreds of MB: only a file this
        # session makes may be one (a resume finds its own and goes on).
        raise UsageError(f"the scratch file {config.target} already exists; the sweep would overwrite it",
                         hint="give --scratch a path that does not exist yet (charz creates it), or delete the file")
    metadata = {
        "drive": {"given": given},
        "bench": config.to_dict(),
        "plan": plan.to_dict(),
        "tool_command": "charz characterize",
        "charz_version": __version__,
    }
    # The archive exists before anything touches the drive: from here on `charz resume` works.
    with ArchiveWriter.create(out, metadata) as writer:
        stats = _body(writer, config, plan, device, ui, expect_serial=None, mock=mock)
    return _finish(out, config, stats, analyze)


def resume_session(out: Path, *, ui: SessionUI, device: DeviceOptions = DeviceOptions(), analyze: bool = True,
                   mock=None, mock_faults: tuple[str, ...] = ()) -> SessionResult:
    """Continue an interrupted session: same bench, same plan, same drive, only the missing steps.

    A mock bench's faults are not carried over: a resume injects only ``mock_faults``
    (none by default), so "fault, fix, resume" can be rehearsed; a change is recorded.
    """
    from charz.archive import ArchiveWriter

    out = Path(out)
    with ArchiveWriter.open_append(out) as writer:
        meta = writer.metadata
        if meta.get("tool_command") != "charz characterize":
            raise UsageError(f"{out} was not recorded by charz characterize",
                             hint="continue a simulation with: charz simulate --resume --out DIR")
        config = BenchConfig.from_dict(meta.get("bench", {}))
        if config.kind == MOCK and tuple(mock_faults) != config.mock_faults:
            before = list(config.mock_faults)
            config = replace(config, mock_faults=tuple(mock_faults))
            changes = list(meta["bench"].get("changes", [])) + [
                {"at": "resume", "field": "mock_faults", "from": before, "to": list(mock_faults)}]
            writer.update_metadata(bench={**meta["bench"], "mock_faults": list(mock_faults), "changes": changes})
            ui.log(f"mock faults on this resume: {', '.join(mock_faults) or 'none'} (were: {', '.join(before) or 'none'})")
            meta = writer.metadata
        plan = SweepPlan.from_dict(meta["plan"])
        ui.log(f"resuming {out}: {len(writer.completed_steps())} of {len(plan.captured_steps)} captures done")
        expect = None if config.target_is_scratch else (meta.get("drive") or {}).get("serial")
        stats = _body(writer, config, plan, device, ui, expect_serial=expect, mock=mock)
    return _finish(out, config, stats, analyze)


def _body(writer, config: BenchConfig, plan: SweepPlan, device: DeviceOptions, ui: SessionUI, *, expect_serial, mock=None):
    from charz.session._autoset import autoset

    out = writer.path
    meta = writer.metadata
    calibration, _, total = _span(plan)
    with contextlib.ExitStack() as stack:
        claim, drive, init_record = stack.enter_context(_prepared_target(config, out, device, ui, expect_serial=expect_serial))
        runs = list((meta.get("bench") or {}).get("initializations", [])) + [init_record]
        writer.update_metadata(drive={**drive, "given": (meta.get("drive") or {}).get("given", {})},
                               bench={**meta["bench"], "initializations": runs})
        bench = stack.enter_context(open_bench(config, span_bytes=total, max_request_bytes=_max_request(plan), claim=claim,
                                               mock=mock))
        capacity = getattr(bench.io, "capacity_bytes", None)
        if capacity is not None and capacity < total:
            raise UsageError(f"{config.target} holds {capacity} B; the plan needs {total} B",
                             hint="use fewer repeats or sizes, or a larger target")
        ui.log(f"scope: {bench.scope_identity} ({config.kind} bench)")
        auto = writer.metadata["bench"].get("autoset")
        if bench.replay is not None and auto:
            # The simulated drive remembers every request it saw (each die's page count, its
            # I/O count): replay them all, in order, so it goes on exactly where it stopped.
            bench.replay(_requests_seen(auto, writer.records))
        if not auto:
            settings, result = autoset(bench, _scope_settings(config, "write"),
                                       calibration_size_bytes=max(plan.write_sizes or plan.read_sizes),
                                       calibration_offset_bytes=calibration)
            auto = result.to_dict()
            writer.update_metadata(bench={**writer.metadata["bench"], "scope": bench.scope_identity, "autoset": auto})
            ui.log(f"autoset: idle {result.idle.mean_a * 1e3:.1f} mA (σ {result.idle.sigma_a * 1e3:.2f} mA), "
                   f"calibration peak {result.peak_a * 1e3:.1f} mA → {settings.vertical_scale:g} A/div, "
                   f"trigger at {settings.trigger_level * 1e3:.1f} mA")
            for text in result.warnings:
                ui.log(f"warning: {text}")
        stats = _run_plan(bench, writer, plan, auto, ui)
        previous = (writer.metadata.get("run") or {})
        writer.update_metadata(finished=not stats.missed, run={
            "captured": previous.get("captured", 0) + stats.captured,
            "retried": previous.get("retried", 0) + stats.retried,
            "flagged": previous.get("flagged", 0) + stats.flagged,
            "link_retries": previous.get("link_retries", 0) + stats.link_retries,
            "missed_steps": stats.missed,
            "notes": list(previous.get("notes", [])) + stats.notes,
            "wall_s": round(previous.get("wall_s", 0.0) + stats.wall_s, 3),
        })
    return stats


def captures_kept(out: Path) -> tuple[int, int]:
    """(captures committed, captures the plan asks for) of a session directory."""
    import json

    meta = json.loads((Path(out) / "session.json").read_text())
    plan = SweepPlan.from_dict(meta["plan"])
    wanted = {s.id for s in plan.captured_steps}
    steps = set()
    for record in (Path(out) / "captures").glob("[0-9]*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            steps.add(int(json.loads(record.read_text())["step"]))
    return len(steps & wanted), len(wanted)


def _max_request(plan: SweepPlan) -> int:
    largest = max(list(plan.write_sizes) + list(plan.read_sizes) + [MIB])
    return -(-largest // 4096) * 4096


def _finish(out: Path, config: BenchConfig, stats, analyze: bool) -> SessionResult:
    if config.target_is_scratch and config.kind == MOCK:
        scratch = Path(config.target)
        if scratch.parent.resolve() == out.resolve():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(scratch)  # its contents were random bytes; the archive holds the measurement
    if not analyze:
        return SessionResult(out, stats, None, None)
    from charz.profile import write_profile
    from charz.profile._pipeline import analyze_archive

    _, profile, _ = analyze_archive(out)
    path = write_profile(profile, out / "profile.toml")
    return SessionResult(out, stats, profile, path)

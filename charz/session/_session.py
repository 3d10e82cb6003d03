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
from charz.session._bench import BenchConfig, MockBench, bench_from_dict
from charz.session._plan import MIB, SweepPlan
from charz.session._restore import pending_restore

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
def _claimed(config: BenchConfig, out: Path, options: DeviceOptions):
    """The guard's exclusive hold on the block device (None for a scratch file).

    Checking and claiming read the device and write nothing: done first, an unsafe
    target is refused before anything else happens.
    """
    if config.target_is_scratch:
        yield None
        return
    from charz.device import SubprocessRunner, claim_target

    with claim_target(config.target, output_dir=out, allow_signatures=options.allow_signatures,
                      runner=SubprocessRunner()) as hold:
        yield hold


def _destroys(options: DeviceOptions, span_bytes: int) -> str:
    """What the confirmation says is about to go (before ": ALL DATA ON IT WILL BE LOST")."""
    if options.erase:
        return f"--erase {options.erase} erases the whole of"
    return f"the characterization sweep overwrites the first {span_bytes // MIB} MiB of"


@contextlib.contextmanager
def _prepared_target(config: BenchConfig, hold, options: DeviceOptions, ui: SessionUI, *, span_bytes: int,
                     expect_serial: str | None = None, action: str | None = None, earlier: list | None = None,
                     journal=None):
    """Yield (drive metadata, initialization record) for the claimed target: identify,
    confirm, initialize (003 Table 3), restored on the way out.

    Nothing is changed on the drive before the confirmation is accepted: identify and the
    plan only read.  ``earlier`` are the session's initialization records so far: what they
    changed and never put back (a kill -9, a power loss) is put back at the end with the
    value the first of them found, not the value charz left.  ``journal`` is called with the
    initialization's record before each change and after the restore."""
    if config.target_is_scratch:
        yield {"model": "scratch file", "serial": None, "path": config.target,
               "note": "a file on the host's file system stands in for the drive's LBAs"}, {
            "device": config.target, "plan": "none: a scratch file has no drive settings", "applied": [], "skipped": []}
        return
    from charz.device import SubprocessRunner, confirmation_for, identify, initialize, not_restored, plan_initialization

    runner = SubprocessRunner()
    ident = identify(hold.path, runner=runner)
    if expect_serial is not None and ident.serial != expect_serial:
        raise UsageError(f"{config.target} is now serial {ident.serial!r}, but this session measured {expect_serial!r}",
                         hint="resume only on the drive the session started on (--device names where it is now)")
    plan = plan_initialization(ident, erase=options.erase, standby=options.standby)
    originals = not_restored(earlier or [])
    ui.log(plan.describe())
    confirmation = confirmation_for(ident, action or _destroys(options, span_bytes), hold.report)
    typed = options.confirm_serial
    if typed is None:
        typed = ui.confirm(confirmation.text, confirmation.token_name)
        confirmation.check(typed)
    else:  # confirmed by a script: still say, in the log, what was confirmed (and ask nothing)
        ui.log(confirmation.text)
        confirmation.check(typed)
        ui.log(confirmation.confirmed_line("--confirm-serial"))
    init = initialize(plan, runner=runner, hold=hold, confirm_serial=typed, originals=originals, journal=journal)
    try:
        with init:
            for line in _changes(init):
                ui.log(line)
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
            yield drive, init.record()
    finally:
        # The restore has run (also after Ctrl-C, a signal or an error): say what it did.  A
        # terminal that went away (SIGHUP) must not hide the error that ended the session.
        with contextlib.suppress(OSError):
            for line in _restored_lines(init):
                ui.log(line)


def _changes(init) -> list[str]:
    """What the initialization changed, as found and as left (said once it is done)."""
    restored = {s.key for s in init.plan.settings if s.restore}
    lines = []
    for a in init.applied:
        if not a.command:
            continue
        found = f"{a.before}" if a.original is None else \
            f"{a.before} (left by an unfinished run; {a.original} when first found)"
        first = a.before if a.original is None else a.original
        back = "; put back at the end" if a.key in restored and first != a.after else ""
        lines.append(f"{a.label}: {found} → {a.after} ({' '.join(a.command)}){back}")
    return lines


def _restored_lines(init) -> list[str]:
    lines = []
    for r in init.restored:
        label = init.label_of(r.key)
        lines.append(f"{label}: put back to {r.value}" if r.ok else f"{label}: NOT put back to {r.value}: {r.message}")
    return lines


@contextlib.contextmanager
def _connected(config: BenchConfig, out: Path, mock):
    from charz.errors import ScopeError
    from charz.session._bench import connect_scope

    try:
        bench = connect_scope(config, mock=mock)
    except ScopeError as exc:
        if not isinstance(config, MockBench):
            fix = (f"nothing was written to {config.target} and the session is kept: once the scope answers, "
                   f"continue with: charz resume {out} --scope RESOURCE (also --channel, --visa-library)")
            exc.hint = f"{exc.hint}; {fix}" if exc.hint else fix
        raise
    with bench:
        yield bench


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
    from charz.session._autoset import screen_position_div

    write_s = _scope_settings(config, "write", autoset_meta["vertical_scale_a_per_div"], autoset_meta["trigger_level_a"])
    # Zero where autoset put it on this scope's screen (-3 div on InfiniiVision's 8, not
    # Tek's -4, which is the 8-division screen's bottom edge: idle noise would clip).
    write_s = replace(write_s, vertical_position_div=screen_position_div(bench.scope))
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


def _stored(config: BenchConfig, out: Path) -> BenchConfig:
    """The config as the archive keeps it: a scratch file inside the session directory by
    its name alone, so the directory can be moved (or resumed from another working
    directory) and still find it."""
    if not config.target_is_scratch:
        return config
    target = Path(config.target)
    with contextlib.suppress(ValueError):
        return replace(config, target=str(target.absolute().relative_to(Path(out).absolute())))
    return replace(config, target=str(target.absolute()))


def _live(config: BenchConfig, out: Path) -> BenchConfig:
    """The config to run with: a relative scratch path is inside the session directory."""
    if config.target_is_scratch and not os.path.isabs(config.target):
        return replace(config, target=str(Path(out) / config.target))
    return config


def start_session(out: Path, config: BenchConfig, plan: SweepPlan, given: dict[str, Any], *, ui: SessionUI,
                  device: DeviceOptions = DeviceOptions(), analyze: bool = True, mock=None) -> SessionResult:
    """A new session into ``out`` (which must not exist or be empty).

    ``mock`` provides the mock bench (``charz.sim.mock_bench``) when ``config`` is a :class:`MockBench`.
    """
    from charz.archive import ArchiveWriter

    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not _start_anew(out, ui):
            raise UsageError(f"{out} exists and is not empty",
                             hint=f"choose a new --out, or continue it with: charz resume {out}")
    if config.target_is_scratch and os.path.lexists(config.target):
        # The sweep writes over a scratch file's first hundreds of MB: only a file this
        # session makes may be one (a resume finds its own and goes on).
        raise UsageError(f"the scratch file {config.target} already exists; the sweep would overwrite it",
                         hint="give --scratch a path that does not exist yet (charz creates it), or delete the file")
    stored = _stored(config, out)
    config = _live(stored, out)
    metadata = {
        "drive": {"given": given},
        "bench": stored.to_dict(),
        "plan": plan.to_dict(),
        "tool_command": "charz characterize",
        "charz_version": __version__,
    }
    # The archive exists before anything touches the drive: from here on `charz resume` works.
    with ArchiveWriter.create(out, metadata) as writer:
        stats = _body(writer, config, plan, device, ui, expect_serial=None, mock=mock)
    return _finish(out, config, stats, analyze)


_ARCHIVE_ENTRIES = {"session.json", "session.lock", "captures"}


def _start_anew(out: Path, ui: SessionUI) -> bool:
    """True (and ``out`` emptied) when it holds only a session of ``charz characterize`` that
    never got going: no capture, no drive setting changed, no autoset — e.g. the scope was
    not reached.  Nothing measured is lost; the new command's options replace the old ones.
    Anything else in ``out`` is left alone (False)."""
    import json

    from charz.archive import ArchiveWriter
    from charz.errors import ArchiveError

    entries = {p.name for p in out.iterdir()}
    if not entries <= _ARCHIVE_ENTRIES or "session.json" not in entries:
        return False
    captures = out / "captures"
    if captures.exists() and (not captures.is_dir() or any(captures.iterdir())):
        return False
    try:
        meta = json.loads((out / "session.json").read_text())
    except (OSError, ValueError):
        return False
    bench = meta.get("bench") if isinstance(meta, dict) else None
    if meta.get("tool_command") != "charz characterize" or not isinstance(bench, dict) \
            or bench.get("initializations") or bench.get("autoset"):
        return False
    try:  # the lock: a session another charz is starting right now is not ours to clear
        writer = ArchiveWriter.open_append(out)
    except ArchiveError:
        return False
    with writer:
        if writer.records:
            return False
        (out / "session.json").unlink()
        if captures.exists():
            captures.rmdir()
    (out / "session.lock").unlink(missing_ok=True)
    ui.log(f"{out} held a session that never started (no capture, the drive untouched): starting it anew")
    return True


#: Bench settings a resume may change (a scope's new address, the probe on another channel,
#: another host's VISA library, the drive under a new name): option name → RealBench field.
RESUME_SETTINGS = {"scope": "scope_resource", "channel": "channel", "visa_library": "visa_library",
                   "device": "target"}


def _apply_changes(writer, config: BenchConfig, changes: dict[str, Any], ui: SessionUI) -> BenchConfig:
    """Apply a resume's bench settings, each recorded in ``bench.changes`` with when and what it was."""
    import datetime

    wanted = {RESUME_SETTINGS[k]: v for k, v in changes.items() if v is not None}
    if not wanted:
        return config
    if isinstance(config, MockBench):
        names = ", ".join("--" + k.replace("_", "-") for k, v in changes.items() if v is not None)
        raise UsageError(f"{names}: a mock-bench session has no scope address, channel or device to change",
                         hint="the mock bench is rebuilt by itself on resume: charz resume DIR")
    if "target" in wanted and config.target_is_scratch:
        raise UsageError("--device: this session wrote to a scratch file, not a device")
    meta = writer.metadata
    bench = dict(meta["bench"])
    log = list(bench.get("changes", []))
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for field_name, value in wanted.items():
        before = getattr(config, field_name)
        if value == before:
            continue
        log.append({"at": "resume", "utc": now, "field": field_name, "from": before, "to": value})
        bench[field_name] = value
        ui.log(f"{field_name.replace('_', ' ')}: {value} (was {before}; recorded in the session)")
    new = bench_from_dict(bench)
    writer.update_metadata(bench={**bench, "changes": log})
    return new


class SessionFinished(UsageError):
    """``charz resume`` on a session with every capture: nothing to resume.  The CLI says so
    and exits 0 — unless a run of it left drive settings changed (``pending``): then exit 6
    with the way to put them back."""

    exit_code = 6

    def __init__(self, out: Path, captures: int, pending: dict):
        hint = (f"analyze it again with: charz analyze {out}" if not pending else
                f"a run of it left drive settings changed ({', '.join(pending)}); put them back with: "
                f"charz restore {out}")
        super().__init__(f"{out} is finished: all {captures} captures are taken; there is nothing to resume",
                         hint=hint)
        self.pending = pending


def _move_scratch(writer, config: BenchConfig, scratch: Path, ui: SessionUI) -> BenchConfig:
    """``resume --scratch PATH``: the scratch file is somewhere else now (recorded)."""
    import datetime

    if not config.target_is_scratch:
        raise UsageError("--scratch: this session wrote to a drive, not a scratch file",
                         hint="give the drive's present name with --device")
    out = writer.path
    old = _live(config, out).target
    if os.path.lexists(scratch) and Path(scratch).resolve() != Path(old).resolve():
        raise UsageError(f"the scratch file {scratch} already exists; the sweep would overwrite it",
                         hint="give --scratch a path that does not exist yet (charz creates it)")
    new = _stored(replace(config, target=str(scratch)), out)
    bench = dict(writer.metadata["bench"])
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    log = list(bench.get("changes", [])) + [{"at": "resume", "utc": now, "field": "target",
                                             "from": config.target, "to": new.target}]
    writer.update_metadata(bench={**bench, "target": new.target, "changes": log})
    ui.log(f"scratch file: {scratch} (was {old}; recorded in the session)")
    return new


def resume_session(out: Path, *, ui: SessionUI, device: DeviceOptions = DeviceOptions(), analyze: bool = True,
                   mock=None, mock_faults: tuple[str, ...] = (), changes: dict[str, Any] | None = None,
                   scratch: Path | None = None) -> SessionResult:
    """Continue an interrupted session: same bench, same plan, same drive, only the missing steps.

    A mock bench's faults are not carried over: a resume injects only ``mock_faults``
    (none by default), so "fault, fix, resume" can be rehearsed; a change is recorded.
    ``changes`` maps :data:`RESUME_SETTINGS` names (scope, channel, visa_library, device) to
    new values (None: unchanged); each change is recorded in the archive's ``bench.changes``.
    """
    from charz.archive import ArchiveWriter

    out = Path(out)
    with ArchiveWriter.open_append(out) as writer:
        meta = writer.metadata
        if meta.get("tool_command") != "charz characterize":
            raise UsageError(f"{out} was not recorded by charz characterize",
                             hint="continue a simulation with: charz simulate --resume --out DIR")
        config = bench_from_dict(meta.get("bench", {}))
        config = _apply_changes(writer, config, changes or {}, ui)
        meta = writer.metadata
        if isinstance(config, MockBench) and tuple(mock_faults) != config.mock_faults:
            before = list(config.mock_faults)
            config = replace(config, mock_faults=tuple(mock_faults))
            changes = list(meta["bench"].get("changes", [])) + [
                {"at": "resume", "field": "mock_faults", "from": before, "to": list(mock_faults)}]
            writer.update_metadata(bench={**meta["bench"], "mock_faults": list(mock_faults), "changes": changes})
            ui.log(f"mock faults on this resume: {', '.join(mock_faults) or 'none'} (were: {', '.join(before) or 'none'})")
            meta = writer.metadata
        if scratch is not None:
            config = _move_scratch(writer, config, Path(scratch), ui)
            meta = writer.metadata
        config = _live(config, out)
        plan = SweepPlan.from_dict(meta["plan"])
        done = len(writer.completed_steps() & {s.id for s in plan.captured_steps})
        if meta.get("finished") and done >= len(plan.captured_steps):
            raise SessionFinished(out, len(plan.captured_steps), pending_restore(meta))
        ui.log(f"resuming {out}: {done} of {len(plan.captured_steps)} captures done")
        expect = None if config.target_is_scratch else (meta.get("drive") or {}).get("serial")
        stats = _body(writer, config, plan, device, ui, expect_serial=expect, mock=mock)
    return _finish(out, config, stats, analyze)


def _body(writer, config: BenchConfig, plan: SweepPlan, device: DeviceOptions, ui: SessionUI, *, expect_serial, mock=None):
    from charz.session._autoset import autoset

    out = writer.path
    meta = writer.metadata
    calibration, _, total = _span(plan)
    with contextlib.ExitStack() as stack:
        claim = stack.enter_context(_claimed(config, out, device))
        # The scope is reached and identified before anything is asked or written: a wrong
        # address costs only the message, and `charz resume OUT --scope RES` goes on.
        bench = stack.enter_context(_connected(config, out, mock))
        ui.log(f"scope: {bench.scope_identity} ({config.kind} bench)")
        earlier = list((meta.get("bench") or {}).get("initializations", []))

        def journal(record: dict) -> None:
            # Before each change and after the restore: a kill -9 at any moment leaves in the
            # archive what is to be put back (resume and `charz restore` read it).
            writer.update_metadata(bench={**writer.metadata["bench"], "initializations": earlier + [record]})

        drive, init_record = stack.enter_context(_prepared_target(config, claim, device, ui, span_bytes=total,
                                                                  expect_serial=expect_serial, earlier=earlier,
                                                                  journal=None if config.target_is_scratch
                                                                  else journal))
        writer.update_metadata(drive={**drive, "given": (meta.get("drive") or {}).get("given", {})},
                               bench={**writer.metadata["bench"], "initializations": earlier + [init_record]})
        bench.open_target(span_bytes=total, max_request_bytes=_max_request(plan), claim=claim)
        capacity = getattr(bench.io, "capacity_bytes", None)
        if capacity is not None and capacity < total:
            raise UsageError(f"{config.target} holds {capacity} B; the plan needs {total} B",
                             hint="use fewer repeats or sizes, or a larger target")
        auto = writer.metadata["bench"].get("autoset")
        if bench.replay is not None and auto:
            # The simulated drive remembers every request it saw (each die's page count, its
            # I/O count): replay them all, in order, so it goes on exactly where it stopped.
            bench.replay(_requests_seen(auto, writer.records))
        if not auto:
            settings, result = _autoset_again_if_the_scope_objects(
                lambda: autoset(bench, _scope_settings(config, "write"),
                                calibration_size_bytes=max(plan.write_sizes or plan.read_sizes),
                                calibration_offset_bytes=calibration), ui)
            auto = result.to_dict()
            writer.update_metadata(bench={**writer.metadata["bench"], "scope": bench.scope_identity, "autoset": auto})
            # two lines: a person reads this at 80 columns
            ui.log(f"autoset: idle {result.idle.mean_a * 1e3:.1f} mA (σ {result.idle.sigma_a * 1e3:.2f} mA), "
                   f"calibration peak {result.peak_a * 1e3:.1f} mA")
            ui.log(f"autoset: {settings.vertical_scale:g} A/div, trigger at {settings.trigger_level * 1e3:.1f} mA")
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


AUTOSET_ATTEMPTS = 3


def _autoset_again_if_the_scope_objects(run, ui: SessionUI):
    """The autoset, once more (up to AUTOSET_ATTEMPTS) when the scope itself objects — an
    error in its queue, a reset or power cycle during it: it configures everything again
    and writes only to the calibration region, so running it again is what a resume would
    do anyway.  The same objection every time stops the session."""
    from charz.errors import ScopeInstrumentError

    for attempt in range(1, AUTOSET_ATTEMPTS + 1):
        try:
            return run()
        except ScopeInstrumentError as exc:
            if attempt == AUTOSET_ATTEMPTS:
                raise
            ui.log(f"autoset: the scope objected ({exc.message}); running the autoset again")


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
    if config.target_is_scratch and isinstance(config, MockBench):
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

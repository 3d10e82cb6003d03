"""``charz characterize`` (the main job) and ``charz resume``."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import List, Optional

import typer

from charz.cli._common import console, damage_hints, emit_json, progress_bar
from charz.cli._conventions import Dialect, EraseMethod, Preset, one_of
from charz.cli._stop import kept_line, stoppable


class CliUI:
    """The session's user: log lines on stderr, a progress bar, a prompt for the serial."""

    def __init__(self, quiet: bool = False):
        from rich.console import Console

        self.quiet = quiet
        # emoji=False: SCPI such as TRIGger:A:EDGE:SLOpe? must not become an emoji (":A:")
        self.err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

    def log(self, text: str) -> None:
        if not self.quiet:
            self.err.print(text, markup=False)

    def confirm(self, text: str, token_name: str) -> str | None:
        if not sys.stdin.isatty():
            return None  # scripts pass --confirm-serial; ConfirmationRequired then says so
        self.err.print(text, markup=False)
        return typer.prompt(f"type the drive's {token_name} to go on (Ctrl-C stops; nothing is written yet)",
                            err=True)

    @contextlib.contextmanager
    def progress(self, total: int, done: int, description: str):
        with progress_bar(total, description, enabled=not self.quiet) as bar:
            bar.advance(done)
            yield bar.advance


def format_outcome(result) -> str:
    s = result.stats
    link = getattr(s, "link_retries", 0)
    lines = [f"captures: {s.captured} taken, {s.retried} retried, {s.flagged} kept with warnings"
             + (f", {link} scope-link {'retry' if link == 1 else 'retries'}" if link else "")
             + (f", steps never captured: {s.missed}" if s.missed else "")]
    from charz.cli._analyze import new_notes  # notes the summary's warnings already say are left out
    from charz._text import fold

    lines += [fold(n, first="  note: ") for n in new_notes(s.notes, getattr(result, "profile", None))[:10]]
    if result.profile_path:
        lines.append(f"profile written to {result.profile_path}")
        lines.append(f"next: charz tune {result.profile_path} --fs ext4")
        lines.append("      (or --fs xfs, zfs, btrfs, mdadm, lvm, partition)")
    return "\n".join(lines)


def outcome_dict(result, session: Path) -> dict:
    """The --json document of characterize and resume (schema charz.characterize/1)."""
    import json

    from charz.profile import to_json

    s = result.stats
    return {
        "schema": "charz.characterize/1",
        "session": str(session),
        "captures": {"taken": s.captured, "retried": s.retried, "kept_with_warnings": s.flagged,
                     "never_captured": s.missed, "link_retries": getattr(s, "link_retries", 0)},
        "notes": list(s.notes),
        "profile_path": str(result.profile_path) if result.profile_path else None,
        "profile": json.loads(to_json(result.profile)) if result.profile else None,
    }


def _report(result, session: Path, as_json: bool = False) -> None:
    from charz.cli._analyze import format_summary

    if as_json:
        import json

        emit_json(json.dumps(outcome_dict(result, session), indent=2))
    else:
        if result.profile:
            console.print(format_summary(result.profile), markup=False)
        console.print(format_outcome(result), markup=False)
    if result.stats.missed:
        # Not a finished run: said on stderr and in the exit status, not only in the archive.
        from charz.session import captures_kept

        kept, total = captures_kept(result.out)
        UI_ERR().print(f"incomplete: {kept} of {total} captures kept, {len(result.stats.missed)} never captured "
                       f"(no trigger); continue with: charz resume {result.out}", markup=False)
        raise typer.Exit(INCOMPLETE_EXIT)


#: A run that ended with captures missing (the scope never triggered on some steps): a scope
#: problem to the shell, as the scope errors are.
INCOMPLETE_EXIT = 5


def UI_ERR():
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


@contextlib.contextmanager
def _finished_said(ui: CliUI):
    """A finished session is not resumed (nor analysed again unasked): said, exit 0 — or
    exit 6 when a run of it left drive settings changed (charz restore DIR)."""
    from charz.session._session import SessionFinished

    try:
        yield
    except SessionFinished as exc:
        if exc.pending:
            raise
        ui.err.print(f"{exc.message}; {exc.hint}", markup=False)
        raise typer.Exit(0)


@contextlib.contextmanager
def _session_stops(ui: CliUI, out: Path):
    """Every way a session stops with its archive kept says so, and how to go on: a signal
    (exit 128 + N) or an error after the archive exists (the error, then the line)."""
    from charz.cli import report_error
    from charz.errors import CharzError, UsageError as _Usage
    from charz.session._session import SessionFinished

    try:
        yield
    except KeyboardInterrupt as exc:
        with contextlib.suppress(OSError, ValueError):  # SIGHUP: the terminal may be gone
            ui.err.print(kept_line(out), markup=False)
        raise typer.Exit(getattr(exc, "exit_code", 130))
    except CharzError as exc:
        if isinstance(exc, (_Usage, SessionFinished)) or not (Path(out) / "session.json").exists():
            raise
        code = report_error(exc)
        with contextlib.suppress(OSError, ValueError):
            ui.err.print(kept_line(out), markup=False)
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    @app.command()
    def characterize(
        mock: bool = typer.Option(False, help="Run against the mock bench (simulated SSD behind a simulated scope over TCP)."),
        preset: Preset = typer.Option("mxp", help="Mock bench: the simulated drive (charz simulate --list)."),
        device: Optional[Path] = typer.Option(None, help="Block device under test (a whole disk; checked, claimed, confirmed)."),
        scope: Optional[str] = typer.Option(None, help="VISA resource of the scope, e.g. TCPIP::192.168.1.20::4000::SOCKET."),
        out: Optional[Path] = typer.Option(None, help="Session directory to create (default runs/<drive>-<time>)."),
        scratch: Optional[Path] = typer.Option(None, help="Mock bench: file for the O_DIRECT requests (default OUT/scratch.bin)."),
        channels: Optional[int] = typer.Option(None, min=1, help="Channels of the drive (spec sheet)."),
        packages: Optional[int] = typer.Option(None, min=1, help="Flash packages on the board."),
        page_size: Optional[str] = typer.Option(None, help="NAND page size, e.g. 4k or 8k."),
        t_xfer_us: Optional[float] = typer.Option(None, help="Register transfer per page, µs (NAND datasheet)."),
        t_prog_us: Optional[float] = typer.Option(None, help="Page program time, µs (NAND datasheet)."),
        t_switch_us: Optional[float] = typer.Option(None, help="Channel-switch delay, µs, if known."),
        host_rate: Optional[float] = typer.Option(None, help="Host link payload rate, bytes/s (SATA 2 ≈ 3e8, SATA 3 ≈ 5.5e8)."),
        sizes: Optional[str] = typer.Option(None, help="Write sizes (default one page to 160 KB in page steps)."),
        read_sizes: Optional[str] = typer.Option(None, help="Read sizes (default page steps to 160 KB and 512 KB); 'none'."),
        repeats: int = typer.Option(5, min=1, help="Captures per size."),
        erase: Optional[EraseMethod] = typer.Option(None, help="Erase first (default: none)."),
        confirm_serial: Optional[str] = typer.Option(None, help="The drive's serial, for scripts (instead of typing it)."),
        allow_signatures: bool = typer.Option(False, help="Overwrite a drive that carries a file system or RAID signature."),
        rail_v: Optional[float] = typer.Option(None, help="Voltage of the rail the probe is on (energy figures; "
                                               "5 V assumed when not given)."),
        channel: str = typer.Option("CH1", help="Scope channel with the current probe."),
        visa_library: str = typer.Option("@auto", help="VISA library: @auto (charz's own socket for a "
                                                        "raw ::SOCKET address, pyvisa-py for others), @py "
                                                        "(pyvisa-py for all), @socket, @ivi, or a path to "
                                                        "NI/Keysight VISA."),
        record_length: int = typer.Option(10_000, help="Points per record (2 µs/sample for writes, 4 µs for reads)."),
        seed: int = typer.Option(0, help="Mock bench: seed of the simulated drive."),
        standby: bool = typer.Option(True, help="Put the drive in standby before the sweep (hdparm -y; no idle peaks)."),
        write_cache: bool = typer.Option(False, help="Mock bench: leave the simulated write cache on (to see the warning)."),
        mock_fault: Optional[List[str]] = typer.Option(None, help="Mock bench: inject a scope fault, e.g. no_trigger:count=1."),
        mock_dialect: Dialect = typer.Option("tek", metavar="<dialect>",
                                             help=f"Mock bench: the scope it plays: {one_of(Dialect)}."),
        analyze: bool = typer.Option(True, help="Analyze the session and write OUT/profile.toml at the end."),
        quiet: bool = typer.Option(False, help="No progress bar or log lines."),
        as_json: bool = typer.Option(False, "--json", help="Print the outcome and the profile as one JSON document "
                                                           "(charz.characterize/1) instead of the summary."),
    ) -> None:
        """Characterize a drive: initialize it, sweep O_DIRECT writes and reads under capture, analyze."""
        from charz.session import CharacterizeRequest

        spec_sheet = dialects = mock_provider = None
        if mock:  # the simulator's knowledge, handed to the session (which never imports it)
            from charz.sim import load_preset, mock_bench as mock_provider
            from charz.sim.scope_server import DIALECTS as dialects

            def spec_sheet(name: str) -> dict:
                return load_preset(name).given
        request = CharacterizeRequest.build(
            mock=mock, preset=preset, device=device, scope=scope, out=out, scratch=scratch, channels=channels,
            packages=packages, page_size=page_size, t_xfer_us=t_xfer_us, t_prog_us=t_prog_us,
            t_switch_us=t_switch_us, host_rate=host_rate, sizes=sizes, read_sizes=read_sizes, repeats=repeats,
            erase=erase, confirm_serial=confirm_serial, allow_signatures=allow_signatures, rail_v=rail_v,
            channel=channel, visa_library=visa_library, record_length=record_length, seed=seed, standby=standby,
            write_cache=write_cache, mock_faults=mock_fault or (), dialect=mock_dialect, analyze=analyze,
            spec_sheet=spec_sheet, dialects=dialects)
        ui = CliUI(quiet)
        with _session_stops(ui, request.out), stoppable():
            result = request.start(ui, mock=mock_provider)
        _report(result, request.out, as_json)

    @app.command()
    def resume(
        session: Path = typer.Argument(..., help="Session directory of an interrupted charz characterize."),
        confirm_serial: Optional[str] = typer.Option(None, help="The drive's serial, for scripts."),
        analyze: bool = typer.Option(True, help="Analyze the session at the end."),
        quiet: bool = typer.Option(False, help="No progress bar or log lines."),
        as_json: bool = typer.Option(False, "--json", help="Print the outcome and the profile as JSON, as "
                                                           "characterize --json."),
        mock_fault: Optional[List[str]] = typer.Option(None, help="Mock bench: faults for this resume (none by default)."),
        scope: Optional[str] = typer.Option(None, help="The scope's VISA resource now, if it changed (recorded)."),
        channel: Optional[str] = typer.Option(None, help="The probe's scope channel now, if it changed (recorded)."),
        visa_library: Optional[str] = typer.Option(None, help="The VISA library on this host, if it changed (recorded)."),
        device: Optional[Path] = typer.Option(None, help="The drive's device path now, if it changed (its serial "
                                                         "is checked; recorded)."),
        scratch: Optional[Path] = typer.Option(None, help="Mock bench: the scratch file's path now, e.g. on a disk "
                                                          "with space (recorded)."),
    ) -> None:
        """Continue an interrupted characterization: the same bench and plan, only the missing captures."""
        from charz.session import ResumeRequest
        from charz.sim import mock_bench

        request = ResumeRequest.build(session, confirm_serial=confirm_serial, analyze=analyze,
                                      mock_faults=mock_fault or (), scope=scope, channel=channel,
                                      visa_library=visa_library, device=device, scratch=scratch)
        ui = CliUI(quiet)
        # The provider is only used if the session was recorded on the mock bench.
        with _finished_said(ui), _session_stops(ui, session), damage_hints(reading=False), stoppable():
            result = request.start(ui, mock=mock_bench)
        _report(result, session, as_json)

    @app.command()
    def restore(
        session: Path = typer.Argument(..., help="Session directory of a charz characterize on a drive."),
        device: Optional[Path] = typer.Option(None, help="The drive's device path now, if it changed (checked "
                                                         "to be the same drive)."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing but errors."),
    ) -> None:
        """Put back the drive settings a session changed and never restored (after kill -9 or a power
        loss), with the values its first initialization found; nothing else is done."""
        from charz.session._restore import restore_session

        ui = CliUI(quiet)
        with stoppable():  # a restore is short; a signal during it stops it like any other
            restore_session(session, log=ui.log, device=str(device) if device else None)

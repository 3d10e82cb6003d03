"""``charz wa``: write amplification from one die's R/B pin (RB-Explorer, papers 000/001).

parse → build (plan, bench, archive) → run → pure ``format_*`` → print.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from charz.cli._common import console, emit_json
from charz.cli._conventions import MockFtl, WaCounters
from charz.cli._wa_app import (
    ChannelsOpt,
    ChipsOpt,
    DiesOpt,
    EraseWindowOpt,
    GlitchOpt,
    JsonOpt,
    MpOpt,
    OutOpt,
    PageSizeOpt,
    PagesPerBlockOpt,
    PlanesOpt,
    ProfileOpt,
    ProgramWindowOpt,
    QuietOpt,
    ReadWindowOpt,
    SigrokCliOpt,
    VerboseOpt,
    ask,
    finish,
    run_with_bars,
    stops,
    wa_app,
)
from charz.cli._wa_format import format_json, format_summary, wrap
from charz.errors import UsageError

if TYPE_CHECKING:
    from charz.analysis import WaGeometry
    from charz.wa import RunSummary, WaRequest

__all__ = ["register", "format_summary"]


@wa_app.command("run")
def run(
    mock: bool = typer.Option(False, "--mock", help="The simulated drive behind sigrok-cli (no hardware)."),
    mock_multi_plane: bool = typer.Option(True, "--mock-multi-plane/--mock-single-plane",
                                          help="Mock drive: two planes per program pulse (M_p 2) or one."),
    mock_lines: Optional[bool] = typer.Option(None, "--mock-lines/--mock-die-gc",
                                              help="Mock drive: GC on lines over every die (default for greedy "
                                                   "and cost-benefit), or on each die alone."),
    mock_counters: WaCounters = typer.Option("micron", help="Mock drive's SMART counters: micron (pages), intel "
                                                     "(32 MiB units) or nvme (Data Units + OCP C0h)."),
    mock_ftl: Optional[MockFtl] = typer.Option(None, help="Mock drive's block manager: greedy (default), cost-benefit, "
                                                      "wolf (002 §5), fdp (002's baseline), nvm or cdm (an NVM cache, 004 §III)."),
    mock_nvm_cache: str = typer.Option("8m", help="Mock drive's NVM cache for --mock-ftl nvm|cdm."),
    mock_keep_sr: Optional[Path] = typer.Option(None, help="Keep the mock's sigrok session files (NNNN.sr) in "
                                                           "this folder, e.g. for charz wa analyze."),
    device: Optional[Path] = typer.Option(None, help="Block device under test (checked, claimed, confirmed)."),
    logic: Optional[str] = typer.Option(None, help="sigrok DRIVER:CHANNEL of the die's R/B (e.g. fx2lafw:D0)."),
    out: OutOpt = None,
    volume: str = typer.Option("128m", help="Bytes each benchmark writes (000: 2g)."),
    sizes: str = typer.Option("512,4k,8k,16k,32k", help="Request sizes of 000 Table 3."),
    files: Optional[str] = typer.Option(None, help="Job files (default: the 8 wa-w*.fio of Table 3)."),
    benchmarks: bool = typer.Option(True, help="Run the Table 3 micro-benchmarks."),
    subtests: int = typer.Option(0, min=0, help="Sub-tests of 4K-RD-100%-W (000 Fig. 10, WALVD)."),
    op_sweep: Optional[str] = typer.Option(None, help="OP percents for sub-test series (000 Table 4), e.g. 7,10,15."),
    mp: MpOpt = None,
    channels: ChannelsOpt = None,
    chips: ChipsOpt = None,
    dies: DiesOpt = None,
    page_size: PageSizeOpt = None,
    planes: PlanesOpt = None,
    pages_per_block: PagesPerBlockOpt = None,
    profile: ProfileOpt = None,
    program_window: ProgramWindowOpt = "200,2200",
    read_window: ReadWindowOpt = "2,200",
    erase_window: EraseWindowOpt = "2200,20000",
    glitch: GlitchOpt = 2.0,
    min_gap: Optional[float] = typer.Option(None, help="Shortest high gap (µs) expected between two operations "
                                                       "(bench default 10; the mock's 20): the samplerate must "
                                                       "tell it from a glitch."),
    samplerate: str = typer.Option("250k", help="Analyser samplerate (Hz; k/M suffixes)."),
    settle: Optional[float] = typer.Option(None, help="R/B high this long (s) before a count is read "
                                                      "(000 §4.2: 300, the bench default; the mock's replay 0.05)."),
    settle_timeout: Optional[float] = typer.Option(None, help="Give up waiting for the settle time after this "
                                                              "long (s; default settle + 300)."),
    confirm_serial: Optional[str] = typer.Option(None, help="The drive's serial, for scripts."),
    sigrok_cli: SigrokCliOpt = None,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Measure WA: M_p calibration, then 000 Table 3's micro-benchmarks (and sub-tests, OP sweep).

    Exit codes: 0 all steps trusted, 2 bad usage, 4 a step is not trustworthy (its
    counts are kept), 9 the analyser or sigrok-cli failed, 6 the drive was refused."""
    from charz.wa import MockOptions, WaRequest, parse_size  # numpy &c.: only once a command runs


    if mock_ftl is not None and not mock:
        raise UsageError("--mock-ftl chooses the simulated drive's manager: it goes with --mock")
    mock_options = mock_stop_rule = None
    if mock:
        from charz.sim import MOCK_MIN_GAP_US, MOCK_SETTLE_S  # the simulator: heavy, wanted with --mock only
        mock_options = MockOptions(multi_plane=mock_multi_plane, lines=mock_lines, counters=mock_counters,
                                   ftl=mock_ftl, nvm_cache_bytes=parse_size(mock_nvm_cache), keep_sr=mock_keep_sr)
        mock_stop_rule = (MOCK_SETTLE_S, MOCK_MIN_GAP_US)
    req = WaRequest.build(
        mock=mock_options, mock_stop_rule=mock_stop_rule, device=device, logic=logic, out=out, volume=volume,
        sizes=sizes, files=files, benchmarks=benchmarks, subtests=subtests, op_sweep=op_sweep, mp=mp,
        channels=channels, chips=chips, dies=dies, page_size=page_size, planes=planes,
        pages_per_block=pages_per_block, profile=profile, program_window=program_window, read_window=read_window,
        erase_window=erase_window, glitch=glitch, min_gap=min_gap, samplerate=samplerate, settle=settle,
        settle_timeout=settle_timeout, confirm_serial=confirm_serial, sigrok=sigrok_cli)
    quiet = quiet or json_out
    summary = _run_mock(req, quiet, json_out) if mock else _run_device(req, quiet, json_out)
    finish(req.out, summary, quiet, json_out=json_out, verbose=verbose)


def _run_mock(req: WaRequest, quiet: bool, json_out: bool) -> RunSummary:
    """The simulated drive of ``req.mock`` behind the real sigrok-cli, its session files in a
    temporary folder (or kept where ``--mock-keep-sr`` says)."""
    from charz.analysis import WaGeometry  # numpy &c.: only once a command runs
    from charz.wa import create_archive  # lazy: numba, numpy, scipy
    from charz.sim import MockWaBench, ftl_options, mock_config  # the simulator: heavy, wanted with --mock only

    m = req.mock
    try:
        cfg = mock_config(multi_plane=m.multi_plane, lines=m.lines, **ftl_options(m.ftl or "greedy", m.nvm_cache_bytes))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="charz-wa-") as tmp:
        bench = MockWaBench(cfg, m.keep_sr or Path(tmp), samplerate_hz=req.samplerate_hz, settle_s=req.settle_s,
                            counters=m.counters, keep_sr=m.keep_sr is not None)
        geo = WaGeometry.given(*bench.geometry_values(), evidence="the simulated drive's configuration")
        with create_archive(req.out, req.settings(bench.describe(), geo)) as archive:
            return run_with_bars(archive, bench, quiet, json_out=json_out)


def _run_device(req: WaRequest, quiet: bool, json_out: bool) -> RunSummary:
    """The drive at ``req.device`` through the guard, claim, confirmation and initialization
    (restored on every ending), counted through the real sigrok-cli."""
    from charz.wa import DeviceWaBench, create_archive  # numpy &c.: only once a command runs

    with stops(req.out), contextlib.ExitStack() as stack:
        # The archive is made once the drive is initialized (its record goes into it), and
        # closed only after the drive is restored, so the restore is recorded too.
        made: list = []
        stack.callback(lambda: made and made[0].close())
        bench = stack.enter_context(DeviceWaBench.open(
            req.device, req.logic, out=req.out, samplerate_hz=req.samplerate_hz,
            settle_s=req.settle_s, confirm_serial=req.confirm_serial, confirm=ask, sigrok=req.sigrok,
            journal=lambda record: made and made[0].record_initialization(record, [])))
        archive = create_archive(req.out, req.settings(bench.describe()))
        made.append(archive)
        summary = run_with_bars(archive, bench, quiet, json_out=json_out)
    return summary


@wa_app.command("profile")
def profile_cmd(
    out: Path = typer.Argument(..., help="A WA archive."),
    into: Path = typer.Option(..., "--into", help="The charz profile to add the section to (rewritten)."),
    allow_geometry_mismatch: bool = typer.Option(False, help="Add the section even when the WA run's geometry "
                                                             "(channels, chips, dies, page) is not the profile's."),
) -> None:
    """Add (or replace) the profile's write_amplification section from a WA archive.

    Refused (exit 2, nothing written) when the run's geometry is not the profile's."""
    from charz.profile import read_profile, validate_profile, write_profile  # numpy &c.: only once a command runs
    from charz.wa import read_wa, wa_section  # lazy: numba, numpy, scipy


    settings, records = read_wa(out)
    prof = read_profile(into)
    differ = geometry_mismatch(settings.geometry, prof)
    if differ:
        text = "; ".join(f"{name}: run {a}, profile {b}" for name, a, b in differ)
        if not allow_geometry_mismatch:
            raise UsageError(f"{out} was measured with another geometry than {into} describes ({text}): "
                             "its WA (Eq. 7 scales by N_channel · N_chip · N_die · P_a) belongs to another drive "
                             "or another assumption; nothing was written",
                             hint="run charz wa run with --profile on this drive, or add --allow-geometry-mismatch "
                                  "to keep the run's own geometry in the section anyway")
        console.print(wrap(f"warning: geometry differs ({text}); the section keeps the run's own"), markup=False)
    prof["write_amplification"] = wa_section(settings, records)
    write_profile(validate_profile(prof, origin=str(into)), into)
    console.print(f"{into}: write_amplification from {out} ({len(records)} steps)")


def geometry_mismatch(geometry: WaGeometry, profile: dict) -> list[tuple[str, object, object]]:
    """(name, the WA run's value, the profile's) for each of Eq. 7's constants the two disagree on.

    A constant the profile does not know is not compared.

    >>> from charz.analysis import WaGeometry
    >>> p = {"given": {"channels": 10, "packages": 20, "page_size_bytes": 4096}, "results": {}}
    >>> geometry_mismatch(WaGeometry.given(4, 1, 1, 4096), p)
    [('channels', 4, 10), ('chips per channel', 1, 2), ('packages', 4, 20)]
    """
    given, results = profile.get("given") or {}, profile.get("results") or {}
    ch, pk = given.get("channels"), given.get("packages")
    theirs = {"channels": ch, "chips per channel": pk // ch if ch and pk and pk % ch == 0 else None,
              "dies per chip": (results.get("dies_per_package") or {}).get("value"),
              "page": given.get("page_size_bytes")}
    ours = {"channels": "channels", "chips per channel": "chips_per_channel", "dies per chip": "dies_per_chip",
            "page": "page_size"}
    run = {name: getattr(geometry, key).value for name, key in ours.items()}
    a_ch, a_chips = run["channels"], run["chips per channel"]
    run["packages"], theirs["packages"] = (a_ch * a_chips if a_ch and a_chips else None), pk
    return [(name, run[name], theirs[name]) for name in run
            if run[name] is not None and theirs[name] is not None and int(run[name]) != int(theirs[name])]


@wa_app.command("resume")
def resume(
    out: Path = typer.Argument(..., help="The WA archive of an interrupted run."),
    device: Optional[Path] = typer.Option(None, help="Bench: where the drive is now (default: where it was)."),
    logic: Optional[str] = typer.Option(None, help="Bench: sigrok DRIVER:CHANNEL now (default: as before)."),
    confirm_serial: Optional[str] = typer.Option(None, help="Bench: the drive's serial, for scripts."),
    sigrok_cli: Optional[str] = typer.Option(None, "--sigrok-cli", metavar="PATH",
                                             help="Bench: the sigrok-cli to run (default: the run's, else PATH's)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout, as wa show --json."),
) -> None:
    """Run the steps an interrupted charz wa run has no record of (mock or bench)."""
    from charz.archive import WaArchive  # numpy &c.: only once a command runs

    with WaArchive.resume(out) as archive:
        s = archive.settings
        plan = s["plan"]
        todo = [i for i in range(len(plan)) if i not in archive.records]
        console.print(f"resuming {out}: {len(plan) - len(todo)} of {len(plan)} steps done")
        if s["bench"]["kind"] == "mock":
            if device or logic or confirm_serial:
                raise UsageError("--device, --logic and --confirm-serial are for a bench run; this one is --mock")
            summary = _resume_mock(archive, quiet)
        else:
            summary = _resume_device(archive, out, device, logic, confirm_serial, todo, quiet, sigrok_cli)
    finish(out, summary, quiet, json_out=json_out)


def _resume_mock(archive, quiet: bool):
    from charz.sim import MockWaBench  # the simulator: heavy, wanted for a mock archive only
    from charz.sim.ftl import FtlConfig  # lazy: numba, numpy, pyvisa, scipy, the simulator

    s = archive.settings
    cfg = FtlConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in s["bench"]["ftl"].items()})
    with tempfile.TemporaryDirectory(prefix="charz-wa-") as tmp:
        bench = MockWaBench(cfg, Path(tmp), samplerate_hz=s["samplerate_hz"], settle_s=s["settle_s"],
                            counters=s["bench"].get("counters", "micron"))
        return run_with_bars(archive, bench, quiet)


def _resume_device(archive, out: Path, device, logic, confirm_serial, todo: list[int], quiet: bool,
                   sigrok_cli: str | None = None):
    """The same drive (its serial checked against the archive's) through the same guard,
    claim and confirmation as ``run``; the steps without a record run in plan order.  A
    step a kill interrupted starts again from its beginning, on a drive that step's
    partial workload has already written to — as each benchmark runs on the drive the
    ones before it left (only the calibration wants a fresh drive, and says so)."""
    from charz.logic import LogicSpec, parse_logic_spec  # numpy &c.: only once a command runs
    from charz.wa import DeviceWaBench  # lazy: numba, numpy, scipy

    s = archive.settings
    before = s["bench"]["drive"]
    a = s["bench"]["analyser"]
    spec = parse_logic_spec(logic) if logic else LogicSpec(a["driver"], a["channel"], int(a["bit"]),
                                                           tuple(a.get("channels", ())), tuple(a.get("bits", ())))
    target = device or Path(before["path"])
    if todo:
        console.print(wrap(f"step {todo[0]} restarts from its beginning; the drive keeps what an interrupted "
                            "run of it wrote"))
    earlier = s["bench"].get("initializations") or [s["bench"].get("initialization") or {}]
    with stops(out), DeviceWaBench.open(target, spec, out=out,
                                          samplerate_hz=s["samplerate_hz"], settle_s=s["settle_s"],
                                          confirm_serial=confirm_serial, confirm=ask, expect_drive=before,
                                          sigrok=sigrok_cli or a.get("sigrok"), earlier=earlier,
                                          journal=lambda record: archive.record_initialization(record, earlier)) \
            as bench:
        return run_with_bars(archive, bench, quiet)


@wa_app.command("show")
def show(out: Path = typer.Argument(..., help="A WA archive."),
         json_out: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
         verbose: bool = typer.Option(False, "--verbose", "-v", help="Every warning of every step.")) -> None:
    """The result table of a WA archive.

    Exit codes: 0 shown, 3 not a WA archive (or damaged)."""
    from charz.wa import read_wa  # numpy &c.: only once a command runs

    settings, records = read_wa(out)
    if json_out:
        emit_json(json.dumps(format_json(settings, records, out), indent=1))
        return
    console.print(wrap(format_summary(settings, records, verbose=verbose)))


@wa_app.command("report")
def report(
    out: Path = typer.Argument(..., help="A WA archive."),
    to: Optional[Path] = typer.Option(None, "--to", help="Folder for the PNGs (default OUT/report)."),
) -> None:
    """Figures: width histogram with the window, WA per benchmark, WA vs volume, WA vs closed forms.

    Exit codes: 0 written, 3 not a WA archive (or damaged)."""
    from charz.wa import read_wa  # numpy &c.: only once a command runs
    from charz.report import write_wa_pngs  # matplotlib: slow to import, wanted only here
    settings, records = read_wa(out)
    paths, skipped = write_wa_pngs(settings, records, to or out / "report")
    for p in paths:
        console.print(str(p), markup=False)
    for name, why in skipped:  # an empty placeholder figure would say less than this line
        console.print(wrap(f"not drawn: {name}: {why}"), markup=False)


def register(app: typer.Typer) -> None:
    """Add ``charz wa``; ``charz.cli._wa_analyze`` and ``_wa_model`` (registered after this
    module) add their commands to the same :data:`wa_app`."""
    app.add_typer(wa_app, name="wa")


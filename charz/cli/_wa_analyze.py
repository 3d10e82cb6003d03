"""``charz wa analyze FILE…``: WA from R/B recordings charz did not make (one file per step).

parse (files, their host volumes, geometry, channel, windows) → build (plan, file bench,
archive) → run (the same executor as ``wa run``) → the same table / JSON → exit code.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

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
    finish,
    run_with_bars,
    wa_app,
)
from charz.errors import UsageError

if TYPE_CHECKING:
    from charz.wa import HostVolume

__all__ = ["register", "volumes_for"]


def volumes_for(n_files: int, host_bytes: list[str], fio_json: list[Path], blockstat: list[str]) -> list[HostVolume]:
    """One host volume per file, from exactly one of the three options (given once per file)."""
    from charz.wa import HostVolume, parse_size  # numpy &c.: only once a command runs
    given = [(name, v) for name, v in (("--host-bytes", host_bytes), ("--fio-json", fio_json),
                                        ("--blockstat", blockstat)) if v]
    if len(given) != 1:
        raise UsageError("give the host's written bytes one way: --host-bytes N, --fio-json FILE or "
                         "--blockstat BEFORE,AFTER (once per FILE, in order)",
                         hint="L_Volume_Data of Eq. 7 is not in an R/B recording")
    name, vals = given[0]
    if len(vals) != n_files:
        raise UsageError(f"{n_files} file{'s' if n_files != 1 else ''} but {len(vals)} {name}: give one per FILE, "
                         "in the same order")
    out = []
    for v in vals:
        if name == "--host-bytes":
            out.append(HostVolume(host_bytes=parse_size(v)))
        elif name == "--fio-json":
            out.append(HostVolume(fio_json=str(Path(v).resolve())))
        else:
            before, sep, after = v.partition(",")
            if not sep:
                raise UsageError(f"--blockstat wants BEFORE,AFTER (two files with /sys/block/X/stat), not {v!r}")
            out.append(HostVolume(blockstat=(str(Path(before).resolve()), str(Path(after).resolve()))))
    return out


@wa_app.command("analyze")
def analyze(
    files: List[Path] = typer.Argument(..., help="R/B recordings, one per step: .sr, or any format sigrok-cli "
                                                 "reads (give --input-format)."),
    input_format: Optional[str] = typer.Option(None, "--input-format", "-I",
                                               help="sigrok input format and options for non-.sr files, e.g. vcd, "
                                                    "csv:samplerate=1000000:header=false, "
                                                    "binary:samplerate=1000000:numchannels=8."),
    channel: str = typer.Option("D0", help="R/B channel(s) in the file: a name sigrok-cli --show lists, or "
                                           "D<k> for bit k; several dies: D0,D1,…"),
    samplerate: Optional[str] = typer.Option(None, help="Samplerate if the file does not say it (or to override)."),
    host_bytes: List[str] = typer.Option([], "--host-bytes", help="Bytes the host wrote, per FILE (e.g. 128m)."),
    fio_json: List[Path] = typer.Option([], "--fio-json", help="fio's --output-format=json output, per FILE."),
    blockstat: List[str] = typer.Option([], "--blockstat", help="BEFORE,AFTER: two /sys/block/X/stat "
                                                                "readings, per FILE."),
    calibration: bool = typer.Option(False, "--calibration", help="The first FILE is 000 §3.5's sequential "
                                                                  "calibration run on a fresh drive (finds M_p)."),
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
                                                       "(default 10, assumed)."),
    settle: Optional[float] = typer.Option(None, help="R/B must be high this long (s) at the end of a recording "
                                                      "(000 §4.2: 300, the default)."),
    sigrok_cli: SigrokCliOpt = None,
    out: OutOpt = None,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """WA from R/B recordings charz did not make: the same counts, checks, table and archive as wa run.

    Exit codes: 0 all steps trusted, 2 bad usage, 3 the archive cannot be written, 4 a
    step is not trustworthy (its counts are kept), 9 sigrok-cli cannot read a file."""
    # numpy &c.: only once a command runs
    from charz.analysis import PulseWindows
    from charz.logic import find_sigrok_cli, parse_samplerate  # lazy: numba, numpy, scipy
    from charz.wa import (
        FileWaBench,
        WaSettings,
        WaStep,
        create_archive,
        die_notes,
        parse_window,
        resolve_geometry,
        settle_notes,
    )  # lazy: numba, numpy, scipy

    if mp is None and not calibration:
        raise UsageError("give --mp N, or --calibration with the sequential calibration recording first",
                         hint="000 §3.5: M_p is 1 (single-plane programs) or the number of planes")
    if mp is not None and calibration:
        raise UsageError("--mp and --calibration both set M_p: give one")
    try:
        rate = parse_samplerate(samplerate) if samplerate else None
        windows = PulseWindows(program_us=parse_window(program_window), read_us=parse_window(read_window),
                               erase_us=parse_window(erase_window), glitch_us=glitch)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names = [x.strip() for x in channel.split(",") if x.strip()]
    if not names or len(set(names)) != len(names):
        raise UsageError(f"--channel names each R/B channel once, not {channel!r}")
    for f in files:
        if not f.is_file():
            raise UsageError(f"{f}: no such file")
    volumes = volumes_for(len(files), host_bytes, fio_json, blockstat)
    geometry = resolve_geometry(channels, chips, dies, page_size, profile)
    exe = find_sigrok_cli(sigrok_cli)
    settle, min_gap, notes = settle_notes(settle, min_gap)
    notes += die_notes(len(names), geometry.dies, "--channel D0,D1,…")
    plan = tuple(WaStep("calibrate" if calibration and k == 0 else "benchmark", str(f.resolve()), recorded=True,
                        input_format=input_format, label=f.name, host_volume=v)
                 for k, (f, v) in enumerate(zip(files, volumes)))
    out = out or Path("runs") / f"wa-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    bench = FileWaBench(names, sigrok=exe, samplerate_hz=rate)
    settings = WaSettings(plan=plan, windows=windows, samplerate_hz=rate, settle_s=settle, settle_timeout_s=None,
                          geometry=geometry, bench=bench.describe(), m_p_given=mp, planes=planes,
                          pages_per_block=pages_per_block, min_gap_us=min_gap, notes=tuple(notes))
    bench.check(plan)
    with create_archive(out, settings) as archive:
        summary = run_with_bars(archive, bench, quiet, json_out=json_out)
    finish(out, summary, quiet, json_out=json_out, verbose=verbose)


def register(app: typer.Typer) -> None:
    """Nothing to add: ``analyze`` is on :data:`wa_app`, which ``charz.cli._wa`` registers."""

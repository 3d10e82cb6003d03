"""``charz wa analyze FILE…``: WA from R/B recordings charz did not make (one file per step).

parse (files, their host volumes, geometry, channel, windows) → build (plan, file bench,
archive) → run (the same executor as ``wa run``) → the same table / JSON → exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

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

__all__ = ["register"]


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
    from charz.logic import find_sigrok_cli  # lazy: numba, numpy, scipy
    from charz.wa import FileWaBench, WaAnalyzeRequest, create_archive  # lazy: numba, numpy, scipy

    request = WaAnalyzeRequest.build(
        files, input_format=input_format, channel=channel, samplerate=samplerate, host_bytes=host_bytes,
        fio_json=fio_json, blockstat=blockstat, calibration=calibration, mp=mp, channels=channels, chips=chips,
        dies=dies, page_size=page_size, planes=planes, pages_per_block=pages_per_block, profile=profile,
        program_window=program_window, read_window=read_window, erase_window=erase_window, glitch=glitch,
        min_gap=min_gap, settle=settle, out=out)
    bench = FileWaBench(list(request.channels), sigrok=find_sigrok_cli(sigrok_cli),
                        samplerate_hz=request.samplerate_hz)
    bench.check(request.plan)
    with create_archive(request.out, request.settings(bench.describe())) as archive:
        summary = run_with_bars(archive, bench, quiet, json_out=json_out)
    finish(request.out, summary, quiet, json_out=json_out, verbose=verbose)


def register(app: typer.Typer) -> None:
    """Nothing to add: ``analyze`` is on :data:`wa_app`, which ``charz.cli._wa`` registers."""

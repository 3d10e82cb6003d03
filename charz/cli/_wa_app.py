"""The ``charz wa`` command group and what its commands share: the progress bars, the
clean stop on a signal, the drive's confirmation, the result's printing and exit code,
and the options ``wa run`` and ``wa analyze`` both take.

``charz.cli._wa`` (run, resume, show, report, profile), ``_wa_analyze`` and ``_wa_model``
add their commands to :data:`wa_app`; none of them imports another.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from charz.cli._common import console, emit_json
from charz.cli._stop import stoppable
from charz.cli._wa_format import format_json, format_summary, wrap
from charz.errors import AnalysisError

if TYPE_CHECKING:
    from charz.wa import RunSummary

__all__ = ["wa_app", "finish", "run_with_bars", "stops", "ask"]

# -- the options wa run and wa analyze share (one text each; Typer reads them from Annotated) --
MpOpt = Annotated[Optional[int], typer.Option("--mp", help="M_p, pages per program pulse, if known (skips the "
                                                           "calibration).")]
ChannelsOpt = Annotated[Optional[int], typer.Option("--channels", help="N_channel of the drive.")]
ChipsOpt = Annotated[Optional[int], typer.Option("--chips", help="N_chip per channel.")]
DiesOpt = Annotated[Optional[int], typer.Option("--dies", help="N_die per chip.")]
PageSizeOpt = Annotated[Optional[str], typer.Option("--page-size", help="P_a, the NAND page size, e.g. 16k.")]
PlanesOpt = Annotated[Optional[int], typer.Option("--planes", help="Planes per die, if known (admits M_p = planes).")]
PagesPerBlockOpt = Annotated[Optional[int], typer.Option("--pages-per-block", min=2,
                                                         help="Program pulses per erase block, if known: erases "
                                                              "are told by one per block.")]
ProfileOpt = Annotated[Optional[Path], typer.Option("--profile", help="A charz profile giving channels, chips, "
                                                                      "dies, page.")]
ProgramWindowOpt = Annotated[str, typer.Option("--program-window", help="Program pulse window (a, b) µs; SLC: "
                                                                        "200,500.")]
ReadWindowOpt = Annotated[str, typer.Option("--read-window", help="Read pulse window µs.")]
EraseWindowOpt = Annotated[str, typer.Option("--erase-window", help="Erase pulse window µs.")]
GlitchOpt = Annotated[float, typer.Option("--glitch", help="Low or high stretches shorter than this (µs) are "
                                                           "glitches.")]
SigrokCliOpt = Annotated[Optional[str], typer.Option("--sigrok-cli", metavar="PATH",
                                                     help="The sigrok-cli to run (default: the one on PATH).")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="WA archive to create (default "
                                                                    "runs/wa-<time>).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout (no table, no bars).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Every warning of every step.")]

wa_app = typer.Typer(name="wa", no_args_is_help=True, add_completion=False,
                     help="Write amplification from a NAND die's Ready/Busy pin (RB-Explorer, 000).")


def finish(out: Path, summary: RunSummary, quiet: bool, *, json_out: bool = False, verbose: bool = False) -> None:
    """Print the result (the table, or ``--json``'s document) and raise if a step is not trusted."""
    if json_out:
        emit_json(json.dumps(format_json(summary.settings, summary.records, out), indent=1))
    else:
        console.print(wrap(format_summary(summary.settings, summary.records, verbose=verbose)))
        console.print(f"archive   {out}")
    if summary.untrusted:
        n, of = len(summary.untrusted), len(summary.records)
        raise AnalysisError(f"{n} of {of} step{'s' if of != 1 else ''} {'is' if n == 1 else 'are'} not trustworthy",
                            hint="see the errors above and the width histogram (charz wa report DIR)")



@contextlib.contextmanager
def _bars(steps: int, enabled: bool):
    """Two rich bars on stderr, ≤ 80 columns: the run's steps, and how far the current
    step is (its workload, then the R/B settle wait) — a bench step can take hours."""
    if not enabled:
        yield None
        return
    err = Console(stderr=True, emoji=False)
    err.width = min(err.width, 80)
    bars = Progress(TextColumn("{task.description:<30.30}"), BarColumn(bar_width=16),
                    TextColumn("{task.fields[count]:>6}"), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), console=err)
    with bars:
        yield bars, bars.add_task("wa", total=steps, count=f"0/{steps}"), \
            bars.add_task("  step", total=1.0, count="")



def run_with_bars(archive, bench, quiet: bool, *, json_out: bool = False):
    """Run the plan with bars on stderr; with ``json_out`` stdout carries the JSON only (the
    steps' errors go to stderr as they happen)."""
    from charz.wa import run_plan  # numpy &c.: only once a command runs

    plan = archive.settings["plan"]
    todo = sum(1 for i in range(len(plan)) if i not in archive.records)
    if json_out:
        return run_plan(archive, bench, log=lambda t: print(wrap(t), file=sys.stderr))
    with _bars(todo, not quiet) as ui:
        if ui is None:
            return run_plan(archive, bench, log=lambda t: console.print(wrap(t)))
        bars, run_task, step_task = ui
        done = [-1]

        def progress(i: int, n: int, label: str) -> None:
            done[0] += 1
            bars.update(run_task, completed=done[0], count=f"{done[0]}/{todo}", description=label)
            if i < n:
                bars.reset(step_task, total=1.0, count="", description="  starting the workload")
            else:
                bars.update(step_task, visible=False)

        def step_progress(fraction: float, text: str) -> None:
            bars.update(step_task, completed=fraction, count=f"{100 * fraction:.0f} %", description=f"  {text}")

        return run_plan(archive, bench, log=lambda t: bars.console.print(wrap(t)), progress=progress,
                        step_progress=step_progress)


@contextlib.contextmanager
def stops(out: Path):
    """A bench run stops cleanly on Ctrl-C, SIGTERM and SIGHUP: the drive's settings are put
    back on the way out (as characterize does), then the exit status says which signal."""
    try:
        with stoppable():
            yield
    except KeyboardInterrupt as exc:
        with contextlib.suppress(OSError, ValueError):  # SIGHUP: the terminal may be gone
            line = (f"stopped; the drive's settings are put back; continue with: charz wa resume {out}"
                    if (Path(out) / "wa.json").exists() else "stopped before the run began; the drive's settings "
                    "are put back")
            Console(stderr=True, emoji=False, highlight=False).print(line, markup=False)
        raise typer.Exit(getattr(exc, "exit_code", 130))


def ask(text: str, token_name: str) -> str | None:
    """The drive's confirmation, on stderr (stdout carries the result, JSON with --json)."""
    Console(stderr=True, emoji=False, highlight=False, soft_wrap=True).print(wrap(text), markup=False)
    if not sys.stdin.isatty():
        return None
    return typer.prompt(f"type the {token_name} to go on")

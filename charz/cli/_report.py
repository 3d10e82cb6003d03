"""``charz report DIR``: the evidence behind a profile, as PNG figures and one self-contained HTML page.

parse → build (read the archive, find or make the profile, measure) → run (draw) →
write → print where the files are.  Matplotlib is imported only when the command
runs, so the rest of the CLI starts as fast without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

import typer

from charz.cli._common import console, damage_hints, note, progress_bar
from charz.errors import UsageError
from charz._text import fold

if TYPE_CHECKING:  # the report (and matplotlib) load only when the command runs
    from charz.report import Section, Written

__all__ = ["format_written", "register"]


def format_written(written: Written, *, sections: Sequence[Section], computed_profile: Path | None) -> str:
    """What was written, one line per file; figures not drawn say why.

    Examples
    --------
    >>> from charz.report import Section, Written
    >>> w = Written(Path("out/report.html"), (Path("out/1-peak-staircase.png"),))
    >>> print(format_written(w, sections=[Section("5-validation", "Validation", "", (), None, "no rows")],
    ...                      computed_profile=None))
    report   out/report.html
    figure   out/1-peak-staircase.png
    skipped  Validation: no rows
    """
    lines = [f"report   {written.html}"]
    lines += [f"figure   {path}" for path in written.pngs]
    lines += [fold(f"{s.title}: {s.note}", first="skipped  ") for s in sections if not s.drawn]
    if computed_profile is not None:
        lines.append(fold(f"{computed_profile} (the session had none; made now, as charz analyze would)",
                          first="profile  "))
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        session: Path = typer.Argument(..., help="Session directory (from charz characterize or charz simulate)."),
        output: Optional[Path] = typer.Option(None, "-o", "--output", help="Directory for report.html and the PNGs "
                                                                           "(default SESSION/report)."),
        profile: Optional[Path] = typer.Option(None, "--profile", help="Profile to explain (default SESSION/profile.toml; "
                                                                       "if that is missing the session is analysed now)."),
        tolerant: bool = typer.Option(False, help="Skip damaged captures (each is listed in the report) instead of stopping."),
        wa: Optional[Path] = typer.Option(None, "--wa", help="A WA archive (charz wa run) whose figures join the page."),
    ) -> None:
        """Draw the evidence behind a profile's numbers: PNG figures and one self-contained HTML page.

        SESSION may also be a WA archive (charz wa run): the page is then its WA figures."""
        from charz.profile import write_profile  # lazy: numba, numpy, scipy
        from charz.report import build_report, load_inputs, write_report  # lazy: matplotlib, numba, numpy, scipy

        out_dir = output or session / "report"
        if (session / "wa.json").is_file():  # a WA archive: its own page
            if wa is not None:
                raise UsageError(f"{session} is itself a WA archive; --wa adds one to a characterization session")
            from charz.report import wa_report  # lazy: matplotlib, numba, numpy, scipy
            from charz.wa import read_wa  # lazy: numba, numpy, scipy
            settings, records = read_wa(session)
            rep = wa_report(settings, records, session=str(session))
            written = write_report(rep, out_dir)
            console.print(format_written(written, sections=rep.sections, computed_profile=None), markup=False)
            return
        wa_data = None
        if wa is not None:
            from charz.wa import read_wa  # lazy: numba, numpy, scipy
            wa_data = read_wa(wa)
        # Reading and measuring every capture, then drawing, take seconds each: say what is going on.
        analysing = profile is None and not (session / "profile.toml").exists()
        note(fold(f"reading {session} and measuring each capture"
                  + (" (no profile.toml: analysing the session too)" if analysing else "") + " ...",
                  first="report: ", rest="  "))
        with damage_hints(reading=True):
            inputs = load_inputs(session, profile_path=profile, tolerant=tolerant)
        n = len(inputs.captures)
        note(f"report: {n} capture{'s' if n != 1 else ''} measured; drawing the figures")  # ≤ 80 columns
        with progress_bar(1, "drawing") as bar:
            def drawing(key: str, i: int, total: int) -> None:
                if i == 0:
                    bar.total(total)
                else:
                    bar.advance()
                bar.describe(f"drawing {key}")

            rep = build_report(inputs.profile, inputs.measured, inputs.captures, session=str(session),
                               profile_source=inputs.profile_source, damaged=inputs.damaged, wa=wa_data,
                               progress=drawing)
            bar.advance()
        written = write_report(rep, out_dir)
        # A profile made on the fly is kept beside the report, so the page's numbers can be checked later.
        computed = write_profile(inputs.profile, out_dir / "profile.toml") if inputs.computed else None
        console.print(format_written(written, sections=rep.sections, computed_profile=computed), markup=False)

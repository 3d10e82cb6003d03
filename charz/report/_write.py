"""The report's only file I/O: write the PNGs and the HTML page into one directory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from charz.archive import write_atomic
from charz.errors import UsageError
from charz.report._html import render_html
from charz.report._model import Report

__all__ = ["HTML_NAME", "Written", "write_report"]

HTML_NAME = "report.html"


@dataclass(frozen=True)
class Written:
    html: Path
    pngs: tuple[Path, ...]


def write_report(report: Report, out_dir: str | os.PathLike) -> Written:
    """Write ``report.html`` and one PNG per drawn figure into ``out_dir`` (created if needed).

    Examples
    --------
    >>> import tempfile
    >>> from charz.report._model import Report
    >>> written = write_report(Report({"results": {}}, (), "s", "p"), tempfile.mkdtemp())
    >>> written.html.name, written.pngs
    ('report.html', ())
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        pngs = []
        for section in report.sections:
            if section.png is not None:
                path = out / section.file_name
                write_atomic(path, lambda f, png=section.png: f.write(png))
                pngs.append(path)
        html_path = out / HTML_NAME
        html = render_html(report).encode("utf-8")
        # Atomic: a browser auto-refreshing the page never sees half a file.
        write_atomic(html_path, lambda f: f.write(html))
    except OSError as exc:
        raise UsageError(f"cannot write the report into {out}: {exc.strerror or exc}",
                         hint="choose another directory with -o") from None
    return Written(html_path, tuple(pngs))

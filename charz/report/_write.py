"""The report's only file I/O: write the PNGs and the HTML page into one directory."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from charz.errors import CharzError
from charz.report._html import render_html
from charz.report._model import Report

__all__ = ["HTML_NAME", "Written", "write_report"]

HTML_NAME = "report.html"


@dataclass(frozen=True)
class Written:
    html: Path
    pngs: tuple[Path, ...]


def _write_bytes(path: Path, data: bytes) -> None:
    # Temp file + rename: a reader (a browser auto-refreshing) never sees half a file.
    # os.open with 0o666 lets the umask decide the mode, as for any file a user writes.
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    replaced = False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        replaced = True
    finally:
        if not replaced:  # whatever stopped us, leave no temp file behind
            tmp.unlink(missing_ok=True)


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
                _write_bytes(path, section.png)
                pngs.append(path)
        html_path = out / HTML_NAME
        _write_bytes(html_path, render_html(report).encode("utf-8"))
    except OSError as exc:
        raise CharzError(f"cannot write the report into {out}: {exc.strerror or exc}",
                         hint="choose another directory with -o") from None
    return Written(html_path, tuple(pngs))

"""``charz show DIR [INDEX]``: one capture as a PNG, and a few lines about it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, emit_json
from charz.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("show")
    def show(
        session: Path = typer.Argument(..., help="Session directory."),
        index: int = typer.Argument(0, min=0, help="Capture number (0 first)."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="PNG to write (default SESSION/capture-NNNNNN.png)."),
        as_json: bool = typer.Option(False, "--json", help="Print what the capture is as JSON (charz.show/1)."),
    ) -> None:
        """Plot one capture (PNG) and print what it is: op, size, timing, current range."""
        from charz.archive import read_archive, write_atomic  # lazy: numpy
        from charz.report import capture_figure, capture_summary  # lazy: matplotlib, numba, numpy, scipy
        from charz.report import figure_png  # lazy: matplotlib, numba, numpy, scipy

        archive = read_archive(session, verify=False)
        n = len(archive.captures)
        if index >= n:
            raise UsageError(f"{session} has {n} capture{'s' if n != 1 else ''}; there is no capture {index}",
                             hint=f"give an index from 0 to {n - 1}" if n else "the session has no captures yet")
        cap = archive.captures[index]
        if not any(ch.name == "current" for ch in cap.channels):
            raise UsageError(f"capture {index} has no current channel")
        png = figure_png(capture_figure(cap))
        out = output or session / f"capture-{index:06d}.png"
        try:
            write_atomic(out, lambda f: f.write(png))
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}", hint="choose another file with -o") from None
        if as_json:
            emit_json(json.dumps(capture_facts(cap, out), indent=2))
            return
        console.print(capture_summary(cap), markup=False)
        console.print(f"figure   {out}", markup=False)


def capture_facts(cap, figure: Path) -> dict:
    """The --json document: the capture's metadata and its current channel's range, in SI units."""
    import numpy as np  # lazy: numpy

    w = cap.channel("current").waveform
    y = w.values()
    clipped = int(np.count_nonzero((w.codes <= w.code_min) | (w.codes >= w.code_max)))
    return {
        "schema": "charz.show/1",
        "index": cap.index, "op": cap.op, "size_bytes": cap.size_bytes, "offset_bytes": cap.offset_bytes,
        "repeat": cap.repeat, "step": cap.step,
        "samples": int(y.size), "sample_interval_s": cap.sample_interval_s,
        "time_reference": cap.time_reference, "t_first_sample_s": cap.t_first_sample_s,
        "current": {"source": w.source, "unit": w.unit, "min": float(y.min()),
                    "median": float(np.median(y)), "max": float(y.max()), "clipped_samples": clipped},
        "warnings": list(cap.warnings),
        "figure": str(figure),
    }

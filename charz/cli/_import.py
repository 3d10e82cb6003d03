"""``charz import FOLDER --out DIR`` and ``charz export DIR --out FOLDER --format F``: scope files ↔ archive."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

import tomli_w
import typer

from charz.cli._common import console, progress_bar
from charz.cli._conventions import ExportFormat
from charz.errors import UsageError


def _guess(folder: Path, manifest: Path, amps_per_volt: float | None, quiet: bool) -> None:
    """Write the manifest guessed from ``folder``'s names and headers to ``manifest``; print the guesses."""
    from charz.archive import write_atomic  # lazy: numpy
    from charz.importer import SUFFIXES, read_records  # lazy: numpy, pyvisa
    from charz.importer import guess_folder, manifest_doc  # lazy: numpy, pyvisa

    if manifest.exists():
        raise UsageError(f"{manifest} exists; charz does not overwrite a manifest",
                         hint="move it aside, or pass --manifest NEW.toml for the guessed one")
    names = [p.name for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES]
    if not names:
        raise UsageError(f"{folder}: no scope files ({', '.join(SUFFIXES)})")
    guesses = guess_folder(names)
    headers, volts = {}, []
    for g in guesses:
        if g.complete:
            recs = read_records(folder / g.file)
            headers[g.file] = [(w.source, w.unit) for w in recs]
            if all(w.unit != "A" for w in recs):
                volts.append(g.file)
    missed = [g.file for g in guesses if not g.complete]
    if not quiet:
        console.print(f"{'file':<32} {'op':<6} {'size':>9} {'repeat':>6}  channels (header)")
        for g in guesses:
            if g.complete:
                chans = ", ".join(f"{n} [{u or '?'}]" for n, u in headers[g.file])
                chans = chans if len(chans) <= 22 else chans[:21] + "…"     # 80 columns
                rep = f"{g.repeat}" + ("" if g.repeat_from_name else "*")
                console.print(f"{g.file[:32]:<32} {g.op:<6} {g.size_bytes:>9} {rep:>6}  {chans}")
        console.print("op, size and repeat from the file names; * repeat counted in name order")
    if missed:
        shown = ", ".join(missed[:5]) + (f" and {len(missed) - 5} more" if len(missed) > 5 else "")
        text = (f"warning: no op and size in the name of {len(missed)} file{'s' if len(missed) != 1 else ''} "
                f"({shown}); left out of the manifest")
        console.print(textwrap.fill(text, 80, subsequent_indent="  "), style="yellow")
    if len(missed) == len(guesses):
        raise UsageError(f"{folder}: no file name says its op and size",
                         hint="name files like write-4k-0.csv, or write the manifest by hand (docs/import.md)")
    doc = manifest_doc(guesses, headers, amps_per_volt)
    text = f"# guessed by charz import --guess from the names in {folder}; check it\n"
    if volts and amps_per_volt is None:
        text += "# the files are in volts: set amps_per_volt = <your probe's A per V> (or pass --amps-per-volt)\n"
    text += tomli_w.dumps(doc)
    write_atomic(manifest, lambda f: f.write(text.encode("utf-8")))
    n = len(doc["capture"])
    console.print(f"{n} capture{'s' if n != 1 else ''} guessed → {manifest}")


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        folder: Path = typer.Argument(..., help="Folder of scope-saved files (Tek CSV/ISF/WFM, Keysight CSV/BIN) and manifest.toml."),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Session directory to create (must not exist or be empty)."),
        manifest: Optional[Path] = typer.Option(None, help="Manifest file (default: FOLDER/manifest.toml; format in docs/import.md)."),
        guess: bool = typer.Option(False, "--guess", help="Write the manifest from the file names (op, size, repeat) and headers (channels), print what was guessed; with --out, import it too."),
        amps_per_volt: Optional[float] = typer.Option(None, "--amps-per-volt", help="With --guess: the current probe's A per V, for files in volts."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar, no guess table."),
    ) -> None:
        """Turn waveforms the scope saved itself into a session that analyze, report and tune take.

        Exit codes: 0 done; 2 bad input (a file, the manifest or an option); 3 the
        session directory exists and is not empty.  Nothing is written on an error.
        """
        from charz.importer import import_folder, load_manifest  # lazy: numpy, pyvisa
        from charz.importer import MANIFEST_NAME  # lazy: numpy, pyvisa

        man_path = manifest or folder / MANIFEST_NAME
        if guess:
            _guess(folder, man_path, amps_per_volt, quiet)
            if out is None:
                console.print(f"next: check it, then charz import {folder}"
                              + (f" --manifest {manifest}" if manifest else "") + " --out SESSION")
                return
        elif out is None:
            raise UsageError("--out SESSION is missing", hint="charz import FOLDER --out SESSION (or --guess to write a manifest)")
        n_entries = len(load_manifest(man_path).entries)
        with progress_bar(n_entries, "importing", enabled=not quiet) as bar:
            n, warnings = import_folder(folder, out, manifest=man_path, progress=bar)
        for w in warnings:
            console.print(f"warning: {w}")
        console.print(f"{n} capture{'s' if n != 1 else ''} → {out}   (next: charz analyze {out})")

    @app.command("export")
    def export(
        session: Path = typer.Argument(..., help="Session directory."),
        out: Path = typer.Option(..., "--out", "-o", help="Folder to write (must not exist or be empty)."),
        format: ExportFormat = typer.Option("tek-csv", "--format", help="File format to write."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Write a session's captures as scope files plus the manifest charz import reads back.

        Exit codes: 0 done; 2 bad input (unknown format, OUT not empty); 3 the session
        cannot be read.
        """
        from charz.archive import read_archive  # lazy: numpy
        from charz.importer import export_archive  # lazy: numpy, pyvisa

        total = len(read_archive(session, verify=False).captures)
        with progress_bar(total, f"exporting {format}", enabled=not quiet) as bar:
            n = export_archive(session, out, format, progress=bar)
        console.print(f"{n} file{'s' if n != 1 else ''} + manifest.toml → {out}")

"""``charz import FOLDER --out DIR`` and ``charz export DIR --out FOLDER --format F``: scope files ↔ archive."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, progress_bar
from charz.cli._conventions import ExportFormat


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        folder: Path = typer.Argument(..., help="Folder of scope-saved files (Tek CSV/ISF/WFM, Keysight CSV/BIN) and manifest.toml."),
        out: Path = typer.Option(..., help="Session directory to create (must not exist or be empty)."),
        manifest: Optional[Path] = typer.Option(None, help="Manifest file (default: FOLDER/manifest.toml; format in docs/import.md)."),
        quiet: bool = typer.Option(False, help="No progress bar."),
    ) -> None:
        """Turn waveforms the scope saved itself into a session that analyze, report and tune take."""
        from charz.importer import import_folder, load_manifest
        from charz.importer._manifest import MANIFEST_NAME

        n_entries = len(load_manifest(manifest or folder / MANIFEST_NAME).entries)
        with progress_bar(n_entries, "importing", enabled=not quiet) as bar:
            n, warnings = import_folder(folder, out, manifest=manifest, progress=bar)
        for w in warnings:
            console.print(f"warning: {w}")
        console.print(f"{n} capture{'s' if n != 1 else ''} → {out}   (next: charz analyze {out})")

    @app.command("export")
    def export(
        session: Path = typer.Argument(..., help="Session directory."),
        out: Path = typer.Option(..., help="Folder to write (must not exist or be empty)."),
        format: ExportFormat = typer.Option("tek-csv", "--format", help="File format to write."),
        quiet: bool = typer.Option(False, help="No progress bar."),
    ) -> None:
        """Write a session's captures as scope files plus the manifest charz import reads back."""
        from charz.archive import read_archive
        from charz.importer import export_archive

        total = len(read_archive(session, verify=False).captures)
        with progress_bar(total, f"exporting {format}", enabled=not quiet) as bar:
            n = export_archive(session, out, format, progress=bar)
        console.print(f"{n} file{'s' if n != 1 else ''} + manifest.toml → {out}")

"""``charz analyze DIR``: a session directory → a profile, and a summary a person can read."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, damage_hints, emit_json
from charz.cli._summary import format_summary, new_notes

__all__ = ["format_summary", "new_notes", "register"]  # characterize prints the same summary


def register(app: typer.Typer) -> None:
    @app.command()
    def analyze(
        session: Path = typer.Argument(..., help="Session directory (from charz characterize or charz simulate)."),
        output: Optional[Path] = typer.Option(None, "-o", "--output", help="Profile file to write (default SESSION/profile.toml; .json for JSON)."),
        json_out: bool = typer.Option(False, "--json", help="Print the profile as JSON instead of the summary."),
        channels: Optional[int] = typer.Option(None, min=1, help="Channels (spec sheet), overriding the session's."),
        packages: Optional[int] = typer.Option(None, min=1, help="Flash packages (count them on the board)."),
        page_size: Optional[str] = typer.Option(None, help="Page size, e.g. 4k or 8k."),
        t_xfer_us: Optional[float] = typer.Option(None, help="Register transfer time per page in µs (NAND datasheet)."),
        t_prog_us: Optional[float] = typer.Option(None, help="Page program time in µs (NAND datasheet)."),
        t_switch_us: Optional[float] = typer.Option(None, help="Channel-switch delay in µs, if known."),
        host_rate: Optional[float] = typer.Option(None, help="Host link payload rate in bytes/s (SATA 2 ≈ 3e8)."),
        rail_v: Optional[float] = typer.Option(None, help="Voltage of the rail the probe measures, for energy."),
        tolerant: bool = typer.Option(False, help="Skip damaged captures (each is reported) instead of stopping."),
    ) -> None:
        """Infer dies per package, write I/O unit and allocation scheme from a session; write a profile."""
        from charz.profile import to_json, write_profile  # lazy: numba, numpy, scipy
        from charz.profile import analyze_archive  # lazy: numba, numpy, scipy
        from charz.session import parse_size  # lazy: numba, numpy, scipy

        overrides = {
            "channels": channels,
            "packages": packages,
            "page_size_bytes": parse_size(page_size) if page_size else None,
            "t_xfer_page_us": t_xfer_us,
            "t_prog_us": t_prog_us,
            "t_switch_us": t_switch_us,
            "host_rate_bytes_per_s": host_rate,
            "rail_v": rail_v,
        }
        with damage_hints(reading=True):
            _, profile, _ = analyze_archive(session, overrides=overrides, tolerant=tolerant)
        target = write_profile(profile, output or session / "profile.toml")
        if json_out:
            emit_json(to_json(profile))
        else:
            console.print(format_summary(profile), markup=False)
            console.print(f"\nprofile written to {target}", markup=False)

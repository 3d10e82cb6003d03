"""``charz analyze DIR``: a session directory → a profile, and a summary a person can read."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from charz.cli._common import console, damage_hints

_ORDER = (
    ("n_step", "steps of peak current (N_step)"),
    ("step_pages", "step width (D_step)"),
    ("dies_per_package", "dies per package"),
    ("write_io_unit_bytes", "write I/O unit"),
    ("read_io_unit_bytes", "read I/O unit"),
    ("allocation_scheme", "allocation scheme"),
    ("t_switch_s", "channel switch"),
    ("t_xfer_page_s", "register transfer / page"),
    ("t_prog_s", "program time"),
    ("idle_a", "idle current"),
    ("m_peak_a", "m_peak (one unit)"),
    ("M_peak_a", "M_peak (all packages)"),
)


_SINGULAR = {"steps": "step", "pages": "page", "dies": "die", "packages": "package", "channels": "channel"}


def _given_value(v: Any) -> str:
    """Given numbers as a person writes them: 8e-05, not 7.999999999999999e-05."""
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _fmt_value(q: dict[str, Any]) -> str:
    v, unit = q.get("value"), q.get("unit", "")
    if v is None:
        more = (q.get("details") or {}).get("more_than_bytes")
        if more:
            return f"> {more} B ({more / 1024:g} KiB)"
        guess = q.get("best_guess")
        return "undetermined" + (f" (leans to {guess})" if guess is not None else "")
    if unit == "B":
        return f"{v} B ({v / 1024:g} KiB)" if v >= 1024 else f"{v} B"
    if unit == "s":
        text = f"{v * 1e6:.1f} µs"
        if q.get("uncertainty"):
            text += f" ± {q['uncertainty'] * 1e6:.1f}"
        return text
    if unit == "A":
        text = f"{v * 1e3:.1f} mA"
        if q.get("uncertainty"):
            text += f" ± {q['uncertainty'] * 1e3:.1f}"
        return text
    if v == 1:
        unit = _SINGULAR.get(unit, unit)
    return f"{v} {unit}".strip()


def format_summary(profile: dict[str, Any]) -> str:
    """The profile as lines of text: each number with where it came from and how sure it is."""
    dev = profile.get("device", {})
    prov = profile.get("provenance", {})
    lines = [
        f"drive    {dev.get('model', '?')}  serial {dev.get('serial', '?')}",
        f"source   {prov.get('archive', '?')}  ({prov.get('bench_kind', '?')} bench, "
        f"{prov.get('captures_used', 0)}/{prov.get('captures_total', 0)} captures used)",
        "given    " + ", ".join(f"{k}={_given_value(v)}" for k, v in profile.get("given", {}).items()),
        "",
    ]
    results = profile.get("results", {})
    width = max(len(label) for _, label in _ORDER)
    for key, label in _ORDER:
        q = results.get(key)
        if q is None:
            continue
        lines.append(f"  {label:<{width}}  {_fmt_value(q):<28} {q.get('origin', ''):<9} {q.get('confidence', '')}")
        if q.get("confidence") in ("undetermined", "medium", "low") and q.get("evidence"):
            lines.append(f"  {'':<{width}}    ↳ {q['evidence']}")
    alloc = profile.get("allocation")
    if alloc and alloc.get("candidates"):
        lines += ["", "  allocation candidates (all full-unit sizes; predicted vs measured):"]
        measured = alloc.get("measured_s", [])
        lines.append("    sizes (pages)  " + " ".join(f"{s:>7d}" for s in alloc.get("sizes_pages", [])))
        lines.append("    measured µs    " + " ".join(f"{m * 1e6:7.0f}" for m in measured))
        for c in alloc["candidates"][:5]:
            pred = " ".join(f"{p * 1e6:7.0f}" for p in c["predicted_s"])
            lines.append(f"    {c['scheme']:<14} {pred}   rms {c['rms_residual_s'] * 1e6:.0f} µs  ({', '.join(c['layouts'][:2])})")
    rmw = profile.get("rmw")
    if rmw:
        verdict = {True: "yes", False: "no", None: "undetermined"}[rmw.get("detected")]
        sizes = rmw.get("affected_sizes_bytes", [])
        shown = ", ".join(f"{b // 1024}K" for b in sizes[:8]) + (" …" if len(sizes) > 8 else "")
        lines += ["", f"  read-modify-write below the unit: {verdict} ({rmw.get('confidence')})"
                  + (f" — writes of {shown}" if sizes else ""), f"    ↳ {rmw.get('reason', '')}"]
    power = profile.get("power") or {}
    budget = power.get("budget")
    if budget:
        rows = ", ".join(f"{r['packages']}: {r['peak_a'] * 1e3:.0f} mA" for r in budget["rows"][:8])
        lines += ["", f"  power budget (busy packages: peak): {rows}"
                  + (" …" if len(budget["rows"]) > 8 else ""),
                  f"    ↳ +{budget['per_package_a'] * 1e3:.1f} mA per package ({budget['origin']})"]
    energy = power.get("energy")
    if energy:
        rail = power.get("rail_v", {})
        unit_b = (results.get("write_io_unit_bytes") or {}).get("value")
        pick = [e for e in energy if e["op"] == "write" and e["size_bytes"] in (unit_b, energy[0]["size_bytes"])]
        for e in pick[:2]:
            lines.append(f"  energy per {e['size_bytes'] // 1024} KiB write: {e['energy_j'] * 1e3:.2f} mJ "
                         f"({e['energy_per_byte_j'] * 1e9:.1f} nJ/B) at {rail.get('value', '?')} V ({rail.get('origin', '?')})")
    warnings = profile.get("warnings", [])
    if warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in warnings]
    return "\n".join(lines)


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
        from charz.profile import to_json, write_profile
        from charz.profile._pipeline import analyze_archive
        from charz.session._plan import parse_size

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
            typer.echo(to_json(profile), nl=False)
        else:
            console.print(format_summary(profile), markup=False)
            console.print(f"\nprofile written to {target}", markup=False)

"""``charz diff A B``: two profiles side by side, only the fields that differ, with origins and confidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from charz.cli._common import console

_UNITS = {"s": (1e6, "µs"), "A": (1e3, "mA")}


def _profile_path(p: Path) -> Path:
    """A profile file, or a session directory's profile (the one charz analyze writes there)."""
    if p.is_dir():
        for name in ("profile.toml", "profile.json"):
            if (p / name).is_file():
                return p / name
        from charz.errors import UsageError
        raise UsageError(f"{p} has no profile.toml", hint=f"run charz analyze {p} first")
    return p


def _value(q: dict[str, Any]) -> str:
    v, unit = q.get("value"), q.get("unit", "")
    if v is None:
        return "undetermined"
    if isinstance(v, float) and unit in _UNITS:
        scale, shown = _UNITS[unit]
        return f"{v * scale:.4g} {shown}"
    if unit == "B" and isinstance(v, int) and v >= 1024:
        return f"{v // 1024} KiB" if v % 1024 == 0 else f"{v} B"
    return f"{v:.4g}" if isinstance(v, float) else f"{v} {unit}".strip()


def _cell(q: dict[str, Any] | None) -> str:
    if q is None:
        return "(absent)"
    return f"{_value(q)} ({q.get('origin', '?')}, {q.get('confidence', '?')})"


def diff_profiles(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(field, A, B) for each given value and result that differs, in value, origin or confidence."""
    rows = []
    ga, gb = a.get("given", {}), b.get("given", {})
    for key in sorted(set(ga) | set(gb)):
        if ga.get(key) != gb.get(key):
            rows.append((f"given {key}", str(ga.get(key, "(absent)")), str(gb.get(key, "(absent)"))))
    ra, rb = a.get("results", {}), b.get("results", {})
    for key in list(ra) + [k for k in rb if k not in ra]:
        qa, qb = ra.get(key), rb.get(key)
        same = qa is not None and qb is not None and all(
            qa.get(f) == qb.get(f) for f in ("value", "origin", "confidence"))
        if not same:
            rows.append((key, _cell(qa), _cell(qb)))
    for key in ("detected", "confidence"):
        va, vb = (a.get("rmw") or {}).get(key), (b.get("rmw") or {}).get(key)
        if va != vb:
            rows.append((f"read-modify-write {key}", str(va), str(vb)))
    return rows


def format_diff(name_a: str, name_b: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    rows = diff_profiles(a, b)
    da, db = a.get("device", {}), b.get("device", {})
    head = [f"A  {name_a}: {da.get('model', '?')}", f"B  {name_b}: {db.get('model', '?')}", ""]
    if not rows:
        return "\n".join(head + ["the profiles agree on every given value and result"])
    lines = head + [f"{len(rows)} field{'s' if len(rows) != 1 else ''} differ:"]
    for key, va, vb in rows:
        lines += [f"  {key}", f"    A  {va}", f"    B  {vb}"]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("diff")
    def diff(
        a: Path = typer.Argument(..., help="Profile file, or session directory with a profile."),
        b: Path = typer.Argument(..., help="Profile file, or session directory with a profile."),
    ) -> None:
        """Compare two profiles: the fields that differ, each with its origin and confidence."""
        from charz.profile import read_profile

        pa, pb = _profile_path(a), _profile_path(b)
        console.print(format_diff(str(pa), str(pb), read_profile(pa), read_profile(pb)))

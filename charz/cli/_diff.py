"""``charz diff A B``: two profiles side by side, only the fields that differ, with origins and confidence."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import typer

from charz._text import fold
from charz.cli._common import console, emit_json
from charz.errors import UsageError

_UNITS = {"s": (1e6, "µs"), "A": (1e3, "mA")}


def _profile_path(p: Path) -> Path:
    """A profile file, or a session directory's profile (the one charz analyze writes there)."""
    if p.is_dir():
        for name in ("profile.toml", "profile.json"):
            if (p / name).is_file():
                return p / name
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


def _given_text(v: Any) -> str:
    if v is None:
        return "(absent)"
    return f"{v:.6g}" if isinstance(v, float) else str(v)


# A value differs "beyond its uncertainty" when the two sides are further apart than twice
# their combined standard uncertainty (each profile states one standard error): about a 95 %
# coverage, so two runs of the same drive rarely count as different.
COVERAGE = 2.0


def _beyond(qa: dict[str, Any] | None, qb: dict[str, Any] | None) -> bool:
    """Whether the values differ beyond the stated uncertainty (or, with none stated, as printed)."""
    if qa is None or qb is None:
        return True
    va, vb = qa.get("value"), qb.get("value")
    if _value(qa) == _value(qb):
        return False
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb))
    ua, ub = qa.get("uncertainty"), qb.get("uncertainty")
    if numbers and (ua is not None or ub is not None):
        return abs(va - vb) > COVERAGE * math.hypot(ua or 0.0, ub or 0.0)
    return True


def diff_profiles(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """The fields whose two sides print differently, each with whether its value differs beyond uncertainty.

    Each row: ``field``, ``a`` and ``b`` (as printed), ``beyond`` (bool: the value differs
    beyond the stated uncertainty, or is not a number and differs, or is absent on one side;
    False when only origin or confidence changed, or the change is within the uncertainty)
    and ``within`` (a note when the values differ within it).
    """
    rows = []
    ga, gb = a.get("given", {}), b.get("given", {})
    for key in sorted(set(ga) | set(gb)):
        ta, tb = _given_text(ga.get(key)), _given_text(gb.get(key))
        if ta != tb:
            rows.append({"field": f"given {key}", "a": ta, "b": tb, "beyond": True, "within": ""})
    ra, rb = a.get("results", {}), b.get("results", {})
    for key in list(ra) + [k for k in rb if k not in ra]:
        qa, qb = ra.get(key), rb.get(key)
        ca, cb = _cell(qa), _cell(qb)
        if ca == cb:
            continue  # identical as printed: not a difference a person could see
        beyond = _beyond(qa, qb)
        within = ""
        if not beyond and qa and qb and _value(qa) != _value(qb):
            u = COVERAGE * math.hypot(qa.get("uncertainty") or 0.0, qb.get("uncertainty") or 0.0)
            apart = abs(qa["value"] - qb["value"])
            within = f"within uncertainty: {_value({**qa, 'value': apart})} apart, limit {_value({**qa, 'value': u})}"
        rows.append({"field": key, "a": ca, "b": cb, "beyond": beyond, "within": within})
    for key in ("detected", "confidence"):
        va, vb = (a.get("rmw") or {}).get(key), (b.get("rmw") or {}).get(key)
        if str(va) != str(vb):
            rows.append({"field": f"read-modify-write {key}", "a": str(va), "b": str(vb),
                         "beyond": key == "detected", "within": ""})
    return rows


def format_diff(name_a: str, name_b: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    rows = diff_profiles(a, b)
    da, db = a.get("device", {}), b.get("device", {})
    head = [fold(f"{name_a}: {da.get('model', '?')}", first="A  "),
            fold(f"{name_b}: {db.get('model', '?')}", first="B  "), ""]
    if not rows:
        return "\n".join(head + ["the profiles agree on every given value and result"])
    n_beyond = sum(r["beyond"] for r in rows)
    lines = head + [f"{len(rows)} field{'s differ' if len(rows) != 1 else ' differs'}, {n_beyond} beyond the stated "
                    "uncertainty:"]
    for r in rows:
        mark = "" if r["beyond"] else ("  (" + (r["within"] or "origin or confidence only") + ")")
        lines += [fold(f"{r['field']}{mark}", first="  ", rest="      "), fold(r["a"], first="    A  "),
                  fold(r["b"], first="    B  ")]
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("diff")
    def diff(
        a: Path = typer.Argument(..., help="Profile file, or session directory with a profile."),
        b: Path = typer.Argument(..., help="Profile file, or session directory with a profile."),
        as_json: bool = typer.Option(False, "--json", help="Print the differences as JSON (charz.diff/1)."),
    ) -> None:
        """Compare two profiles: the fields that differ, each with its origin and confidence.

        Exit 1 when a value differs beyond its stated uncertainty (twice the combined standard
        uncertainty), a non-numeric value differs, or a field is absent from one side; exit 0
        when the profiles agree or differ only within uncertainty, origin or confidence.
        """
        from charz.profile import read_profile  # lazy: numba, numpy, scipy

        pa, pb = _profile_path(a), _profile_path(b)
        da, db = read_profile(pa), read_profile(pb)
        rows = diff_profiles(da, db)
        if as_json:
            emit_json(json.dumps({"schema": "charz.diff/1", "a": str(pa), "b": str(pb), "coverage": COVERAGE,
                                   "differences": rows}, indent=2))
        else:
            console.print(format_diff(str(pa), str(pb), da, db), markup=False)
        if any(r["beyond"] for r in rows):
            raise typer.Exit(1)

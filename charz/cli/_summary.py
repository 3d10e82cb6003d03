"""The terminal summary of a profile: lines of ≤ 80 columns, each number with its origin.

``charz analyze`` and ``charz characterize`` print it; the whole tables stay in
``--json`` and the report.
"""

from __future__ import annotations

import re
from typing import Any

from charz._text import count, fold, format_given, format_quantity, significant, size_label, size_ranges

__all__ = ["format_summary", "new_notes"]

# Labels of the summary's result rows, in the paper's order; ≤ 27 columns so a row fits 80.
_ORDER = (
    ("n_step", "peak-current steps, N_step"),
    ("step_pages", "step width, D_step"),
    ("dies_per_package", "dies per package"),
    ("write_io_unit_bytes", "write I/O unit"),
    ("read_io_unit_bytes", "read I/O unit"),
    ("allocation_scheme", "allocation scheme"),
    ("t_switch_s", "channel switch"),
    ("t_xfer_page_s", "register transfer per page"),
    ("t_prog_s", "page program time"),
    ("idle_a", "idle current"),
    ("m_peak_a", "m_peak (one unit)"),
    ("M_peak_a", "M_peak (all packages)"),
)
_LABEL_W, _VALUE_W = 27, 18
_DECIDING_SIZES = 6  # allocation columns that fit 80 columns beside a scheme name


def _given_items(given: dict[str, Any]) -> list[str]:
    names = {"page_size_bytes": "page", "t_xfer_page_s": "register transfer", "t_prog_s": "program",
             "t_switch_s": "channel switch", "host_rate_bytes_per_s": "host link", "rail_v": "rail"}
    items = []
    for key, value in given.items():
        text = format_given(key, value)
        items.append(text if key in ("channels", "packages") else f"{names.get(key, key)} {text}")
    return items


def _header(profile: dict[str, Any]) -> list[str]:
    dev = profile.get("device", {})
    prov = profile.get("provenance", {})
    drive = str(dev.get("model") or "unknown drive")
    if dev.get("serial"):
        drive += f", serial {dev['serial']}"
    elif dev.get("note"):  # the mock bench's scratch file: say what it is instead of "serial ?"
        drive += f" ({dev['note']})"
    used, total = prov.get("captures_used", 0), prov.get("captures_total", 0)
    planned = prov.get("captures_planned", total)
    # A stopped session: the plan's count, not the archive's, is what "of" is out of.
    missing = (f"; {planned - total} never taken — the session was stopped: charz resume "
               f"{prov.get('archive', 'DIR')} takes them") if isinstance(planned, int) and planned > total else ""
    lines = [fold(drive, first="drive    "),
             fold(f"{prov.get('archive', '?')} ({prov.get('bench_kind', '?')} bench, {used} of "
                  f"{count(max(planned, total) if isinstance(planned, int) else total, 'captures')} used{missing})",
                  first="source   ")]
    given = profile.get("given") or {}
    if given:
        whence = ""
        if prov.get("preset") and prov.get("bench_kind") in ("mock", "simulated"):
            whence = f" (preset {prov['preset']}, as a spec sheet would give them)"
        lines.append(fold(", ".join(_given_items(given)) + whence, first="given    "))
    assumed = profile.get("assumed") or {}
    if assumed:
        why = {"rail_v": ((profile.get("power") or {}).get("rail_v") or {}).get("note", "")}
        items = [f"{item}" + (f" ({why[k].removeprefix('assumed: ')})" if why.get(k) else "")
                 for k, item in zip(assumed, _given_items(assumed))]
        lines.append(fold("; ".join(items), first="assumed  "))
    return lines


def _value_text(q: dict[str, Any]) -> str:
    if q.get("value") is None:
        details = q.get("details") or {}
        least, more = details.get("at_least_bytes"), details.get("more_than_bytes")
        return f">= {size_label(least)}" if least else f"> {size_label(more)}" if more else "undetermined"
    return format_quantity(q)


def _result_lines(results: dict[str, Any]) -> list[str]:
    lines = []
    for key, label in _ORDER:
        q = results.get(key)
        if q is None:
            continue
        lines.append(f"  {label:<{_LABEL_W}}  {_value_text(q):<{_VALUE_W}} {q.get('origin', ''):<9} "
                     f"{q.get('confidence', '')}".rstrip())
        if q.get("confidence") in ("undetermined", "medium", "low") and q.get("evidence"):
            guess = q.get("best_guess") if q.get("value") is None else None
            why = (f"leans to {guess}; " if guess is not None else "") + str(q["evidence"])
            lines.append(fold(why, first="      ↳ ", rest="        "))
    return lines


def _best_per_scheme(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per scheme: its best walk (candidates come best first).

    Two walks of one scheme (X-25M's 1×1 and 5×2 blocks) predict the same durations;
    the terminal needs the schemes compared, the walks are in --json and the report.
    """
    best: dict[str, dict[str, Any]] = {}
    for c in candidates:
        best.setdefault(c["scheme"], c)
    return list(best.values())


def _deciding_sizes(measured: list[float], rows: list[dict[str, Any]], limit: int) -> list[int]:
    """Indices of the sizes where the best scheme and the runner-up disagree most, in size order
    (with one scheme only: sizes spread evenly from the smallest to the largest)."""
    n = len(measured)
    if n <= limit:
        return list(range(n))
    if len(rows) < 2:
        return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})
    gap = [abs(a - b) for a, b in zip(rows[0]["predicted_s"], rows[1]["predicted_s"])]
    return sorted(sorted(range(len(gap)), key=lambda i: -gap[i])[:limit])


def _allocation_lines(alloc: dict[str, Any], results: dict[str, Any]) -> list[str]:
    rows = _best_per_scheme(alloc["candidates"])
    sizes, measured = alloc.get("sizes_pages", []), alloc.get("measured_s", [])
    pick = _deciding_sizes(measured, rows, _DECIDING_SIZES)
    chosen = (results.get("allocation_scheme") or {}).get("value")
    if len(pick) == len(sizes):
        head = "allocation: durations at every full-unit size"
    elif len(rows) > 1:
        head = f"allocation: durations at the {count(len(pick), 'sizes')} where the schemes differ most"
    else:
        head = f"allocation: durations at {len(pick)} of the {count(len(sizes), 'full-unit sizes')}"
    lines = ["", fold(head + " (µs):", first="  ")]
    lines.append(f"    {'write size (pages)':<20}" + "".join(f"{sizes[i]:>7d}" for i in pick))
    lines.append(f"    {'measured':<20}" + "".join(f"{measured[i] * 1e6:7.0f}" for i in pick))
    for c in rows:
        name = c["scheme"] + (" *" if c["scheme"] == chosen else "")
        rms = f"   rms {c['rms_residual_s'] * 1e6:.0f}" if c.get("rms_residual_s") is not None else ""
        lines.append(f"    {name:<20}" + "".join(f"{c['predicted_s'][i] * 1e6:7.0f}" for i in pick) + rms)
    more = f"all {count(len(sizes), 'sizes')} and every walk" if len(pick) < len(sizes) else "every walk"
    lines.append(fold(f"{'* chosen; ' if chosen else ''}{more}: charz analyze --json, or charz report",
                      first="    "))
    return lines


def _rmw_lines(rmw: dict[str, Any]) -> list[str]:
    verdict = {True: "yes", False: "no", None: "undetermined"}[rmw.get("detected")]
    sizes = rmw.get("affected_sizes_bytes", [])
    text = f"read-modify-write below the unit: {verdict} ({rmw.get('confidence')})"
    if sizes:
        text += f", writes of {size_ranges(sizes)}"
    return ["", fold(text, first="  ", rest="    "), fold(rmw.get("reason", ""), first="      ↳ ", rest="        ")]


def _power_lines(power: dict[str, Any], results: dict[str, Any]) -> list[str]:
    lines = []
    budget = power.get("budget")
    if budget and budget.get("rows"):
        rows = budget["rows"]
        shown = rows if len(rows) <= 4 else [rows[0], rows[1], None, rows[-1]]
        text = ", ".join("…" if r is None else f"{count(r['packages'], 'packages')} {r['peak_a'] * 1e3:.0f} mA"
                         for r in shown)
        lines += ["", fold(f"power budget, peak current by busy packages: {text}", first="  ", rest="    "),
                  fold(f"+{significant(budget['per_package_a'] * 1e3)} mA per package ({budget['origin']})",
                       first="      ↳ ", rest="        ")]
    energy = power.get("energy")
    if energy:
        rail = power.get("rail_v", {})
        at = f" at {significant(rail['value'])} V ({rail.get('origin', '?')})" if rail.get("value") else ""
        unit_b = (results.get("write_io_unit_bytes") or {}).get("value")
        pick = [e for e in energy if e["op"] == "write" and e["size_bytes"] in (unit_b, energy[0]["size_bytes"])]
        for e in pick[:2]:
            lines.append(fold(f"energy per {size_label(e['size_bytes'])} write: {significant(e['energy_j'] * 1e3)} "
                              f"mJ ({significant(e['energy_per_byte_j'] * 1e9)} nJ/B){at}", first="  ", rest="    "))
    return lines


def format_summary(profile: dict[str, Any]) -> str:
    """The profile as lines of ≤ 80 columns: each number with its origin and how sure it is.

    Each warning is printed once; the allocation evidence is cut to the sizes that decide
    (the whole table is in ``--json`` and the report).
    """
    results = profile.get("results", {})
    lines = _header(profile) + [""] + _result_lines(results)
    alloc = profile.get("allocation")
    if alloc and alloc.get("candidates"):
        lines += _allocation_lines(alloc, results)
    if profile.get("rmw"):
        lines += _rmw_lines(profile["rmw"])
    lines += _power_lines(profile.get("power") or {}, results)
    warnings = list(dict.fromkeys(profile.get("warnings", [])))
    if warnings:
        lines += ["", "warnings:"] + [fold(w, first="  - ") for w in warnings]
    return "\n".join(lines)


def new_notes(notes: list[str], profile: dict[str, Any] | None) -> list[str]:
    """A run's notes less those the profile's warnings already say (the same text, numbers aside).

    The session notes a standby tail from its first captures; the analysis measures it
    on all of them and the summary prints that one.

    Examples
    --------
    >>> new_notes(["tail 64 mA — space requests", "clipped"], {"warnings": ["tail 65 mA — space requests"]})
    ['clipped']
    """
    def shape(text: str) -> str:
        return re.sub(r"\d+(\.\d+)?", "#", text)

    said = {shape(w) for w in (profile or {}).get("warnings", [])}
    return [n for n in notes if shape(n) not in said]

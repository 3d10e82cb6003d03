"""Characterization + archive metadata → profile content (a plain dict).

Pure: no files.  Times the analysis keeps in microseconds become seconds here,
because files hold SI units.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import fields
from typing import Any

import numpy as np

from charz import __version__
from charz.analysis import W_PATTERN, W_PEAK, Characterization, Given, Quantity
from charz.profile._schema import PROFILE_SCHEMA_ID
from charz._text import layout_words, singular_counts

#: The analysis keeps times in µs; files hold seconds.  One map for both directions.
US_TO_S = {"t_xfer_page_us": "t_xfer_page_s", "t_switch_us": "t_switch_s", "t_prog_us": "t_prog_s"}
_RESULT_KEYS = (
    "n_step", "step_pages", "dies_per_package", "packages_per_unit", "write_io_unit_bytes", "read_io_unit_bytes",
    "allocation_scheme", "t_xfer_page_us", "t_switch_us", "t_prog_us", "idle_a", "m_peak_a", "M_peak_a",
)


def _tidy(x: float) -> float:
    """``x`` to 12 significant digits: 8e-05, not the 7.999999999999999e-05 that 80 × 1e-6 gives.

    Twelve digits are far beyond any measurement here; what goes is binary float noise
    that a person reading the TOML would take for precision.

    Examples
    --------
    >>> _tidy(80 * 1e-6), _tidy(0.06992000000000002), _tidy(float("nan")) != _tidy(float("nan"))
    (8e-05, 0.06992, True)
    """
    return float(f"{x:.12g}")


def _plain(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)) and not isinstance(value, bool):
        return _tidy(float(value))
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def quantity_dict(q: Quantity, *, scale: float = 1.0, unit: str | None = None) -> dict[str, Any]:
    d = _plain(q.to_dict())
    if scale != 1.0:
        for key in ("value", "uncertainty", "best_guess"):
            if isinstance(d.get(key), (int, float)) and not isinstance(d.get(key), bool):
                d[key] = _tidy(d[key] * scale)
    if unit is not None:
        d["unit"] = unit
    return d


def rail_v_assumed(origin: str) -> bool:
    """Whether the rail voltage's recorded origin says nobody gave it.

    A ``bench.rail_v`` without an origin was written by someone (by hand, or an older
    charz that recorded only given values): it stays given.

    Examples
    --------
    >>> rail_v_assumed("assumed: 5 V SATA rail"), rail_v_assumed("given on the command line"), rail_v_assumed("")
    (True, False, False)
    """
    return "assumed" in origin


def _planned(metadata: dict[str, Any]) -> dict[str, int]:
    """{"captures_planned": N} when the archive holds a characterization plan (the archive's
    reader has checked it), else nothing: a stopped session then says "290 of 405"."""
    plan = metadata.get("plan")
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not isinstance(steps, list):
        return {}
    return {"captures_planned": sum(1 for s in steps if isinstance(s, dict) and s.get("op") in ("write", "read"))}


def build_profile(char: Characterization, metadata: dict[str, Any], *, given: Given, rail_v_origin: str | None = None,
                  archive: str = "", now: _dt.datetime | None = None) -> dict[str, Any]:
    """The profile's content; ``read_io_unit_bytes`` stays undetermined until a read analysis fills it.

    ``given`` is what the analysis was given (the session's values with any overrides), so
    the profile says exactly what the inference rested on.  ``rail_v_origin`` says where
    ``given.rail_v`` came from (default: the session's ``bench.rail_v_origin``).

    Example
    -------
    See ``tests/unit/test_profile.py``; the result validates against :func:`charz.profile.build_schema`.
    """
    now = now or _dt.datetime.now(_dt.timezone.utc)
    drive = metadata.get("drive", {}) or {}
    bench = metadata.get("bench", {}) or {}
    given_si: dict[str, Any] = {}
    for f in fields(Given):
        value = getattr(given, f.name)
        if value is None:
            continue
        if f.name in US_TO_S:
            given_si[US_TO_S[f.name]] = _tidy(value * 1e-6)
        else:
            given_si[f.name] = value
    if rail_v_origin is None:
        rail_v_origin = str(bench.get("rail_v_origin", ""))
    # A value nobody gave (the 5 V rail 003 multiplies by) is not "given": it is listed as
    # assumed, so the summary, the profile and the report never call it given.
    assumed: dict[str, Any] = {}
    if "rail_v" in given_si and rail_v_assumed(rail_v_origin):
        assumed["rail_v"] = given_si.pop("rail_v")

    results: dict[str, Any] = {}
    for key in _RESULT_KEYS:
        q = char.quantities.get(key)
        if q is None:
            continue
        d = quantity_dict(q, scale=1e-6, unit="s") if key in US_TO_S else quantity_dict(q)
        if isinstance(d.get("evidence"), str):  # the analysis words it for any count: "1 pages" → "1 page"
            d["evidence"] = singular_counts(layout_words(d["evidence"]))
        results[US_TO_S.get(key, key)] = d

    table = char.captures
    profile: dict[str, Any] = {
        "schema": PROFILE_SCHEMA_ID,
        "provenance": {
            "tool": "charz",
            "version": __version__,
            "created_utc": now.isoformat(timespec="seconds"),
            "archive": archive,
            "archive_created_utc": metadata.get("created_utc", ""),
            "bench_kind": bench.get("kind", "real") if bench.get("kind") in ("simulated", "mock", "real") else "real",
            "captures_total": int(table.flags.size),
            "captures_used": int(np.count_nonzero(table.usable)),
            **_planned(metadata),
            "analysis": {
                "w_peak_samples": W_PEAK,
                "w_pattern_samples": W_PATTERN,
                "moving_average_alignment": "the average assigned to sample i covers samples i - w//2 … i - w//2 + w - 1",
                "peak": "max of the w = 20 moving average inside the active window",
                "duration": "first to last sample above the idle (start) and end-of-record (end) thresholds, on a 4-sample average",
            },
        },
        "device": {k: v for k, v in drive.items() if k != "given" and v is not None},
        "given": given_si,
        **({"assumed": assumed} if assumed else {}),
        "results": results,
        "warnings": list(char.warnings),
    }
    if bench.get("preset"):
        profile["provenance"]["preset"] = bench["preset"]
    profile.update(_analysis_sections(char))
    if char.setup:
        profile["setup"] = [{"kind": w.kind, "message": w.message, "advice": w.advice} for w in char.setup]
    power = _power(char, given, rail_v_origin)
    if power:
        profile["power"] = power
    return profile


def _analysis_sections(char: Characterization) -> dict[str, Any]:
    """The profile's steps, allocation, rise, reads and rmw tables (those the analysis reached)."""
    sections: dict[str, Any] = {}
    steps = char.steps
    if steps is not None:
        s = steps.sizes
        sections["steps"] = _plain({
            "reason": singular_counts(layout_words(steps.reason)),
            "levels_a": [] if steps.best is None else steps.best.levels,
            "rises_after_pages": steps.rises_after_pages,
            "sizes_pages": s.size_pages.astype(int),
            "median_peak_a": s.median,
            "stderr_a": s.stderr,
            "sigma_a": s.sigma,
            "sigma_source": s.sigma_source,
            "candidates": [
                {"n_levels": c.n_levels, "tread_pages": c.tread_pages, "score": round(c.score, 2), "chi2": round(c.chi2, 2)}
                for c in steps.candidates
            ],
        })
    alloc = char.allocation
    if alloc is not None:
        sections["allocation"] = _plain({
            "reason": singular_counts(layout_words(alloc.reason)),
            "sizes_pages": alloc.sizes_pages.astype(int),
            "measured_s": alloc.measured_us * 1e-6,
            "measured_se_s": alloc.measured_se_us * 1e-6,
            "candidates": [
                {
                    "scheme": c.scheme,
                    "layouts": list(c.layouts),
                    "predicted_s": c.predicted_us * 1e-6,
                    "chi2": round(c.chi2, 3),
                    "rms_residual_s": c.rms_residual_us * 1e-6,
                    **{f"{k[:-3]}_s": v * 1e-6 for k, v in c.params_us.items()},
                }
                for c in alloc.candidates
            ],
        })
    rise = char.rise
    if rise is not None and rise.t_us.size:
        fair = [h for h in rise.hypotheses if h.plausible]
        seen: set[int] = set()
        per_count = [h for h in fair if not (h.packages_per_unit in seen or seen.add(h.packages_per_unit))]
        sections["rise"] = _plain({
            "reason": rise.reason,
            "scheme_reason": rise.scheme_reason,
            "packages_per_unit": rise.packages_per_unit,
            "scheme": rise.scheme,
            "t_s": rise.t_us * 1e-6,
            "mean_a": rise.mean_a,
            "fitted_a": rise.fitted_a,
            "program_starts_s": [p * 1e-6 for p in (fair[0].program_starts_us if fair else ())],
            "hypotheses": [
                {"packages_per_unit": h.packages_per_unit, "dies_per_package": h.dies_per_package,
                 "channels_of_unit": list(h.channels_of_unit), "schemes": list(h.schemes),
                 "program_starts_s": [p * 1e-6 for p in h.program_starts_us], "score": round(h.score, 2)}
                for h in per_count
            ],
        })
    reads = char.reads
    if reads is not None:
        sections["reads"] = _plain({
            "reason": singular_counts(layout_words(reads.reason)),
            "sizes_bytes": reads.sizes_bytes.astype(int),
            "bursts": reads.bursts,
            "duration_s": reads.duration_us * 1e-6,
        })
    rmw = char.rmw
    if rmw is not None:
        sections["rmw"] = _plain({
            "detected": rmw.detected,
            "confidence": rmw.confidence,
            "reason": singular_counts(layout_words(rmw.reason)),
            "affected_sizes_bytes": list(rmw.affected_sizes_bytes),
            "sizes_bytes": rmw.sizes_bytes.astype(int),
            "head_distance_a": rmw.head_distance_a,
        })
    return sections


def _power(char: Characterization, given: Given, rail_v_origin: str) -> dict[str, Any]:
    """The rail voltage with its origin, the energy per request and the per-package budget."""
    power: dict[str, Any] = {}
    rail = given.rail_v
    if rail is not None:
        power["rail_v"] = {"value": rail, "origin": "assumed" if rail_v_assumed(rail_v_origin) else "given",
                           "note": rail_v_origin}
    if char.energy:
        power["energy"] = _plain([
            {"op": e.op, "size_bytes": e.size_bytes, "energy_j": e.energy_j, "excess_energy_j": e.excess_energy_j,
             "energy_per_byte_j": e.energy_j / e.size_bytes, "duration_s": e.duration_s, "captures": e.count,
             "origin": "measured (current) × " + ("measured voltage" if rail is None else
                                                  f"rail voltage ({power['rail_v']['origin']})")}
            for e in char.energy
        ])
    if char.budget is not None:
        power["budget"] = _plain({
            "per_package_a": char.budget.per_package_a,
            "base_a": char.budget.base_a,
            "rows": [{"packages": r.packages, "peak_a": r.peak_a} for r in char.budget.rows],
            "origin": "inferred: step levels of the peak staircase tied to the packages busy at each",
        })
    return power

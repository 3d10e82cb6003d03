"""Steady-state WA of a WA archive's random-write sub-test series, beside what the closed forms need (pure).

A series is 000 Fig. 10's repeated 4K-RD-100%-W sub-tests at one OP (the drive's own,
or a partition of 000 Table 4's sweep).  Sub-test 1 carries the initial fill, so the
steady WA is taken from sub-tests 2 on: R/B (Eq. 7) and the drive's counters each as
mean ± the larger of (scatter/√n, the steps' combined standard error).

Where the drive's closed-form inputs are known (``closed_form``: a mock archive's
``bench.closed_form``, stated by the simulator), the spare factor of a series is
1 − user/physical (user from the step's ``truth``), the greedy model's N_p the pages of
one erase unit, and ``held_units`` the units per pool its GC keeps free beyond the spare.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SteadySeries", "steady_series"]


@dataclass(frozen=True)
class SteadySeries:
    label: str
    op_percent: float | None  # 000 Eq. 15's OP%, None at the drive's own
    steps: int
    rb: tuple[float, float] | None  # mean, standard error
    smart: tuple[float, float] | None
    spare_factor: float | None = None  # S_f = spare/physical (mock only)
    pages_per_unit: int | None = None
    units_per_pool: int | None = None
    held_units: tuple[float, float] | None = None


def _agg(pairs) -> tuple[float, float] | None:
    pairs = [(v, u or 0.0) for v, u in pairs if v is not None]
    if not pairs:
        return None
    vals = [v for v, _ in pairs]
    scatter = statistics.stdev(vals) / math.sqrt(len(vals)) if len(vals) > 1 else 0.0
    return statistics.fmean(vals), max(scatter, math.sqrt(sum(u * u for _, u in pairs)) / len(pairs))


def steady_series(records: Mapping[int, Mapping[str, Any]],
                  closed_form: Mapping[str, Any] | None = None) -> list[SteadySeries]:
    """One entry per OP series with at least one sub-test after the first.

    ``closed_form``: ``physical_pages``, ``page_size``, ``pages_per_unit``,
    ``units_per_pool`` and ``held_units`` of the drive, or None where they are not known
    (a bench drive): the series then carry no spare factor."""
    geo = closed_form
    groups: dict[float | None, list[dict]] = {}
    for _, r in sorted(records.items()):
        job = r.get("job") or {}
        if r["step"]["kind"] != "subtest" or r["step"]["subtest"] < 1 or not job.get("random") \
                or job.get("write_fraction") != 1.0:
            continue
        groups.setdefault(r["step"].get("op_percent"), []).append(r)
    out = []
    for op, rows in groups.items():
        rb = _agg((r["estimate"]["wa"]["value"], r["estimate"]["wa"]["uncertainty"]) for r in rows
                  if r.get("estimate"))
        cw = [((r.get("counters") or {}).get("wa") or {}) for r in rows]
        sm = _agg((c.get("value"), c.get("uncertainty")) for c in cw)
        first, last = rows[0]["step"]["subtest"] + 1, rows[-1]["step"]["subtest"] + 1
        label = (f"OP {op:g} %, " if op is not None else "") + f"sub-tests {first}–{last} of 4K-RD-100%-W"
        kw = {}
        user = (rows[0].get("truth") or {}).get("user_bytes")
        if geo and user:
            kw = dict(spare_factor=1.0 - (user / geo["page_size"]) / geo["physical_pages"],
                      pages_per_unit=geo["pages_per_unit"], units_per_pool=geo["units_per_pool"],
                      held_units=tuple(geo["held_units"]))
        out.append(SteadySeries(label, op, len(rows), rb, sm, **kw))
    return out

"""Steady-state WA of a WA archive's random-write sub-test series, beside what the closed forms need (pure).

A series is 000 Fig. 10's repeated 4K-RD-100%-W sub-tests at one OP (the drive's own,
or a partition of 000 Table 4's sweep).  Sub-test 1 carries the initial fill, so the
steady WA is taken from sub-tests 2 on: R/B (Eq. 7) and the drive's counters each as
mean ± the larger of (scatter/√n, the steps' combined standard error).

On a mock archive the simulated drive's geometry is in ``settings.bench.ftl``: the
spare factor of a series is 1 − user/physical (user from the step's ``truth``), the
greedy model's N_p the pages of one erase unit, and the GC keeps 1–2 units per pool
free beyond the spare (docs/ftl.md: a reserve of 1, collects until 2 are free).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

__all__ = ["SteadySeries", "steady_series", "mock_geometry"]


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


def mock_geometry(settings: dict) -> dict | None:
    """Physical pages, page size, pages per erase unit and units per GC pool of a mock
    archive's drive; None for a bench archive."""
    bench = settings.get("bench") or {}
    ftl = bench.get("ftl")
    if bench.get("kind") != "mock" or not ftl:
        return None
    if ftl.get("policy", "plain") != "plain" or ftl.get("gc", "greedy") != "greedy" or ftl.get("write_cache"):
        return None  # Wolf, an NVM cache, cost-benefit: the uniform closed forms describe a plain greedy drive
    planes = int(ftl["planes"])
    multi = bool(ftl.get("multi_plane", True))
    dies = int(ftl["channels"]) * int(ftl["chips_per_channel"]) * int(ftl["dies_per_chip"])
    physical = dies * planes * int(ftl["blocks_per_plane"]) * int(ftl["pages_per_block"])
    # the erase unit GC picks: a line over every die's planes (docs/ftl.md), else a die's
    # multi-plane block, else one block; charz wa model and the figure's legend both read it here
    per_unit = int(ftl["pages_per_block"]) * (planes * dies if ftl.get("lines") else planes if multi else 1)
    return {"physical_pages": physical, "page_size": int(ftl["page_size"]),
            "pages_per_unit": per_unit, "units_per_pool": int(ftl["blocks_per_plane"])}


def steady_series(settings: dict, records: dict[int, dict]) -> list[SteadySeries]:
    """One entry per OP series with at least one sub-test after the first."""
    geo = mock_geometry(settings)
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
                      held_units=(1.0, 2.0))
        out.append(SteadySeries(label, op, len(rows), rb, sm, **kw))
    return out

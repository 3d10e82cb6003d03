"""What a WA run's records add up to (pure): the steady WA of each sub-test series, and a
profile's ``write_amplification`` section.

A series is 000 Fig. 10's repeated 4K-RD-100%-W sub-tests at one OP (the drive's own,
or a partition of 000 Table 4's sweep).  Sub-test 1 carries the initial fill, so the
steady WA is taken from sub-tests 2 on: R/B (Eq. 7) and the drive's counters each as
mean ± the larger of (scatter/√n, the steps' combined standard error).

Where the drive's closed-form inputs are known (``closed_form``: a mock archive's
``bench.closed_form``, stated by the simulator; :func:`charz.wa.closed_form_of`), the
spare factor of a series is 1 − user/physical (user from the step's ``truth``), the
greedy model's N_p the pages of one erase unit, and ``held_units`` the units per pool
its GC keeps free beyond the spare.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from charz.analysis import Quantity
from charz.wa._records import WaRecord, WaSettings

__all__ = ["SteadySeries", "steady_series", "wa_section"]


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


def steady_series(records: Mapping[int, WaRecord],
                  closed_form: Mapping[str, Any] | None = None) -> list[SteadySeries]:
    """One entry per OP series with at least one sub-test after the first.

    ``closed_form``: ``physical_pages``, ``page_size``, ``pages_per_unit``,
    ``units_per_pool`` and ``held_units`` of the drive, or None where they are not known
    (a bench drive): the series then carry no spare factor."""
    groups: dict[float | None, list[WaRecord]] = {}
    for _, r in sorted(records.items()):
        if r.step.kind != "subtest" or r.step.subtest < 1 or r.job is None or not r.job.random \
                or r.job.write_fraction != 1.0:
            continue
        groups.setdefault(r.step.op_percent, []).append(r)
    out = []
    for op, rows in groups.items():
        rb = _agg((r.estimate.wa.value, r.estimate.wa.uncertainty) for r in rows if r.estimate)
        cw = [((r.counters or {}).get("wa") or {}) for r in rows]
        sm = _agg((c.get("value"), c.get("uncertainty")) for c in cw)
        first, last = rows[0].step.subtest + 1, rows[-1].step.subtest + 1
        label = (f"OP {op:g} %, " if op is not None else "") + f"sub-tests {first}–{last} of 4K-RD-100%-W"
        kw = {}
        user = (rows[0].truth or {}).get("user_bytes")
        if closed_form and user:
            kw = dict(spare_factor=1.0 - (user / closed_form["page_size"]) / closed_form["physical_pages"],
                      pages_per_unit=closed_form["pages_per_unit"], units_per_pool=closed_form["units_per_pool"],
                      held_units=tuple(closed_form["held_units"]))
        out.append(SteadySeries(label, op, len(rows), rb, sm, **kw))
    return out


def wa_section(settings: WaSettings, records: Mapping[int, WaRecord]) -> dict:
    """The profile's ``write_amplification`` section: M_p, geometry, windows and WA per step,
    each with its origin."""
    steps = []
    m_p = None
    for i in sorted(records):
        r = records[i]
        if r.step.kind == "calibrate":
            m_p = r.m_p.to_dict() if r.m_p else None
            continue
        row = {"label": r.label, "kind": r.step.kind, "logical_bytes": r.logical_bytes,
               "program_pulses": _pulses_used(r), "trusted": r.trusted}
        if r.estimate:
            row["wa"] = r.estimate.wa.to_dict()
        cw = (r.counters or {}).get("wa") or {}
        if cw.get("value") is not None:  # the drive's own counters over the same step
            row["counter_wa"] = {k: cw[k] for k in ("value", "uncertainty", "method", "origin") if cw.get(k)}
            if cw.get("too_coarse"):
                row["counter_wa"]["too_coarse"] = cw["too_coarse"]
        steps.append(row)
    if m_p is None and settings.m_p_given:
        m_p = Quantity.given(int(settings.m_p_given), "pages/pulse").to_dict()
    return {"method": "RB-Explorer (paper 000): Eq. 7 from one die's R/B program pulses",
            "geometry": settings.geometry.to_dict(), "m_p": m_p, "windows": settings.windows.to_dict(),
            "samplerate_hz": settings.samplerate_hz, "settle_s": settings.settle_s, "steps": steps}


def _pulses_used(r: WaRecord) -> float:
    """N_Tprogram as Eq. 7 took it: erases counted apart are out; several dies give their mean."""
    if not r.dies:
        return r.counts.programs
    mean = sum(d.programs for d in r.dies) / len(r.dies)
    return int(mean) if float(mean).is_integer() else mean

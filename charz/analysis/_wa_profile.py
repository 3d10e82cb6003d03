"""Eq. 7's constants from a charz profile, and a profile's ``write_amplification`` section (pure).

A profile from ``charz characterize`` holds ``given.channels``, ``given.packages``,
``given.page_size_bytes`` and ``results.dies_per_package`` (003 Eq. 1, inferred).
RB-Explorer's N_chip is packages per channel and N_die dies per package; each
keeps its origin, so a WA computed from them says which of its inputs were
inferred rather than given.
"""

from __future__ import annotations

from charz.analysis._quantity import GIVEN, Quantity
from charz.analysis._wa import WaGeometry

__all__ = ["geometry_from_profile", "wa_section"]


def geometry_from_profile(profile: dict) -> WaGeometry:
    """N_channel, N_chip (packages per channel), N_die (dies per package) and P_a of a profile.

    >>> p = {"given": {"channels": 8, "packages": 16, "page_size_bytes": 4096},
    ...      "results": {"dies_per_package": {"value": 2, "unit": "dies", "origin": "inferred",
    ...                  "confidence": "high"}}}
    >>> g = geometry_from_profile(p); (g.dies, g.dies_per_chip.origin)
    (32, 'inferred')
    """
    given = profile.get("given", {})
    try:
        ch, pk, page = int(given["channels"]), int(given["packages"]), int(given["page_size_bytes"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the profile has no given channels / packages / page_size_bytes ({exc})") from exc
    if pk % ch:
        raise ValueError(f"{pk} packages do not spread evenly over {ch} channels")
    dies = profile.get("results", {}).get("dies_per_package") or {}
    if dies.get("value") is None:
        raise ValueError("the profile does not know the dies per package (results.dies_per_package "
                         f"is {dies.get('confidence', 'missing')}); give --dies")
    ev = "from the profile's given values"
    return WaGeometry(Quantity.given(ch, "channels", ev), Quantity.given(pk // ch, "chips", ev + " (packages / channels)"),
                      Quantity(int(dies["value"]), "dies", dies.get("origin", GIVEN),
                               confidence=dies.get("confidence", "high"),
                               evidence=f"profile results.dies_per_package: {dies.get('evidence', '')}".strip()),
                      Quantity.given(page, "B", ev))


def wa_section(settings: dict, records: dict[int, dict]) -> dict:
    """The ``write_amplification`` section: M_p, geometry, windows and WA per step, each with its origin."""
    steps = []
    m_p = None
    for i in sorted(records):
        r = records[i]
        if r["step"]["kind"] == "calibrate":
            m_p = r.get("m_p")
            continue
        row = {"label": r["label"], "kind": r["step"]["kind"], "logical_bytes": r["logical_bytes"],
               "program_pulses": _pulses_used(r), "trusted": bool(r.get("trusted"))}
        if r.get("estimate"):
            row["wa"] = r["estimate"]["wa"]
        cw = (r.get("counters") or {}).get("wa") or {}
        if cw.get("value") is not None:  # the drive's own counters over the same step
            row["counter_wa"] = {k: cw[k] for k in ("value", "uncertainty", "method", "origin") if cw.get(k)}
            if cw.get("too_coarse"):
                row["counter_wa"]["too_coarse"] = cw["too_coarse"]
        steps.append(row)
    if m_p is None and settings.get("m_p_given"):
        m_p = Quantity.given(int(settings["m_p_given"]), "pages/pulse").to_dict()
    return {"method": "RB-Explorer (paper 000): Eq. 7 from one die's R/B program pulses",
            "geometry": settings.get("geometry", {}), "m_p": m_p, "windows": settings["windows"],
            "samplerate_hz": settings["samplerate_hz"], "settle_s": settings["settle_s"], "steps": steps}


def _pulses_used(r: dict) -> float:
    """N_Tprogram as Eq. 7 took it: erases counted apart are out; several dies give their mean."""
    dies = r.get("dies") or []
    if not dies:
        return r["counts"]["programs"]
    mean = sum(d["programs"] for d in dies) / len(dies)
    return int(mean) if float(mean).is_integer() else mean

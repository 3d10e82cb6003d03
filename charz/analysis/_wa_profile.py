"""Eq. 7's constants from a charz profile (pure; ``charz.wa.wa_section`` writes the profile's WA section).

A profile from ``charz characterize`` holds ``given.channels``, ``given.packages``,
``given.page_size_bytes`` and ``results.dies_per_package`` (003 Eq. 1, inferred).
RB-Explorer's N_chip is packages per channel and N_die dies per package; each
keeps its origin, so a WA computed from them says which of its inputs were
inferred rather than given.
"""

from __future__ import annotations

from charz.analysis._quantity import GIVEN, Quantity
from charz.analysis._wa import WaGeometry

__all__ = ["geometry_from_profile"]


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

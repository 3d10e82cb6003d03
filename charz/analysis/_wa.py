"""RB-Explorer's write-amplification model (000 §3.3–3.5, §4.3): Eq. 7, M_p by Eq. 8, RE_WA by Eq. 9.

Eq. 7:  WA = N_channel · N_chip · N_die · P_a · (N_Tprogram · M_p) / L_Volume_Data

One die's program pulses stand for every die (000 §3.2.3: the controller spreads
work over all dies alike), M_p pages go under each pulse (1 single-plane, N_plane
multi-plane), P_a is the page size and L_Volume_Data the bytes the host wrote.

Eq. 8 as printed multiplies by N_Tprogram a second time; that is a typo (the
units would be pulses², and §3.5's text reads WA ≈ 1 or ≈ 0.5): charz uses Eq. 7
with M_p = 1 on a sequential, incompressible run of a fresh drive, where the true
WA is 1, so the result is 1/M_p.

Uncertainty, one standard error, from two sources stated separately:

* counting — one die stands for D = N_channel·N_chip·N_die dies.  If the
  controller spread the pulses over the dies at random, one die's count would
  scatter by √(N·(1 − 1/D)) around the mean (binomial); the pulses cut by the
  stream's ends (partial, open) add one each.  With D = 1 only the cut pulses count.
* volume — how far the two readings of L_Volume_Data (fio's JSON, the block
  device's own counter) disagree; 0 when one exact source is all there is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from charz.analysis._quantity import HIGH, INFERRED, MEASURED, MEDIUM, Quantity

__all__ = ["WaGeometry", "WaEstimate", "wa_eq7", "calibrate_mp", "re_wa", "count_uncertainty"]


@dataclass(frozen=True)
class WaGeometry:
    """The constants of Eq. 7, each a :class:`Quantity` (value and origin: given, or from a profile)."""

    channels: Quantity
    chips_per_channel: Quantity
    dies_per_chip: Quantity
    page_size: Quantity

    @classmethod
    def given(cls, channels: int, chips_per_channel: int, dies_per_chip: int, page_size: int,
              evidence: str = "given by the user") -> "WaGeometry":
        for name, v in (("channels", channels), ("chips_per_channel", chips_per_channel),
                        ("dies_per_chip", dies_per_chip), ("page_size", page_size)):
            if not (isinstance(v, int) and v > 0):
                raise ValueError(f"{name} must be a positive integer, not {v!r}")
        return cls(Quantity.given(channels, "channels", evidence), Quantity.given(chips_per_channel, "chips", evidence),
                   Quantity.given(dies_per_chip, "dies", evidence), Quantity.given(page_size, "B", evidence))

    @classmethod
    def from_dict(cls, d: dict) -> "WaGeometry":
        """The inverse of :meth:`to_dict` (an archive's ``geometry``), origins kept."""
        def q(x: dict) -> Quantity:
            return Quantity(x["value"], x["unit"], x["origin"], uncertainty=x.get("uncertainty"),
                            confidence=x.get("confidence", HIGH), evidence=x.get("evidence", ""),
                            best_guess=x.get("best_guess"), details=x.get("details", {}))
        return cls(*(q(d[k]) for k in ("channels", "chips_per_channel", "dies_per_chip", "page_size")))

    @property
    def dies(self) -> int:
        return int(self.channels.value) * int(self.chips_per_channel.value) * int(self.dies_per_chip.value)

    def to_dict(self) -> dict:
        return {k: getattr(self, k).to_dict() for k in ("channels", "chips_per_channel", "dies_per_chip", "page_size")}


@dataclass(frozen=True)
class WaEstimate:
    """WA by Eq. 7 with its parts; ``wa.uncertainty`` combines both sources."""

    wa: Quantity
    physical_bytes: Quantity
    logical_bytes: Quantity
    n_tprogram: Quantity
    m_p: Quantity
    u_counting: float   # standard error of WA from counting alone
    u_volume: float     # standard error of WA from the volume alone

    def to_dict(self) -> dict:
        return {"wa": self.wa.to_dict(), "physical_bytes": self.physical_bytes.to_dict(),
                "logical_bytes": self.logical_bytes.to_dict(), "n_tprogram": self.n_tprogram.to_dict(),
                "m_p": self.m_p.to_dict(), "u_counting": self.u_counting, "u_volume": self.u_volume}


def count_uncertainty(n: float, dies: int, cut_pulses: int = 0, die_counts=None) -> float:
    """Standard error of the per-die mean from one die's count, or from several dies' counts.

    One die: √(n·(1 − 1/D) + cut), the binomial scatter of dies sharing pulses at random.
    k ≥ 2 dies counted (``die_counts``): their own spread s (sample standard deviation),
    never taken below the binomial one, as the scatter of one die; the mean of k of D
    dies then scatters by that · √((D − k)/((D − 1)·k)) (drawn without replacement: 0
    when every die is counted), plus the cut pulses.

    >>> round(count_uncertainty(10000, 4), 2), count_uncertainty(500, 1, cut_pulses=1)
    (86.6, 1.0)
    >>> round(count_uncertainty(1000, 8, die_counts=[900, 1100]), 1), count_uncertainty(1000, 2, die_counts=[900, 1100])
    (92.6, 0.0)
    """
    if n < 0 or dies < 1 or cut_pulses < 0:
        raise ValueError("need n ≥ 0, dies ≥ 1, cut_pulses ≥ 0")
    k = len(die_counts) if die_counts is not None else 1
    if k < 2:
        return math.sqrt(n * (1.0 - 1.0 / dies) + cut_pulses)
    if k > dies:
        raise ValueError(f"{k} dies counted but the geometry has {dies}")
    var = max(float(np.var(die_counts, ddof=1)), n * (1.0 - 1.0 / dies))
    return math.sqrt(var * (dies - k) / ((dies - 1) * k) + cut_pulses / k)


def _arg_positive(x: float, name: str) -> float:
    if not (isinstance(x, (int, float)) and math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be > 0, not {x!r}")
    return x


def wa_eq7(n_tprogram: float, m_p: Quantity | int, geometry: WaGeometry, logical_bytes: float, *,
           u_logical_bytes: float = 0.0, volume_evidence: str = "fio's JSON",
           cut_pulses: int = 0, die_counts=None) -> WaEstimate:
    """WA = N_channel · N_chip · N_die · P_a · (N_Tprogram · M_p) / L_Volume_Data (000 Eq. 7).

    Example (the DESIGN table's case: 8 ch · 4 chips · 2 dies · 16 KiB · 100 000 · M_p 2, 100 GiB):

    >>> g = WaGeometry.given(8, 4, 2, 16384)
    >>> e = wa_eq7(100_000, 2, g, 100 * 2**30)
    >>> e.physical_bytes.value, e.wa.value
    (209715200000, 1.953125)

    ``die_counts``: the counts of several dies (``n_tprogram`` is then their mean); their
    spread goes into the counting uncertainty (:func:`count_uncertainty`).
    """
    if die_counts is not None and len(die_counts) > 1:
        n_tprogram = float(np.mean(die_counts))
    elif not (isinstance(n_tprogram, int) and n_tprogram >= 0):
        raise ValueError(f"n_tprogram must be a count ≥ 0, not {n_tprogram!r}")
    _arg_positive(logical_bytes, "logical_bytes")
    if not isinstance(m_p, Quantity):
        m_p = Quantity.given(int(m_p), "pages/pulse")
    if not m_p.known:
        raise ValueError("M_p is undetermined: calibrate it (or give it) before Eq. 7")
    d = geometry.dies
    pa = int(geometry.page_size.value)
    mp = int(m_p.value)
    phys = d * pa * n_tprogram * mp
    if isinstance(phys, float) and phys.is_integer():
        phys = int(phys)
    wa = phys / logical_bytes
    u_n = count_uncertainty(n_tprogram, d, cut_pulses, die_counts)
    u_count = wa * (u_n / n_tprogram) if n_tprogram else d * pa * mp / logical_bytes
    u_vol = wa * (u_logical_bytes / logical_bytes)
    u = math.hypot(u_count, u_vol)
    parts = (f"Eq. 7: {geometry.channels.value} ch × {geometry.chips_per_channel.value} chips × "
             f"{geometry.dies_per_chip.value} dies × {pa} B × ({n_tprogram:g} pulses × M_p {mp}) / {logical_bytes:.0f} B")
    conf = HIGH if m_p.confidence == HIGH and u <= 0.02 * wa else MEDIUM
    origins = {geometry.channels.origin, geometry.chips_per_channel.origin, geometry.dies_per_chip.origin,
               geometry.page_size.origin, m_p.origin}
    return WaEstimate(
        wa=Quantity(wa, "", INFERRED, uncertainty=u, confidence=conf, evidence=parts,
                    details={"inputs": sorted(origins)}),
        physical_bytes=Quantity(phys, "B", INFERRED, uncertainty=phys * (u_n / n_tprogram) if n_tprogram else None,
                                evidence="Eq. 6"),
        logical_bytes=Quantity(logical_bytes, "B", MEASURED, uncertainty=u_logical_bytes, evidence=volume_evidence),
        n_tprogram=Quantity(n_tprogram, "pulses", MEASURED, uncertainty=u_n,
                            evidence=(f"mean of {len(die_counts)} dies' R/B program pulses ({', '.join(map(str, die_counts))}) of {d}"
                                      if die_counts is not None and len(die_counts) > 1 else
                                      f"R/B low pulses in the program window on one die of {d}")),
        m_p=m_p, u_counting=u_count, u_volume=u_vol)


def calibrate_mp(n_tprogram: float, geometry: WaGeometry, logical_bytes: float, *, planes: int | None = None,
                 tolerance: float = 0.1, u_logical_bytes: float = 0.0, cut_pulses: int = 0,
                 die_counts=None) -> Quantity:
    """M_p from a sequential incompressible run (000 §3.5): WA with M_p = 1 ≈ 1 → 1, ≈ 0.5 → 2.

    ``tolerance`` is relative (0.1: 0.9–1.1 reads as 1, 0.45–0.55 as 0.5), widened by
    twice the estimate's standard error.  ``planes`` (given) also admits 1/N_plane.
    Anything else is ``undetermined`` with the reason and what to check.

    >>> g = WaGeometry.given(4, 1, 1, 4096)
    >>> calibrate_mp(16384, g, 256 * 2**20).value, calibrate_mp(8200, g, 256 * 2**20).value
    (1, 2)
    >>> calibrate_mp(12000, g, 256 * 2**20).value is None
    True
    """
    e = wa_eq7(n_tprogram, 1, geometry, logical_bytes, u_logical_bytes=u_logical_bytes, cut_pulses=cut_pulses,
               die_counts=die_counts)
    wa1, u = e.wa.value, e.wa.uncertainty or 0.0
    cands = sorted({1, 2} | ({planes} if planes and planes > 2 else set()))
    for k in cands:
        target = 1.0 / k
        if abs(wa1 - target) <= tolerance * target + 2 * u:
            conf = HIGH if abs(wa1 - target) <= tolerance * target / 2 else MEDIUM
            return Quantity(k, "pages/pulse", INFERRED, confidence=conf,
                            evidence=f"000 §3.5: sequential run's WA with M_p = 1 is {wa1:.3f} ± {u:.3f} ≈ 1/{k}",
                            details={"wa_mp1": wa1, "u": u})
    if wa1 > 1.0:
        why = (f"WA with M_p = 1 is {wa1:.3f} > 1 on a sequential run: the drive collected garbage "
               "(erase or TRIM it first, so the run is on a fresh drive), the write cache merged nothing "
               "but something else wrote, or the geometry counts too many dies or too large a page")
    elif wa1 < 0.5:
        why = (f"WA with M_p = 1 is {wa1:.3f} < 0.5: fewer program pulses than even two planes explain; "
               "the program window misses programs (look at the width histogram), the run was cut short, "
               "or the geometry counts too few dies or too small a page")
    else:
        why = (f"WA with M_p = 1 is {wa1:.3f}, between 1/2 and 1: not a whole number of pages per pulse; "
               "the dies may not share the work evenly, a write cache or compression may be on, "
               "or the geometry is wrong")
    return Quantity.undetermined("pages/pulse", INFERRED, why, best_guess=round(1 / wa1) if wa1 > 0 else None,
                                 wa_mp1=wa1, u=u)


def re_wa(measured: float, true: float) -> float:
    """|RE_WA| = |WA_measured − WA_true| / WA_true (000 Eq. 9), as a fraction.

    >>> round(re_wa(1.98, 2.0), 6)
    0.01
    """
    _arg_positive(true, "true")
    return abs(measured - true) / true



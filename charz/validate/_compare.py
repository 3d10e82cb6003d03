"""003 Table 4's ratios: the aligned record size against 4 KB, "+X % MB/s, −Y % energy".

The file size is the same for every record size, so the change in energy is the change in
J/MB.  Percentages are signed: ``energy_change_pct = -85`` reads "−85 % energy".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from charz.validate._rows import ValidationRow
from charz.validate._unit import MeasuredUnit, aligned_record_size

__all__ = ["Comparison", "compare_aligned", "PAPER_TABLE4", "BASELINE_BYTES", "format_change"]

#: 003 compares every record size with 4 KB records.
BASELINE_BYTES = 4096

#: 003 Table 4 (measured, IOzone, 128 MB, direct sequential writes): MB/s change, energy change, %.
#: For the non-unit drives the paper does not say which record size it compared with 4 KB.
PAPER_TABLE4: dict[str, tuple[float, float]] = {
    "qpro": (201.0, -85.0),
    "mxp": (123.0, -71.0),
    "840": (71.0, -37.0),
    "x25m": (29.0, -33.0),
}


@dataclass(frozen=True)
class Comparison:
    """The aligned record size against the 4 KB baseline, or why there is no such figure.

    Example
    -------
    >>> c = Comparison(4096, 32768, 201.0, -85.0, "")
    >>> c.computed, format_change(c.mb_per_s_change_pct, c.energy_change_pct)
    (True, '+201 % MB/s, −85 % energy')
    """

    baseline_bytes: int
    aligned_bytes: int | None
    mb_per_s_change_pct: float | None
    energy_change_pct: float | None
    reason: str  # empty when computed

    @property
    def computed(self) -> bool:
        return self.mb_per_s_change_pct is not None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"baseline_record_size_bytes": self.baseline_bytes,
                             "aligned_record_size_bytes": self.aligned_bytes,
                             "mb_per_s_change_pct": self.mb_per_s_change_pct,
                             "energy_change_pct": self.energy_change_pct}
        if self.reason:
            d["reason"] = self.reason
        return d


def _pct(new: float, old: float) -> float:
    return (new / old - 1.0) * 100.0


def format_change(mb_per_s_pct: float, energy_pct: float) -> str:
    """``+201 % MB/s, −85 % energy`` (a real minus sign, as the paper prints it).

    >>> format_change(849.4, -89.1)
    '+849 % MB/s, −89 % energy'
    """
    def signed(x: float) -> str:
        return f"{'+' if x >= 0 else '−'}{abs(x):.0f} %"

    return f"{signed(mb_per_s_pct)} MB/s, {signed(energy_pct)} energy"


def compare_aligned(rows: Sequence[ValidationRow], unit: MeasuredUnit,
                    baseline_bytes: int = BASELINE_BYTES) -> Comparison:
    """The aligned record size's MB/s and energy change against ``baseline_bytes`` records.

    Examples
    --------
    >>> from charz.validate._rows import ValidationRow
    >>> def row(size, seconds, amps):
    ...     return ValidationRow(size, None, 2**27, seconds, amps, 5.0, "model", 1, 1, 1.0)
    >>> rows = [row(4096, 60.0, 0.2), row(32768, 20.0, 0.3)]
    >>> c = compare_aligned(rows, MeasuredUnit(32768, "test"))
    >>> c.aligned_bytes, round(c.mb_per_s_change_pct, 1), round(c.energy_change_pct, 1)
    (32768, 200.0, -50.0)
    >>> compare_aligned(rows, MeasuredUnit(None, "undetermined")).reason
    'the write I/O unit is unknown, so no record size is the aligned one'
    """
    sizes = [r.record_size_bytes for r in rows]
    if not unit.known:
        return Comparison(baseline_bytes, None, None, None,
                          "the write I/O unit is unknown, so no record size is the aligned one")
    aligned = aligned_record_size(sizes, unit)
    if aligned is None:
        return Comparison(baseline_bytes, None, None, None,
                          f"no record size in the sweep is a multiple of the {unit.value_bytes} B unit")
    base = next((r for r in rows if r.record_size_bytes == baseline_bytes), None)
    if base is None:
        return Comparison(baseline_bytes, aligned, None, None,
                          f"the sweep has no {baseline_bytes} B records to compare with")
    if aligned == baseline_bytes:
        return Comparison(baseline_bytes, aligned, None, None,
                          f"{baseline_bytes} B records are already a multiple of the {unit.value_bytes} B unit: "
                          "every record size in the sweep is aligned")
    top = next(r for r in rows if r.record_size_bytes == aligned)
    if base.j_per_mb is None or top.j_per_mb is None:
        return Comparison(baseline_bytes, aligned, _pct(top.mb_per_s, base.mb_per_s), None,
                          "the mean current of one of the two record sizes was not measured")
    return Comparison(baseline_bytes, aligned, _pct(top.mb_per_s, base.mb_per_s),
                      _pct(top.j_per_mb, base.j_per_mb), "")

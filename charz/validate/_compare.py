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

__all__ = ["Comparison", "compare_aligned", "PAPER_TABLE4", "BASELINE_BYTES", "format_change", "explain_gap"]

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


def explain_gap(rows: Sequence[ValidationRow], comparison: Comparison, reference: tuple[float, float] | None,
                program_time_s: float | None) -> str | None:
    """Why this sweep's MB/s change differs from 003 Table 4's, from the time per request.

    At queue depth 1 a record's MB/s is its size over the time one request takes, so
    a change of +X % between the 4 KiB and the aligned record size is a ratio of request
    times.  003's ratio, applied to this sweep's aligned requests, gives the time 003's
    drive must have taken per 4 KiB request; set beside one page program, that says
    whether the drive can have programmed every small write before acknowledging it.
    ``None`` when there is nothing to compare (no reference, no computed change) or the
    two agree within 25 % of the reference.

    Examples
    --------
    >>> def row(size, seconds):
    ...     return ValidationRow(size, None, 2**27, seconds, 0.2, 5.0, "model", 2**27 // size, 1, 1.0)
    >>> rows = [row(4096, 46.74), row(32768, 5.12)]
    >>> c = Comparison(4096, 32768, 812.9, -89.0, "")
    >>> print(explain_gap(rows, c, (123.0, -71.0), 900e-6))
    why +813 % here and +123 % in 003: at queue depth 1 MB/s is the record over the time per request. Here a 4 KiB write takes 1426 µs and a 32 KiB write 1250 µs, so 32 KiB records carry 8 times the data per request for about the same wait. 003's +123 % means its drive finished a 4 KiB write in about 348 µs (if its 32 KiB writes took as long as here), less than one 900 µs page program: it acknowledged small writes before programming them (a write buffer) or merged consecutive ones into one unit.
    """
    if reference is None or comparison.mb_per_s_change_pct is None or comparison.aligned_bytes is None:
        return None
    ours, theirs = comparison.mb_per_s_change_pct, reference[0]
    if abs(ours - theirs) <= 0.25 * abs(theirs):
        return None
    by_size = {r.record_size_bytes: r for r in rows}
    small, big = by_size.get(comparison.baseline_bytes), by_size.get(comparison.aligned_bytes)
    if small is None or big is None:
        return None
    t_small = small.duration_s / (small.bytes_written / small.record_size_bytes)
    t_big = big.duration_s / (big.bytes_written / big.record_size_bytes)
    size_ratio = big.record_size_bytes / small.record_size_bytes
    # 003's MB/s ratio R = size_ratio × t_small / t_big, so its drive's t_small = R × t_big / size_ratio.
    implied = (1 + theirs / 100) * t_big / size_ratio
    kib = f"{small.record_size_bytes // 1024} KiB"
    text = (f"why {ours:+.0f} % here and {theirs:+.0f} % in 003: at queue depth 1 MB/s is the record over the time "
            f"per request. Here a {kib} write takes {t_small * 1e6:.0f} µs and a {big.record_size_bytes // 1024} KiB "
            f"write {t_big * 1e6:.0f} µs, so {big.record_size_bytes // 1024} KiB records carry {size_ratio:g} times "
            f"the data per request for {'about the same' if t_small > 0.8 * t_big else 'a longer'} wait. "
            f"003's {theirs:+.0f} % means its drive finished a {kib} write in about {implied * 1e6:.0f} µs (if its "
            f"{big.record_size_bytes // 1024} KiB writes took as long as here)")
    if program_time_s is not None and implied < program_time_s:
        text += (f", less than one {program_time_s * 1e6:.0f} µs page program: it acknowledged small writes before "
                 "programming them (a write buffer) or merged consecutive ones into one unit.")
    elif implied < t_small:
        text += f", {t_small / implied:.1f} times faster than here."
    else:
        text += f", {implied / t_small:.1f} times slower than here."
    return text

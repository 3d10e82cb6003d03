"""A whole validation: the rows, the unit they were judged against, the ratios, the provenance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from charz.validate._compare import PAPER_TABLE4, Comparison, compare_aligned, explain_gap
from charz.validate._rows import MEASURED, MODEL, ValidationRow
from charz.validate._unit import MeasuredUnit

__all__ = ["ValidationResult", "RailVoltage", "SCHEMA_ID", "build_result"]

SCHEMA_ID = "charz.validate/1"
ASSUMED_RAIL = "assumed: 5 V SATA rail, as 003 multiplies by 5 V"


@dataclass(frozen=True)
class RailVoltage:
    """The voltage energies are computed with, and whether it was given or assumed.

    Example
    -------
    >>> RailVoltage.from_option(None), RailVoltage.from_option(3.3).origin
    (RailVoltage(volts=5.0, origin='assumed: 5 V SATA rail, as 003 multiplies by 5 V'), 'given on the command line')
    """

    volts: float
    origin: str

    @classmethod
    def from_option(cls, volts: float | None) -> "RailVoltage":
        if volts is None:
            return cls(5.0, ASSUMED_RAIL)
        return cls(float(volts), "given on the command line")


@dataclass(frozen=True)
class ValidationResult:
    """Everything ``charz validate`` found, ready to format, dump as JSON or add to a profile.

    Attributes
    ----------
    mode : str
        ``"mock"`` or ``"bench"``.
    drive : str
        What was validated (``preset qpro (simulated)``, or model and serial).
    preset : str or None
        The simulated drive (mock mode), which selects 003 Table 4's reference figures.
    file_size_bytes : int
        Bytes each record size wrote (003: 128 MB).
    rows : tuple of ValidationRow
        One per record size, ascending.
    unit : MeasuredUnit
    comparison : Comparison
    rail : RailVoltage
    fio_version, jobfile : str
        The real fio that ran, and the job file it ran.
    notes : tuple of str
        Provenance and caveats, in the order they matter.
    program_time_s : float or None
        One page program of the drive (mock: the simulated drive's), for explaining the
        gap to 003 Table 4.
    """

    mode: str
    drive: str
    preset: str | None
    file_size_bytes: int
    rows: tuple[ValidationRow, ...]
    unit: MeasuredUnit
    comparison: Comparison
    rail: RailVoltage
    fio_version: str
    jobfile: str
    notes: tuple[str, ...] = ()
    program_time_s: float | None = None

    @property
    def gap_to_paper(self) -> str | None:
        """Why the MB/s change differs from 003 Table 4's, or None (see :func:`explain_gap`)."""
        return explain_gap(self.rows, self.comparison, self.reference, self.program_time_s)

    @property
    def source(self) -> str:
        return MODEL if self.mode == "mock" else MEASURED

    @property
    def reference(self) -> tuple[float, float] | None:
        """003 Table 4's (MB/s %, energy %) for the simulated drive, if it is one of 003's."""
        return PAPER_TABLE4.get(self.preset or "")

    def to_dict(self) -> dict[str, Any]:
        ref = self.reference
        return {
            "schema": SCHEMA_ID,
            "mode": self.mode,
            "source": self.source,
            "drive": self.drive,
            "preset": self.preset,
            "file_size_bytes": self.file_size_bytes,
            "rail_v": self.rail.volts,
            "rail_v_origin": self.rail.origin,
            "write_io_unit": {"value_bytes": self.unit.value_bytes, "cite": self.unit.cite},
            "rows": [r.to_dict() for r in self.rows],
            "aligned_vs_4k": self.comparison.to_dict(),
            "reference_003_table4": None if ref is None else {"mb_per_s_change_pct": ref[0],
                                                              "energy_change_pct": ref[1]},
            "gap_to_003": self.gap_to_paper,
            "fio": {"version": self.fio_version, "jobfile": self.jobfile},
            "notes": list(self.notes),
        }


def build_result(*, mode: str, drive: str, preset: str | None, file_size_bytes: int, rows: list[ValidationRow],
                 unit: MeasuredUnit, rail: RailVoltage, fio_version: str, jobfile: str,
                 notes: list[str], program_time_s: float | None = None) -> ValidationResult:
    """Sort the rows, compare the aligned size with 4 KB, and put the provenance notes first."""
    ordered = tuple(sorted(rows, key=lambda r: r.record_size_bytes))
    comparison = compare_aligned(ordered, unit)
    source = MODEL if mode == "mock" else MEASURED
    head = [f"every MB/s, current and energy figure is {source!r}: " + (
                "the simulated SSD's timing and current model, not a measurement" if source == MODEL
                else "fio's runtime and bytes on the device, and the scope's mean current"),
            f"rail voltage {rail.volts:g} V ({rail.origin})",
            unit.cite]
    if comparison.reason:
        head.append(f"aligned vs 4 KiB: {comparison.reason}")
    return ValidationResult(mode, drive, preset, file_size_bytes, ordered, unit, comparison, rail, fio_version,
                            jobfile, tuple(head + list(notes)), program_time_s)

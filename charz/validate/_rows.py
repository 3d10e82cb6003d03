"""One record size's result: throughput, mean current, energy per MB, and where each came from.

MB is 10^6 bytes throughout (fio's ``bw_bytes / 1e6``).  Energy is the supply's:
mean current × rail voltage × the section's duration, so idle current is included, as a
probe on the supply rail sees it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from charz.errors import UsageError

__all__ = ["ValidationRow", "MODEL", "MEASURED"]

MODEL = "model"
MEASURED = "measured"


@dataclass(frozen=True)
class ValidationRow:
    """The sweep's result for one record size.

    Attributes
    ----------
    record_size_bytes : int
    aligned : bool or None
        A multiple of the measured write I/O unit; None when the unit is unknown.
    bytes_written : int
        What the section wrote (fio's ``io_bytes``).
    duration_s : float
        The section's length: the model's stream time (mock), fio's ``runtime`` (bench).
    mean_current_a : float or None
        Mean supply current over the section; None when a bench could not measure it.
    rail_v : float
        Voltage of the rail the current is drawn from.
    source : str
        ``"model"`` (the simulated SSD's timing model) or ``"measured"`` (fio + scope).
    fio_total_ios, fio_runtime_ms, fio_mb_per_s
        What the real fio reported for this section (on the scratch file in mock mode).
    current_records : int
        Bench: scope acquisitions averaged (0 for the model).
    current_sem_a : float or None
        Bench: standard error of the mean current over those acquisitions.

    Example
    -------
    >>> row = ValidationRow(32768, True, 128 * 2**20, 7.1, 0.2, 5.0, MODEL, 4096, 310, 433.0)
    >>> round(row.mb_per_s, 2), round(row.energy_j, 2), round(row.j_per_mb, 4)
    (18.9, 7.1, 0.0529)
    """

    record_size_bytes: int
    aligned: bool | None
    bytes_written: int
    duration_s: float
    mean_current_a: float | None
    rail_v: float
    source: str
    fio_total_ios: int
    fio_runtime_ms: int
    fio_mb_per_s: float
    current_records: int = 0
    current_sem_a: float | None = None

    def __post_init__(self) -> None:
        if self.source not in (MODEL, MEASURED):
            raise UsageError(f"source must be {MODEL!r} or {MEASURED!r}, not {self.source!r}")
        if self.record_size_bytes <= 0 or self.bytes_written <= 0:
            raise UsageError("record_size_bytes and bytes_written must be positive")
        if not (math.isfinite(self.duration_s) and self.duration_s > 0):
            raise UsageError(f"duration_s must be positive, not {self.duration_s!r}")
        if not (math.isfinite(self.rail_v) and self.rail_v > 0):
            raise UsageError(f"rail_v must be positive, not {self.rail_v!r}")

    @property
    def mb_per_s(self) -> float:
        return self.bytes_written / self.duration_s / 1e6

    @property
    def energy_j(self) -> float | None:
        if self.mean_current_a is None:
            return None
        return self.mean_current_a * self.rail_v * self.duration_s

    @property
    def j_per_mb(self) -> float | None:
        energy = self.energy_j
        return None if energy is None else energy / (self.bytes_written / 1e6)

    def to_dict(self) -> dict[str, Any]:
        """Every field plus the derived figures (None where unknown)."""
        return {**asdict(self), "mb_per_s": self.mb_per_s, "energy_j": self.energy_j, "j_per_mb": self.j_per_mb}

    def profile_row(self) -> dict[str, Any]:
        """The row as ``profile["validation"]["rows"]`` holds it (keys fixed for charz report)."""
        return {"record_size_bytes": self.record_size_bytes, "aligned": self.aligned, "mb_per_s": self.mb_per_s,
                "mean_current_a": self.mean_current_a, "j_per_mb": self.j_per_mb, "source": self.source}

"""A validation as a profile section, so ``charz report`` can draw it next to the unit it checks.

``profile["validation"]`` holds::

    rows = [{record_size_bytes, aligned, mb_per_s, mean_current_a, j_per_mb, source}, ...]
    aligned_vs_4k = {baseline_record_size_bytes, aligned_record_size_bytes,
                     mb_per_s_change_pct, energy_change_pct, reason?}
    notes = [...]
    source, rail_v, rail_v_origin, file_size_bytes, workload, created_utc

``aligned`` and the percentages are absent (TOML has no null) when they are unknown;
``source`` is ``"model"`` (mock bench) or ``"measured"``.  A second validation replaces
the first.
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from typing import Any

from charz.profile import validate_profile
from charz.validate._result import ValidationResult

__all__ = ["validation_section", "with_validation"]


def validation_section(result: ValidationResult, *, created_utc: str | None = None) -> dict[str, Any]:
    """The ``validation`` table for a profile.

    Example
    -------
    >>> from charz.validate._result import RailVoltage, build_result
    >>> from charz.validate._rows import ValidationRow
    >>> from charz.validate._unit import MeasuredUnit
    >>> rows = [ValidationRow(s, s == 32768, 2**27, t, 0.2, 5.0, "model", 1, 1, 1.0)
    ...         for s, t in ((4096, 40.0), (32768, 10.0))]
    >>> r = build_result(mode="mock", drive="d", preset=None, file_size_bytes=2**27, rows=rows,
    ...                  unit=MeasuredUnit(32768, "test"), rail=RailVoltage.from_option(None),
    ...                  fio_version="fio-3.33", jobfile="recsize-one.fio", notes=[])
    >>> s = validation_section(r, created_utc="2026-01-01T00:00:00+00:00")
    >>> s["rows"][1]["aligned"], s["aligned_vs_4k"]["mb_per_s_change_pct"], s["aligned_vs_4k"]["energy_change_pct"]
    (True, 300.0, -75.0)
    """
    return {
        "rows": [row.profile_row() for row in result.rows],
        "aligned_vs_4k": result.comparison.to_dict(),
        "notes": list(result.notes),
        "source": result.source,
        "rail_v": result.rail.volts,
        "rail_v_origin": result.rail.origin,
        "file_size_bytes": result.file_size_bytes,
        "workload": f"{result.jobfile} ({result.fio_version}), direct sequential QD1 writes",
        "drive": result.drive,
        "created_utc": created_utc or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def with_validation(profile: dict[str, Any], result: ValidationResult, *, origin: str = "profile",
                    created_utc: str | None = None) -> dict[str, Any]:
    """A copy of ``profile`` with its ``validation`` section set, checked against the schema.

    Raises
    ------
    ProfileError
        The result would not validate (a bug, never the user's doing).
    """
    updated = copy.deepcopy(profile)
    updated["validation"] = validation_section(result, created_utc=created_utc)
    return validate_profile(updated, origin=origin)

"""Helpers for tests and examples: valid ``charz.profile/1`` dicts from a few numbers.

Runtime code never imports this module.  The presets mirror 003 Table 2 (with the 840's
text value of 8 steps).
"""

from __future__ import annotations

from typing import Any

#: 003 Table 2 (+ §5.2 page size of the Q Pro, §5.4 eight steps of the 840): keyword arguments of profile_dict.
PRESETS: dict[str, dict[str, Any]] = {
    "x25m": {"unit_bytes": 4096, "n_step": 20, "step_pages": 1, "packages": 20, "page_size": 4096, "dies": 1},
    "mxp": {"unit_bytes": 32768, "n_step": 4, "step_pages": 8, "packages": 16, "page_size": 4096, "dies": 2},
    "qpro": {"unit_bytes": 32768, "n_step": 4, "step_pages": 4, "packages": 4, "page_size": 8192, "dies": 4},
    "840": {"unit_bytes": 4096, "n_step": 8, "step_pages": 1, "packages": 8, "page_size": 4096, "dies": 1},
}


def quantity(value: Any, unit: str, *, origin: str = "inferred", confidence: str = "high",
             evidence: str = "hand-made for a test", best_guess: Any = None) -> dict[str, Any]:
    """A quantity table; ``value=None`` makes it undetermined (and drops the value)."""
    q: dict[str, Any] = {"unit": unit, "origin": origin, "confidence": confidence if value is not None else "undetermined",
                         "evidence": evidence}
    if value is not None:
        q["value"] = value
    if best_guess is not None:
        q["best_guess"] = best_guess
    return q


def profile_dict(
    *,
    unit_bytes: int | None,
    n_step: int | None,
    step_pages: int | None,
    packages: int | None = 16,
    page_size: int | None = 4096,
    dies: int | None = None,
    confidence: str = "high",
    read_unit_bytes: int | None = None,
    unit_evidence: str | None = None,
) -> dict[str, Any]:
    """A profile that validates against ``charz.profile/1``.

    Example
    -------
    >>> from charz.profile import validate_profile
    >>> p = validate_profile(profile_dict(unit_bytes=32768, n_step=4, step_pages=8))
    >>> p["results"]["write_io_unit_bytes"]["value"]
    32768
    """
    given: dict[str, Any] = {}
    if packages is not None:
        given["packages"] = packages
    if page_size is not None:
        given["page_size_bytes"] = page_size
    results = {
        "n_step": quantity(n_step, "steps", origin="measured", confidence=confidence),
        "step_pages": quantity(step_pages, "pages", origin="measured", confidence=confidence),
        "dies_per_package": quantity(dies, "dies", confidence=confidence),
        "write_io_unit_bytes": quantity(unit_bytes, "B", confidence=confidence,
                                        evidence=unit_evidence or ("Eq. 2" if unit_bytes else "needs the package count")),
        "read_io_unit_bytes": quantity(read_unit_bytes, "B", origin="measured",
                                       evidence="hand-made" if read_unit_bytes else "needs a read sweep analysis"),
        "allocation_scheme": quantity(None, "", evidence="not needed by tune"),
    }
    if n_step and packages and packages % n_step == 0 and unit_bytes:
        results["packages_per_unit"] = quantity(packages // n_step, "packages", confidence=confidence)
    return {
        "schema": "charz.profile/1",
        "provenance": {"tool": "charz", "version": "0.1.0", "created_utc": "2026-01-01T00:00:00+00:00",
                       "bench_kind": "simulated"},
        "device": {"model": "TEST DRIVE", "serial": "T-0"},
        "given": given,
        "results": results,
        "warnings": [],
    }


def preset_profile(name: str, **changes: Any) -> dict[str, Any]:
    """:func:`profile_dict` with 003 Table 2's numbers for ``x25m``, ``mxp``, ``qpro`` or ``840``."""
    return profile_dict(**{**PRESETS[name], **changes})

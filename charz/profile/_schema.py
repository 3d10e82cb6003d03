"""The profile schema, ``charz.profile/1``: the one definition, from which
``profiles/profile.schema.json`` is generated (a test keeps the file current).

A profile is TOML (or the same content as JSON).  Every result is a
*quantity table*::

    [results.dies_per_package]
    value = 2                     # absent in TOML / null in JSON when undetermined
    unit = "dies"
    origin = "inferred"           # given | measured | inferred
    confidence = "high"           # high | medium | low | undetermined
    evidence = "Eq. 1: N_die = 4 steps × 8 pages / 16 packages"
    uncertainty = 0.0             # optional: one standard error, in unit
    best_guess = ...              # optional: what the data leaned to when undetermined

Units are SI (A, s, B, V, J); key names carry them (``_a``, ``_s``, ``_bytes``).
"""

from __future__ import annotations

import json
from typing import Any

from charz.analysis import SCHEMES as ALLOCATION_SCHEMES

PROFILE_SCHEMA_ID = "charz.profile/1"

SCHEMES = list(ALLOCATION_SCHEMES)  # the analysis's names, in JSON
REQUIRED_RESULTS = ["n_step", "step_pages", "dies_per_package", "write_io_unit_bytes", "read_io_unit_bytes", "allocation_scheme"]


def _quantity(value_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["unit", "origin", "confidence"],
        "properties": {
            "value": {"anyOf": [value_schema, {"type": "null"}]},
            "unit": {"type": "string"},
            "origin": {"enum": ["given", "measured", "inferred"]},
            "confidence": {"enum": ["high", "medium", "low", "undetermined"]},
            "evidence": {"type": "string"},
            "uncertainty": {"type": "number", "minimum": 0},
            "best_guess": {},
            "details": {"type": "object"},
        },
        "additionalProperties": False,
        # A value is present (and not null) exactly when the quantity is determined.
        "if": {"properties": {"confidence": {"const": "undetermined"}}},
        "then": {"anyOf": [{"not": {"required": ["value"]}}, {"properties": {"value": {"type": "null"}}}]},
        "else": {"required": ["value"], "properties": {"value": value_schema}},
    }


def build_schema() -> dict[str, Any]:
    count = {"type": "integer", "minimum": 1}
    positive = {"type": "number", "exclusiveMinimum": 0}
    current = {"type": "number"}
    result_values = {
        "n_step": count,
        "step_pages": count,
        "dies_per_package": count,
        "packages_per_unit": count,
        "write_io_unit_bytes": count,
        "read_io_unit_bytes": count,
        "allocation_scheme": {"enum": SCHEMES},
        "t_xfer_page_s": positive,
        "t_switch_s": {"type": "number", "minimum": 0},
        "t_prog_s": positive,
        "idle_a": current,
        "m_peak_a": current,
        "M_peak_a": current,
    }
    number_list = {"type": "array", "items": {"type": "number"}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://charz.invalid/schema/profile-1.json",
        "title": "charz SSD profile",
        "description": "What charz inferred about an SSD from its supply current (schema charz.profile/1).",
        "type": "object",
        "required": ["schema", "provenance", "device", "given", "results"],
        "properties": {
            "schema": {"const": PROFILE_SCHEMA_ID},
            "provenance": {
                "type": "object",
                "required": ["tool", "version", "created_utc"],
                "properties": {
                    "tool": {"const": "charz"},
                    "version": {"type": "string"},
                    "created_utc": {"type": "string"},
                    "archive": {"type": "string"},
                    "bench_kind": {"enum": ["simulated", "mock", "real"]},
                    "captures_total": {"type": "integer", "minimum": 0},
                    "captures_used": {"type": "integer", "minimum": 0},
                    # what the session's plan asked for: more than captures_total when it was stopped
                    "captures_planned": {"type": "integer", "minimum": 0},
                    "analysis": {"type": "object"},
                },
            },
            "device": {"type": "object"},
            "given": {
                "type": "object",
                "properties": {
                    "channels": count,
                    "packages": count,
                    "page_size_bytes": count,
                    "t_xfer_page_s": positive,
                    "t_switch_s": {"type": "number", "minimum": 0},
                    "t_prog_s": positive,
                    "host_rate_bytes_per_s": positive,
                    "rail_v": positive,
                },
                "additionalProperties": True,
            },
            # Values the analysis used that nobody gave (the 5 V rail 003 multiplies by);
            # power.rail_v.note says why each was assumed.
            "assumed": {
                "type": "object",
                "properties": {"rail_v": positive},
                "additionalProperties": True,
            },
            "results": {
                "type": "object",
                "required": REQUIRED_RESULTS,
                "properties": {key: _quantity(schema) for key, schema in result_values.items()},
                "additionalProperties": {"$ref": "#/$defs/quantity"},
            },
            "steps": {
                "type": "object",
                "properties": {
                    "reason": {"type": "string"},
                    "levels_a": number_list,
                    "rises_after_pages": {"type": "array", "items": {"type": "integer"}},
                    "sizes_pages": {"type": "array", "items": {"type": "integer"}},
                    "median_peak_a": number_list,
                    "stderr_a": number_list,
                    "sigma_a": {"type": "number"},
                    "sigma_source": {"type": "string"},
                    "candidates": {"type": "array", "items": {"type": "object"}},
                },
            },
            "allocation": {
                "type": "object",
                "properties": {
                    "reason": {"type": "string"},
                    "sizes_pages": {"type": "array", "items": {"type": "integer"}},
                    "measured_s": number_list,
                    "measured_se_s": number_list,
                    "candidates": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["scheme", "predicted_s", "chi2"],
                            "properties": {
                                "scheme": {"enum": SCHEMES},
                                "layouts": {"type": "array", "items": {"type": "string"}},
                                "predicted_s": number_list,
                                "chi2": {"type": "number"},
                                "rms_residual_s": {"type": "number"},
                                "t_xfer_page_s": {"type": "number"},
                                "t_switch_s": {"type": "number"},
                                "t_prog_s": {"type": "number"},
                                "offset_s": {"type": "number"},
                            },
                        },
                    },
                },
            },
            "power": {"type": "object"},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "validation": _validation(),
        },
        "$defs": {"quantity": _quantity({})},
        "additionalProperties": True,
    }


def _validation() -> dict[str, Any]:
    """What ``charz validate`` adds (003 §6, Table 4): MB/s and energy per record size.

    Unknown values are absent in a file (TOML has no null) and null in memory.
    """
    def maybe(kind: str) -> dict[str, Any]:
        return {"type": [kind, "null"]}

    row = {
        "type": "object",
        "required": ["record_size_bytes", "mb_per_s", "source"],
        "properties": {
            "record_size_bytes": {"type": "integer", "minimum": 1},
            "aligned": maybe("boolean"),
            "mb_per_s": {"type": "number", "minimum": 0},
            "mean_current_a": maybe("number"),
            "j_per_mb": maybe("number"),
            "source": {"enum": ["model", "measured"]},
        },
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "required": ["rows", "source", "rail_v", "rail_v_origin", "file_size_bytes", "workload", "created_utc"],
        "properties": {
            "rows": {"type": "array", "items": row},
            "aligned_vs_4k": {
                "type": "object",
                "properties": {
                    "baseline_record_size_bytes": maybe("integer"),
                    "aligned_record_size_bytes": maybe("integer"),
                    "mb_per_s_change_pct": maybe("number"),
                    "energy_change_pct": maybe("number"),
                    "reason": {"type": "string"},
                },
                "additionalProperties": False,
            },
            "notes": {"type": "array", "items": {"type": "string"}},
            "source": {"enum": ["model", "measured"]},
            "rail_v": {"type": "number", "exclusiveMinimum": 0},
            "rail_v_origin": {"type": "string"},
            "file_size_bytes": {"type": "integer", "minimum": 1},
            "workload": {"type": "string"},
            "drive": maybe("string"),
            "created_utc": {"type": "string"},
        },
        "additionalProperties": False,
    }


def schema_json() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"

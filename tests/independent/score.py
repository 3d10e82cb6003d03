"""Grade charz's answers on an independent archive: right, undetermined or wrong per field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FIELDS = ("n_step", "step_pages", "dies_per_package", "write_io_unit_bytes", "read_io_unit_bytes",
          "allocation_scheme", "rmw")
RIGHT, UNDETERMINED, WRONG, UNDEFINED = "right", "undetermined", "wrong", "n/a"


@dataclass(frozen=True)
class Grade:
    field: str
    verdict: str
    said: object
    truth: object
    confidence: str
    evidence: str


def _answer(profile: dict, field: str) -> tuple[object, str, str]:
    if field == "rmw":
        rmw = profile.get("rmw") or {}
        conf = str(rmw.get("confidence", "undetermined"))
        if conf == "undetermined" or rmw.get("detected") is None:
            return None, "undetermined", str(rmw.get("reason", ""))
        return bool(rmw["detected"]), conf, str(rmw.get("reason", ""))
    q = (profile.get("results") or {}).get(field)
    if not q:
        return None, "undetermined", "not stated"
    conf = str(q.get("confidence", "undetermined"))
    if q.get("value") is None or conf == "undetermined":
        return None, "undetermined", str(q.get("evidence", ""))
    return q["value"], conf, str(q.get("evidence", ""))


def grade_profile(profile: dict, truth: dict) -> list[Grade]:
    grades = []
    for field in FIELDS:
        said, conf, why = _answer(profile, field)
        want = truth.get(field)
        if want is None:
            verdict = UNDEFINED
        elif said is None:
            verdict = UNDETERMINED
        else:
            verdict = RIGHT if said == want else WRONG
        grades.append(Grade(field, verdict, said, want, conf, why))
    return grades


def grade_session(path: str | Path, truth_file: str | Path | None = None) -> list[Grade]:
    """Run charz's analysis, the path ``charz analyze`` takes, and grade it.

    The truth is read from ``truth_file`` (a family that keeps it outside the archive,
    tests/independent_datasheet) or from the session's ``truth.json``."""
    from charz.profile._pipeline import analyze_archive

    _, profile, _ = analyze_archive(path)
    truth = json.loads(Path(truth_file or Path(path) / "truth.json").read_text("utf-8"))["truth"]
    return grade_profile(profile, truth)

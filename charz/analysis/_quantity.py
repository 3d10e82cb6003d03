"""Numbers that say where they came from and how sure they are.

Every figure charz reports is a :class:`Quantity`: a value (or ``None`` when
the data cannot decide), its unit, its origin — ``given`` (the user or a spec
sheet said so), ``measured`` (read off the waveforms), ``inferred`` (derived
from measured numbers through a model) — an uncertainty, a confidence, and
the evidence that decided it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GIVEN = "given"
MEASURED = "measured"
INFERRED = "inferred"
ORIGINS = (GIVEN, MEASURED, INFERRED)

HIGH = "high"
MEDIUM = "medium"
LOW = "low"
UNDETERMINED = "undetermined"
CONFIDENCES = (HIGH, MEDIUM, LOW, UNDETERMINED)


@dataclass(frozen=True)
class Quantity:
    """A reported number with its provenance.

    ``uncertainty`` is one standard error in ``unit`` for continuous values;
    for counts decided by model selection it is ``None`` and ``confidence``
    carries the doubt.  ``value`` is ``None`` exactly when ``confidence`` is
    ``undetermined``; ``best_guess`` may then hold what the data leaned to.

    Example
    -------
    >>> q = Quantity(2, "dies", INFERRED, confidence=HIGH, evidence="Eq. 1: 4 steps × 8 pages / 16 packages")
    >>> q.known, q.value
    (True, 2)
    """

    value: Any
    unit: str
    origin: str
    uncertainty: float | None = None
    confidence: str = HIGH
    evidence: str = ""
    best_guess: Any = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f"origin must be one of {ORIGINS}, not {self.origin!r}")
        if self.confidence not in CONFIDENCES:
            raise ValueError(f"confidence must be one of {CONFIDENCES}, not {self.confidence!r}")
        if (self.value is None) != (self.confidence == UNDETERMINED):
            raise ValueError("value is None exactly when the confidence is 'undetermined'")

    @property
    def known(self) -> bool:
        return self.value is not None

    @classmethod
    def given(cls, value: Any, unit: str, evidence: str = "given by the user") -> "Quantity":
        return cls(value, unit, GIVEN, evidence=evidence)

    @classmethod
    def undetermined(cls, unit: str, origin: str, evidence: str, best_guess: Any = None, **details: Any) -> "Quantity":
        return cls(None, unit, origin, confidence=UNDETERMINED, evidence=evidence, best_guess=best_guess, details=details)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": self.value,
            "unit": self.unit,
            "origin": self.origin,
            "confidence": self.confidence,
        }
        if self.uncertainty is not None:
            out["uncertainty"] = self.uncertainty
        if self.evidence:
            out["evidence"] = self.evidence
        if self.best_guess is not None:
            out["best_guess"] = self.best_guess
        if self.details:
            out["details"] = self.details
        return out


def combine_confidence(*levels: str) -> str:
    """The weakest of several confidences (a chain is as sure as its weakest link)."""
    order = {c: i for i, c in enumerate(CONFIDENCES)}
    return max(levels, key=lambda c: order[c]) if levels else HIGH

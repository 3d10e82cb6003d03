"""The profile numbers tune uses, each kept with its key, confidence and evidence.

A profile reaches this module only after :func:`charz.profile.validate_profile`, so the
types are the schema's; a quantity is *known* when it has a value and its confidence is
not ``undetermined``.  ``best_guess`` is kept for the record but never used: tune does not
turn a guess into a command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from charz.profile import validate_profile
from charz.tune._model import Source



@dataclass(frozen=True)
class Fact:
    """One number from the profile.

    Example
    -------
    >>> f = Fact("results.n_step", 4, "steps", "measured", "high", "4 levels")
    >>> f.known, f.source().cite()
    (True, 'results.n_step = 4 steps (measured, high)')
    """

    key: str
    value: Any
    unit: str
    origin: str
    confidence: str
    evidence: str = ""
    best_guess: Any = None

    @property
    def known(self) -> bool:
        return self.value is not None and self.confidence != "undetermined"

    def source(self) -> Source:
        return Source(self.key, self.value, self.unit, "profile", self.confidence, self.origin)


@dataclass(frozen=True)
class ProfileFacts:
    """Everything tune needs from one profile."""

    write_unit: Fact
    read_unit: Fact
    n_step: Fact
    step_pages: Fact
    packages_per_unit: Fact
    dies_per_package: Fact
    page_size: Fact
    packages: Fact
    channels: Fact
    model: str
    serial: str
    profile_warnings: tuple[str, ...]


def _result(results: dict[str, Any], name: str, default_unit: str) -> Fact:
    q = results.get(name)
    if q is None:
        return Fact(f"results.{name}", None, default_unit, "inferred", "undetermined", "not in the profile")
    return Fact(f"results.{name}", q.get("value"), q.get("unit", default_unit), q.get("origin", ""),
                q.get("confidence", "undetermined"), q.get("evidence", ""), q.get("best_guess"))


def _given(given: dict[str, Any], name: str, unit: str) -> Fact:
    value = given.get(name)
    if value is None:
        return Fact(f"given.{name}", None, unit, "given", "undetermined", "not given")
    return Fact(f"given.{name}", value, unit, "given", "given")


def facts_from_profile(profile: dict[str, Any]) -> ProfileFacts:
    """Validate ``profile`` (ProfileError names a bad key) and pick out tune's numbers.

    Example
    -------
    >>> from charz.tune.testing import profile_dict
    >>> f = facts_from_profile(profile_dict(unit_bytes=32768, n_step=4, step_pages=8))
    >>> f.write_unit.value, f.n_step.value, f.page_size.value
    (32768, 4, 4096)
    """
    validate_profile(profile)
    results = profile["results"]
    given = profile.get("given", {})
    device = profile.get("device", {})
    return ProfileFacts(
        write_unit=_result(results, "write_io_unit_bytes", "B"),
        read_unit=_result(results, "read_io_unit_bytes", "B"),
        n_step=_result(results, "n_step", "steps"),
        step_pages=_result(results, "step_pages", "pages"),
        packages_per_unit=_result(results, "packages_per_unit", "packages"),
        dies_per_package=_result(results, "dies_per_package", "dies"),
        page_size=_given(given, "page_size_bytes", "B"),
        packages=_given(given, "packages", "packages"),
        channels=_given(given, "channels", "channels"),
        model=str(device.get("model", "?")),
        serial=str(device.get("serial", "?")),
        profile_warnings=tuple(profile.get("warnings", ())),
    )

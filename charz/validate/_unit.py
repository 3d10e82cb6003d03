"""The measured write I/O unit a validation compares record sizes against.

It comes from a profile's ``results.write_io_unit_bytes`` quantity and nowhere else: a
validation that took the unit from the simulated drive's firmware, or from a guess,
would validate nothing.  When the profile is absent or the unit undetermined, the
sweep is still reported, without an aligned/not-aligned verdict, and says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from charz.profile import validate_profile

__all__ = ["MeasuredUnit", "aligned_record_size", "is_aligned", "unit_from_profile", "NO_PROFILE"]

KEY = "results.write_io_unit_bytes"


@dataclass(frozen=True)
class MeasuredUnit:
    """The write I/O unit, or why there is none.

    Attributes
    ----------
    value_bytes : int or None
        The unit; None when it is not known.
    cite : str
        Where it came from (``results.write_io_unit_bytes in p.toml (inferred, high)``),
        or why it is missing.

    Example
    -------
    >>> MeasuredUnit(32768, "from a test").known, NO_PROFILE.known
    (True, False)
    """

    value_bytes: int | None
    cite: str

    @property
    def known(self) -> bool:
        return self.value_bytes is not None


#: No profile was given.
NO_PROFILE = MeasuredUnit(None, "no --profile given: the measured write I/O unit is unknown, "
                                "so no record size is called aligned or not aligned")


def unit_from_profile(profile: Any, *, origin: str = "profile") -> MeasuredUnit:
    """Pick ``results.write_io_unit_bytes`` out of a profile (validated first).

    Raises
    ------
    ProfileError
        The profile does not validate against ``charz.profile/1`` (the message names the key).

    Examples
    --------
    >>> from charz.tune.testing import profile_dict
    >>> unit_from_profile(profile_dict(unit_bytes=32768, n_step=4, step_pages=8), origin="p.toml")
    MeasuredUnit(value_bytes=32768, cite='results.write_io_unit_bytes = 32768 B in p.toml (inferred, high; Eq. 2)')
    >>> unit_from_profile(profile_dict(unit_bytes=None, n_step=4, step_pages=8), origin="p.toml").known
    False
    """
    validate_profile(profile, origin=origin)
    q = profile["results"]["write_io_unit_bytes"]
    value, confidence = q.get("value"), q.get("confidence", "undetermined")
    evidence = q.get("evidence", "")
    if value is None or confidence == "undetermined":
        why = f" ({evidence})" if evidence else ""
        guess = q.get("best_guess")
        leaned = f"; the data leaned to {guess} B, which a validation does not use" if guess is not None else ""
        return MeasuredUnit(None, f"{KEY} is undetermined in {origin}{why}{leaned}: "
                                  "no record size is called aligned or not aligned")
    detail = f"{q.get('origin', '?')}, {confidence}" + (f"; {evidence}" if evidence else "")
    return MeasuredUnit(int(value), f"{KEY} = {int(value)} B in {origin} ({detail})")


def is_aligned(record_size_bytes: int, unit: MeasuredUnit) -> bool | None:
    """Whether a record fills whole I/O units (a multiple of the unit); None when unknown.

    Example
    -------
    >>> u = MeasuredUnit(32768, "test")
    >>> is_aligned(4096, u), is_aligned(65536, u), is_aligned(4096, NO_PROFILE)
    (False, True, None)
    """
    if unit.value_bytes is None:
        return None
    return record_size_bytes % unit.value_bytes == 0


def aligned_record_size(record_sizes_bytes: Iterable[int], unit: MeasuredUnit) -> int | None:
    """The smallest record size that is a multiple of the unit (003 §6's "aligned" size).

    Example
    -------
    >>> aligned_record_size([4096, 8192, 16384, 32768, 65536], MeasuredUnit(32768, "test"))
    32768
    >>> aligned_record_size([4096, 8192], MeasuredUnit(32768, "test")) is None
    True
    """
    hits = [r for r in record_sizes_bytes if is_aligned(r, unit)]
    return min(hits) if hits else None

"""003's Eq. 1 and Eq. 2, with the checks the paper leaves to the reader.

    Eq. 1   N_die   = N_step × D_step / N_package
    Eq. 2   I/O unit = N_package / N_step × N_die   (= D_step pages)

Eq. 1 only makes sense when it yields a whole number of dies; anything else
means the step count, the step width or the given package count is wrong, and
is reported as such instead of being rounded.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DiesAndUnit:
    dies_per_package: int | None
    write_io_unit_pages: int | None
    packages_per_unit: int | None
    problem: str | None  # why the equations could not be applied

    @property
    def ok(self) -> bool:
        return self.problem is None


def dies_and_unit(n_step: int, step_pages: int, n_package: int) -> DiesAndUnit:
    """Apply Eq. 1 and Eq. 2.

    Examples
    --------
    003 Table 2, MXP: 4 steps of 8 pages over 16 packages.

    >>> dies_and_unit(4, 8, 16)
    DiesAndUnit(dies_per_package=2, write_io_unit_pages=8, packages_per_unit=4, problem=None)

    A package count that contradicts the steps:

    >>> dies_and_unit(4, 8, 12).problem
    'Eq. 1 gives 32/12 = 2.67 dies per package, not a whole number: check the package count (12) and the step detection'
    """
    if min(n_step, step_pages, n_package) < 1:
        raise ValueError("n_step, step_pages and n_package must be >= 1")
    pages_at_once = n_step * step_pages
    if n_step > n_package:
        return DiesAndUnit(
            None, None, None,
            f"{n_step} steps but only {n_package} packages: each step adds at least one package; check the package count",
        )
    if pages_at_once % n_package:
        return DiesAndUnit(
            None, None, None,
            f"Eq. 1 gives {pages_at_once}/{n_package} = {pages_at_once / n_package:.2f} dies per package, not a whole "
            f"number: check the package count ({n_package}) and the step detection",
        )
    if n_package % n_step:
        return DiesAndUnit(
            None, None, None,
            f"{n_package} packages do not split into {n_step} equal steps: check the package count and the step detection",
        )
    dies = pages_at_once // n_package
    per_unit = n_package // n_step
    return DiesAndUnit(dies, per_unit * dies, per_unit, None)

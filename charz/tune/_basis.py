"""What every target aligns to: the one decision all of tune's modules share.

Rules (003 §4.1, §6 and Table 2):

* **unit** — the write I/O unit is known and larger than a page.  Align to it (a write
  smaller than the unit makes the drive read-modify-write, 003 §5.5 Fig. 16, and §6
  measured +123 % (MXP) and +201 % (Q Pro) from records of the unit size).  ``n_step``
  units program in parallel before every package is busy, so ``unit × n_step`` is the
  size that keeps the whole drive working (MXP: 32 KiB × 4 = 128 KiB, "the maximum size
  that can be programmed concurrently", §5.5).
* **page** — the unit is one page (X-25M, 840: Table 2 "-", "no I/O unit larger than a
  page").  Alignment beyond the page gains nothing measurable here; recommend the tools'
  page-aligned defaults.
* **fallback** — the write unit is undetermined.  No guessing: quote the evidence, say
  what would settle it, and align to the page only, flagged as a fallback — and only when
  the page size is known.
* **none** — undetermined unit and no page size: nothing to add to the defaults.

Confidence below *high* is carried into a warning, not hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

from charz.tune._facts import Fact, ProfileFacts
from charz.tune._model import Source
from charz.tune._sizes import human

UNIT, PAGE, FALLBACK, NONE = "unit", "page", "fallback", "none"


@dataclass(frozen=True)
class Basis:
    """The alignment every target starts from.

    ``align_bytes`` is the write unit (``unit``), the page (``page``, ``fallback``) or
    None.  ``parallel_units`` and ``full_bytes`` (= ``align_bytes × parallel_units``)
    are set only for ``unit`` with a known ``n_step``.
    """

    kind: str
    align_bytes: int | None
    align_source: Source | None
    parallel_units: int | None
    parallel_source: Source | None
    facts: ProfileFacts
    summary: str
    warnings: tuple[str, ...] = ()
    missing: str = ""

    @property
    def full_bytes(self) -> int | None:
        if self.align_bytes is None or self.parallel_units is None:
            return None
        return self.align_bytes * self.parallel_units

    @property
    def page_bytes(self) -> int | None:
        return self.facts.page_size.value if self.facts.page_size.known else None

    @property
    def fallback(self) -> bool:
        return self.kind == FALLBACK


def _what_to_do(evidence: str) -> str:
    text = evidence.lower()
    steps = []
    if "package" in text:
        steps.append("give the flash package count (count them on the board): charz analyze SESSION --packages N")
    steps.append("capture again with more repeats per size (charz characterize ... --repeats N) so the peak staircase "
                 "stands clear of the noise")
    if "package" not in text:
        steps.append("check --packages and --page-size given to charz analyze")
    return "; or ".join(steps)


def _low_confidence(fact: Fact) -> str | None:
    if fact.known and fact.confidence in ("medium", "low"):
        return (f"{fact.key} is only {fact.confidence} confidence ({fact.evidence or 'no evidence recorded'}); "
                "the commands use it, but confirm it with more repeats before formatting a drive you keep")
    return None


def decide_basis(facts: ProfileFacts) -> Basis:
    """Pick unit, page, fallback or none from the profile's facts (pure).

    Example
    -------
    >>> from charz.tune._facts import facts_from_profile
    >>> from charz.tune.testing import profile_dict
    >>> b = decide_basis(facts_from_profile(profile_dict(unit_bytes=32768, n_step=4, step_pages=8)))
    >>> b.kind, b.align_bytes, b.parallel_units, b.full_bytes
    ('unit', 32768, 4, 131072)
    >>> decide_basis(facts_from_profile(profile_dict(unit_bytes=4096, n_step=20, step_pages=1))).kind
    'page'
    >>> decide_basis(facts_from_profile(profile_dict(unit_bytes=None, n_step=4, step_pages=8))).kind
    'fallback'
    """
    unit, page, n_step, step_pages = facts.write_unit, facts.page_size, facts.n_step, facts.step_pages
    warnings: list[str] = []
    for fact in (unit, n_step):
        w = _low_confidence(fact)
        if w:
            warnings.append(w)

    if not unit.known:
        evidence = unit.evidence or "no evidence recorded"
        missing = (f"the write I/O unit is undetermined: {evidence!r} ({unit.key}). "
                   f"What to do: {_what_to_do(evidence)}.")
        if page.known:
            return Basis(FALLBACK, page.value, page.source(), None, None, facts,
                         f"FALLBACK: page alignment only ({human(page.value)} page from {page.key}); "
                         "the write I/O unit is undetermined", tuple(warnings), missing)
        return Basis(NONE, None, None, None, None, facts,
                     "no alignment advice: the write I/O unit is undetermined and no page size is given",
                     tuple(warnings), missing + " The page size is not in the profile either (charz analyze --page-size).")

    one_page = (page.known and unit.value == page.value) or (not page.known and step_pages.known and step_pages.value == 1)
    if page.known and unit.value % page.value:
        warnings.append(f"{unit.key} ({human(unit.value)}) is not a whole number of {human(page.value)} pages "
                        f"({page.key}); check the page size given to charz analyze")
    if page.known and step_pages.known and step_pages.value * page.value != unit.value:
        d_step_bytes = step_pages.value * page.value
        warnings.append(f"Eq. 2 says the unit is D_step = {step_pages.value} pages = {human(d_step_bytes)}, "
                        f"but {unit.key} is {human(unit.value)}; the profile is inconsistent")
    if one_page:
        return Basis(PAGE, unit.value, unit.source(), None, None, facts,
                     f"the write I/O unit is one page ({human(unit.value)}): no I/O unit larger than a page "
                     "(003 Table 2 '-'); alignment beyond the page gains nothing measurable here",
                     tuple(warnings))

    parallel = n_step.value if n_step.known else None
    if parallel is None:
        warnings.append(f"{n_step.key} is undetermined ({n_step.evidence or 'no evidence'}): charz aligns to the unit, "
                        "but cannot say how many units keep every package busy (no stripe width)")
    ppu, packages = facts.packages_per_unit, facts.packages
    if parallel and ppu.known and packages.known and ppu.value * parallel != packages.value:
        warnings.append(f"{ppu.key} {ppu.value} × {n_step.key} {parallel} ≠ {packages.key} {packages.value}; "
                        "the profile's geometry does not add up")
    summary = f"write I/O unit {human(unit.value)} ({unit.key}, {unit.confidence})"
    if parallel:
        summary += (f"; {parallel} units program in parallel ({n_step.key}, {n_step.confidence}), "
                    f"so {human(unit.value * parallel)} keeps every package busy")
    return Basis(UNIT, unit.value, unit.source(), parallel, n_step.source() if parallel else None, facts,
                 summary, tuple(warnings))

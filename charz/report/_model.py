"""What a report is, before it becomes files: sections with their PNG and the profile they explain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Report", "Section"]


@dataclass(frozen=True)
class Section:
    """One figure of the report, or the note that says why it is missing.

    ``result_keys`` name the profile results the figure is evidence for; the page
    prints them beside it with origin, confidence and evidence.  ``evidence`` is what
    the analysis wrote about the table drawn (e.g. ``steps.reason``).

    Examples
    --------
    >>> s = Section("4-read-bursts", "Read bursts", "how to read it", ("read_io_unit_bytes",), None,
    ...             "the session has no read captures")
    >>> s.drawn
    False
    >>> s.number, s.file_name
    ('4', '4-read-bursts.png')
    """

    key: str
    title: str
    caption: str
    result_keys: tuple[str, ...]
    png: bytes | None
    note: str | None = None  # why the figure is missing, when it is
    evidence: str = ""  # the profile's own words on the table drawn (its ``reason``); one item a line

    @property
    def drawn(self) -> bool:
        return self.png is not None

    @property
    def file_name(self) -> str:
        return f"{self.key}.png"

    @property
    def number(self) -> str:
        """The figure's number on the page, the one its PNG's name starts with.

        ``3b-rise`` → ``3b`` (a figure added after 3, so docs/report.md's numbers hold);
        ``wa-2-benchmarks`` → ``WA 2``.
        """
        head, _, rest = self.key.partition("-")
        if head == "wa":
            return "WA " + rest.partition("-")[0]
        return head


@dataclass(frozen=True)
class Report:
    """Everything the HTML page and the PNG files are written from."""

    profile: dict[str, Any]
    sections: tuple[Section, ...]
    session: str
    profile_source: str  # where the profile came from, in words
    damaged: tuple[str, ...] = field(default=())
    time_reference: str = ""  # t = 0 on every time axis (the archive's); "" when nothing is drawn on one

    __hash__ = None  # type: ignore[assignment]  # holds a dict

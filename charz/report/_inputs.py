"""Read what a report is drawn from: the session's captures, their measurements and a profile.

The profile is ``SESSION/profile.toml`` unless another is named; when the default
one is missing the session is analysed now (the same pipeline as ``charz analyze``)
and the caller is told, so it can keep the profile beside the report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charz.analysis import measure_traces
from charz.archive import Capture, read_archive
from charz.errors import AnalysisError
from charz.profile import analyze_archive, read_profile, traces_from_archive
from charz.report._evidence import Measured

__all__ = ["DEFAULT_PROFILE", "Inputs", "load_inputs"]

DEFAULT_PROFILE = "profile.toml"


@dataclass(frozen=True)
class Inputs:
    profile: dict[str, Any]
    measured: Measured
    captures: tuple[Capture, ...]
    profile_source: str  # in words, for the page
    computed: bool  # True: no profile file, the profile was made now
    damaged: tuple[str, ...]

    __hash__ = None  # type: ignore[assignment]


def load_inputs(session: str | os.PathLike, *, profile_path: str | os.PathLike | None = None,
                tolerant: bool = False) -> Inputs:
    """Read the archive (strict unless ``tolerant``), measure every capture, find or make the profile.

    Raises
    ------
    ArchiveError, ArchiveCorrupt
        From :func:`charz.archive.read_archive`; ``tolerant=True`` skips damaged captures.
    ProfileError
        A named profile (``profile_path``) that is missing or malformed.  Only the
        default ``SESSION/profile.toml`` is replaced by a fresh analysis when absent.
    AnalysisError
        The session holds no current captures.

    Examples
    --------
    >>> inputs = load_inputs("runs/mxp")                          # doctest: +SKIP
    >>> inputs.computed, inputs.profile["results"]["n_step"]["value"]  # doctest: +SKIP
    (False, 4)
    """
    session = Path(session)
    default = session / DEFAULT_PROFILE
    if profile_path is None and not default.exists():
        char, profile, archive = analyze_archive(session, tolerant=tolerant)
        table, source, computed = char.captures, f"computed now (no {DEFAULT_PROFILE} in the session)", True
    else:
        archive = read_archive(session, tolerant=tolerant)
        path = Path(profile_path) if profile_path is not None else default
        profile = read_profile(path)
        traces = traces_from_archive(archive)
        if not traces:
            raise AnalysisError(f"{session} holds no current captures", hint="record a sweep into it first")
        table, source, computed = measure_traces(traces), f"read from {path}", False
    damaged = tuple(f"{d.path.name}: {d.reason}" for d in archive.damaged)
    return Inputs(profile, Measured.from_table(table), archive.captures, source, computed, damaged)

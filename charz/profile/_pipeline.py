"""From a session directory to a profile: read the archive, measure, infer, describe."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from charz.analysis import Characterization, Given, Trace, characterize
from charz.archive import Archive, read_archive
from charz.errors import AnalysisError
from charz.profile._build import US_TO_S, build_profile


def given_from_metadata(metadata: dict[str, Any]) -> Given:
    """What the session recorded as given (SI in the archive; the analysis works in µs)."""
    g = (metadata.get("drive") or {}).get("given") or {}
    kwargs: dict[str, Any] = {}
    for key in ("channels", "packages", "page_size_bytes"):
        if g.get(key) is not None:
            kwargs[key] = int(g[key])
    if g.get("host_rate_bytes_per_s") is not None:
        kwargs["host_rate_bytes_per_s"] = float(g["host_rate_bytes_per_s"])
    for us, si in US_TO_S.items():
        if g.get(si) is not None:
            kwargs[us] = float(g[si]) * 1e6
        elif g.get(us) is not None:  # written by hand in microseconds: accept it as meant
            kwargs[us] = float(g[us])
    rail = (metadata.get("bench") or {}).get("rail_v")
    if rail is not None:
        kwargs["rail_v"] = float(rail)
    return Given(**kwargs)


def traces_from_archive(archive: Archive, channel: str = "current") -> list[Trace]:
    traces = []
    for cap in archive.captures:
        try:
            ch = cap.channel(channel)
        except KeyError:
            continue
        traces.append(Trace(op=cap.op, size_bytes=cap.size_bytes, waveform=ch.waveform, offset_bytes=cap.offset_bytes,
                            repeat=cap.repeat, index=cap.index))
    return traces


def analyze_archive(
    path: str | os.PathLike, *, overrides: dict[str, Any] | None = None, tolerant: bool = False
) -> tuple[Characterization, dict[str, Any], Archive]:
    """Analyse a session directory; ``overrides`` replace given values (CLI options)."""
    archive = read_archive(path, tolerant=tolerant)
    traces = traces_from_archive(archive)
    if not traces:
        raise AnalysisError(f"{path} holds no current captures", hint="record a sweep into it first")
    given = given_from_metadata(archive.metadata)
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    given = replace(given, **changes)
    char = characterize(traces, given)
    warnings = list(char.warnings)
    if archive.damaged:
        warnings.append(f"{len(archive.damaged)} damaged capture(s) skipped: " + "; ".join(f"{d.path.name}: {d.reason}" for d in archive.damaged[:3]))
        char = replace(char, warnings=tuple(warnings))
    origin = "given on the command line" if "rail_v" in changes else None
    profile = build_profile(char, archive.metadata, given=given, rail_v_origin=origin, archive=str(path))
    return char, profile, archive


__all__ = ["analyze_archive", "given_from_metadata", "traces_from_archive"]

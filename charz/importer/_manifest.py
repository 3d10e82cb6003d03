"""The import manifest: a TOML file saying which scope file is which request (docs/import.md)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from charz.errors import UsageError

MANIFEST_NAME = "manifest.toml"
_SIZE = re.compile(r"^\s*(\d+)\s*([kKmM]?)(i?[bB])?\s*$")


@dataclass(frozen=True)
class Entry:
    file: str
    op: str
    size_bytes: int
    offset_bytes: int = 0
    repeat: int = 0
    channel: str | None = None      # which saved channel is the current (a file with several)


@dataclass(frozen=True)
class Manifest:
    entries: tuple[Entry, ...]
    drive: dict[str, Any] = field(default_factory=dict)
    bench: dict[str, Any] = field(default_factory=dict)
    amps_per_volt: float | None = None
    time_reference: str = "trigger"
    channel: str | None = None                  # default for every entry
    skip: tuple[str, ...] = ()                  # saved channels to leave out (logic pods …)


def _size(value: Any, where: str) -> int:
    if isinstance(value, int) and value >= 0:
        return value
    m = _SIZE.match(str(value))
    if not m:
        raise UsageError(f"{where}: size {value!r} is not a size", hint="write 4096, \"4k\" or \"1M\" (k = 1024)")
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1 << 20}[m.group(2).lower()]


def load_manifest(path: Path) -> Manifest:
    """The manifest at ``path``; a :class:`UsageError` naming the file and the entry otherwise."""
    try:
        doc = tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no manifest", hint="write one (docs/import.md), or pass --manifest FILE") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    caps = doc.get("capture")
    if not isinstance(caps, list) or not caps:
        raise UsageError(f"{path}: no [[capture]] entries", hint="one [[capture]] table per file: file, op, size")
    entries = []
    for i, c in enumerate(caps):
        where = f"{path}: [[capture]] #{i + 1}"
        missing = [k for k in ("file", "op") if not c.get(k)]
        if missing or ("size" not in c and "size_bytes" not in c):
            raise UsageError(f"{where} lacks {', '.join(missing + ([] if 'size' in c or 'size_bytes' in c else ['size']))}")
        entries.append(Entry(file=str(c["file"]), op=str(c["op"]),
                             size_bytes=_size(c.get("size", c.get("size_bytes")), where),
                             offset_bytes=_size(c.get("offset", c.get("offset_bytes", 0)), where),
                             repeat=int(c.get("repeat", 0)),
                             channel=str(c["channel"]) if c.get("channel") else None))
    apv = doc.get("amps_per_volt")
    ref = doc.get("time_reference", "trigger")
    if ref not in ("trigger", "request"):
        raise UsageError(f"{path}: time_reference {ref!r}", hint='"trigger" (scope files) or "request"')
    skip = doc.get("skip", [])
    if isinstance(skip, str) or not all(isinstance(x, str) for x in skip):
        raise UsageError(f"{path}: skip must be a list of channel names", hint='skip = ["D0-D7"]')
    return Manifest(tuple(entries), dict(doc.get("drive") or {}), dict(doc.get("bench") or {}),
                    float(apv) if apv is not None else None, ref,
                    str(doc["channel"]) if doc.get("channel") else None, tuple(skip))

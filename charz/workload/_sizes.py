"""Request sizes as people write them: ``"4k"``, ``"4k:160k:4k,512k"``.

Parsed once for every command that takes sizes (characterize's sweep, validate's record
sizes, analyze's page size); a size that is not one is a :class:`~charz.errors.UsageError`.
"""

from __future__ import annotations

import re

from charz.errors import UsageError

__all__ = ["parse_size", "parse_sizes"]

_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)
_MULT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str) -> int:
    """``"4k"`` → 4096.  Suffixes are binary (k = KiB), as 003's "4 KB" pages are 4096 bytes.

    Example
    -------
    >>> parse_size("160k"), parse_size("512KiB"), parse_size("4096")
    (163840, 524288, 4096)
    """
    m = _SIZE.match(str(text))
    if not m:
        raise UsageError(f"{text!r} is not a size", hint="write sizes like 4096, 4k, 160k or 1M (binary: k = 1024)")
    value = int(m.group(1)) * _MULT[m.group(2).lower()]
    if value <= 0:
        raise UsageError(f"size {text!r} must be positive")
    return value


def parse_sizes(text: str) -> list[int]:
    """A comma list of sizes and ``start:stop:step`` ranges (stop included).

    Example
    -------
    >>> parse_sizes("4k:16k:4k,64k")
    [4096, 8192, 12288, 16384, 65536]
    """
    sizes: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if ":" in part:
            pieces = part.split(":")
            if len(pieces) != 3:
                raise UsageError(f"{part!r} is not a range", hint="ranges are start:stop:step, e.g. 4k:160k:4k")
            start, stop, step = (parse_size(p) for p in pieces)
            if stop < start:
                raise UsageError(f"range {part!r} runs backwards")
            sizes.extend(range(start, stop + 1, step))
        else:
            sizes.append(parse_size(part))
    if not sizes:
        raise UsageError("no sizes given")
    return sorted(set(sizes))

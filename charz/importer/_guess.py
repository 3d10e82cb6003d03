"""A manifest guessed from a folder's file names (and what the files' headers say).

Names carry the request where whoever saved them wrote it there: charz's own export
(``000012-write-4096.csv``), or a person's (``write_4k_r2.isf``, ``rd64KB-3.csv``).
Tokens are split on ``-``, ``_``, ``.`` and spaces; an op word (write/wr/read/rd/idle),
a size (``4096``, ``4k``, ``64KB``, ``1M``; k = 1024) after it or anywhere with a unit,
and a repeat (``r2``, ``rep2``, ``run2`` or the bare number after the size).  Files with
no op or size in their name are listed as not guessed: nothing is invented.  Files are
taken in natural name order (``f2`` before ``f10``), which is the order a scope numbers
them; repeats are counted per (op, size) when the name gives none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPS = {"write": "write", "writes": "write", "wr": "write", "w": "write",
        "read": "read", "reads": "read", "rd": "read", "r": "read", "idle": "idle"}
_SIZE = re.compile(r"^(\d+)(k|kb|kib|m|mb|mib)?$")
_GLUED = re.compile(r"^(write|read|wr|rd|idle)(\d+(?:k|kb|kib|m|mb|mib)?)$")
_REPEAT = re.compile(r"^(?:r|rep|repeat|run|n|#)(\d+)$")


@dataclass(frozen=True)
class Guess:
    file: str
    op: str | None
    size_bytes: int | None
    repeat: int | None
    repeat_from_name: bool

    @property
    def complete(self) -> bool:
        return self.op is not None and self.size_bytes is not None


def _size(token: str, bare_ok: bool) -> int | None:
    m = _SIZE.match(token)
    if m is None or (m.group(2) is None and not bare_ok):
        return None
    n = int(m.group(1))
    mult = {"k": 1024, "m": 1 << 20}.get((m.group(2) or " ")[0], 1)
    return n * mult if n * mult > 0 else None


def natural_key(name: str) -> list:
    """``f2`` before ``f10``.

    >>> sorted(["f10.csv", "f2.csv"], key=natural_key)
    ['f2.csv', 'f10.csv']
    """
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", name)]


def guess_name(file: str) -> Guess:
    """What ``file``'s name says.

    >>> g = guess_name("000012-write-4096.csv"); (g.op, g.size_bytes, g.repeat)
    ('write', 4096, None)
    >>> g = guess_name("rd64KB_3.isf"); (g.op, g.size_bytes, g.repeat)
    ('read', 65536, 3)
    >>> guess_name("TEK0001.CSV").complete
    False
    """
    stem = file.rsplit(".", 1)[0].lower()
    tokens = [t for t in re.split(r"[-_.\s]+", stem) if t]
    op = size = repeat = None
    after_op = after_size = False
    prev = ""
    for prev_i, tok in enumerate(tokens):
        prev = tokens[prev_i - 1] if prev_i else ""
        glued = _GLUED.match(tok)
        if op is None and (tok in _OPS and (len(tok) > 1 or len(tokens) > 1)):
            op, after_op = _OPS[tok], True
            continue
        if op is None and glued:
            op, size, after_size = _OPS[glued.group(1)], _size(glued.group(2), True), True
            continue
        if size is None and (s := _size(tok, bare_ok=after_op)) is not None:
            size, after_size, after_op = s, True, False
            continue
        if after_size and size is not None and tok in ("k", "kb", "kib", "m", "mb", "mib") and prev.isdigit():
            size = _size(prev + tok, True)       # "16 KB": the unit as its own token
            continue
        if size is not None and repeat is None:
            m = _REPEAT.match(tok)
            if m or (after_size and tok.isdigit()):
                repeat = int(m.group(1) if m else tok)
                continue
        after_op = after_size = False
    if op == "idle" and size is None:
        size = 0                                  # an idle capture moves no data
    return Guess(file, op, size, repeat, repeat is not None)


def guess_folder(names: list[str]) -> list[Guess]:
    """Every name's guess, in natural order, repeats counted per (op, size) where names give none."""
    out, seen = [], {}
    for name in sorted(names, key=natural_key):
        g = guess_name(name)
        if g.complete and g.repeat is None:
            key = (g.op, g.size_bytes)
            g = Guess(g.file, g.op, g.size_bytes, seen.get(key, 0), False)
            seen[key] = g.repeat + 1
        out.append(g)
    return out


def manifest_doc(guesses: list[Guess], headers: dict[str, list[tuple[str, str]]],
                 amps_per_volt: float | None) -> dict:
    """The manifest (as a TOML-ready dict) for the complete guesses; ``headers`` gives each
    file's saved channels as (name, unit), so a file of several says which is the current
    when exactly one is in amperes."""
    caps = []
    for g in guesses:
        if not g.complete:
            continue
        entry = {"file": g.file, "op": g.op, "size_bytes": g.size_bytes, "repeat": g.repeat}
        chans = headers.get(g.file, [])
        amps = [name for name, unit in chans if unit == "A"]
        if len(chans) > 1 and len(amps) == 1:
            entry["channel"] = amps[0]
        caps.append(entry)
    doc: dict = {}
    if amps_per_volt is not None:
        doc["amps_per_volt"] = amps_per_volt
    doc["capture"] = caps
    return doc

"""Read a session directory back: metadata, complete captures, damage.

A capture is complete iff its commit record ``captures/NNNNNN.json`` parses and
is valid, and every channel file it lists exists with the recorded size and
SHA-256.  Anything else in ``captures/`` (temp files, channel files without a
commit record: the capture a kill interrupted) is not part of the archive and
is ignored.  Damage is reported as :class:`~charz.errors.ArchiveCorrupt` naming
the file, or, in tolerant mode, collected in :attr:`Archive.damaged`.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from tokenize import TokenError
from typing import Any

import numpy as np

from charz.archive._format import (
    CAPTURES_DIR,
    SESSION_FILE,
    Capture,
    ChannelFile,
    FormatError,
    UnsupportedVersion,
    capture_file_name,
    capture_files,
    capture_from_dict,
    check_against_plan,
    parse_capture_file_name,
    plan_steps,
    validate_session,
)
from charz.errors import ArchiveCorrupt, ArchiveError

SALVAGE_HINT = (
    "The other captures are probably intact: read_archive(path, tolerant=True) reads "
    "them and lists the damaged ones in .damaged.  Keep a copy of the damaged file."
)
# --tolerant skips damaged captures; it cannot stand in for the session's own metadata.
SESSION_HINT = (
    f"{SESSION_FILE} holds the session's metadata (what was given, the bench, the plan), not a "
    "capture, so --tolerant does not help: fix the field named above in the file (it is JSON "
    "text) or restore it from a copy; the captures are not affected."
)
_NEWER_HINT = "It was written by a newer charz; upgrade charz to read it."


@dataclass(frozen=True)
class Damaged:
    """A file that tolerant reading skipped, and why."""

    path: Path
    index: int | None  # the capture it belongs to; None for session.json
    reason: str


@dataclass(frozen=True)
class Archive:
    """A session read back.

    ``captures`` are in index order.  Strict reading (the default) either gives
    all of them or raises; tolerant reading gives the complete ones and lists the
    rest in ``damaged`` (then indices may be missing from ``captures``).
    """

    path: Path
    metadata: dict
    captures: tuple[Capture, ...]
    damaged: tuple[Damaged, ...] = ()


def read_archive(path: str | os.PathLike, *, verify: bool = True, tolerant: bool = False) -> Archive:
    """Read a session directory.

    Parameters
    ----------
    path : path-like
        The session directory (the one holding ``session.json``).
    verify : bool
        Check each channel file's SHA-256 against its commit record.  Sizes and
        .npy headers are always checked; False only saves the hashing.
    tolerant : bool
        Skip damaged captures (and a damaged ``session.json``) instead of raising,
        and list them in ``Archive.damaged``.  For salvaging a damaged session.

    Returns
    -------
    Archive

    Raises
    ------
    ArchiveCorrupt
        A file is missing, truncated or damaged (strict mode); names the file.
    ArchiveError
        Not an archive, unreadable, or written by a newer charz.

    Examples
    --------
    >>> archive = read_archive("runs/2026-01-31-mxp")                    # doctest: +SKIP
    >>> cap = archive.captures[0]                                        # doctest: +SKIP
    >>> cap.op, cap.size_bytes, cap.channel("current").waveform.values().mean()  # doctest: +SKIP
    ('write', 32768, 0.412)
    """
    root = Path(path)
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise ArchiveError(f"{root} {what}", hint="Give the session directory, the one holding session.json.")
    damaged: list[Damaged] = []
    try:
        metadata = read_session(root)
    except ArchiveCorrupt as exc:
        if not tolerant:
            raise
        metadata = {}
        damaged.append(_damaged(exc, None))
    scan = scan_captures(root / CAPTURES_DIR, tolerant=tolerant)
    damaged += scan.damaged
    captures = []
    rows = _RowBlocks(scan.entries)
    steps = plan_steps(metadata.get("plan") or {}) if metadata else {}
    for entry in scan.entries:
        try:
            try:  # the plan the capture's step refers to: a step it never had is damage
                check_against_plan(entry.record, steps, "capture")
            except FormatError as exc:
                raise ArchiveCorrupt(entry.path, str(exc), hint=SALVAGE_HINT) from None
            captures.append(load_capture(entry, verify=verify, rows=rows))
        except ArchiveError as exc:
            if not tolerant:
                raise
            damaged.append(_damaged(exc, entry.index, entry.path))
    return Archive(root, metadata, tuple(captures), tuple(damaged))


# ---------------------------------------------------------------------------
# pieces shared with the writer (resuming is reading first)


@dataclass(frozen=True)
class Entry:
    """A commit record that parsed and validated; its channel files not yet checked."""

    index: int
    path: Path
    record: dict
    files: tuple[ChannelFile, ...]


@dataclass(frozen=True)
class Scan:
    entries: tuple[Entry, ...]
    damaged: tuple[Damaged, ...]
    last_index: int  # highest index with a commit record file, valid or not; -1 if none


def read_session(root: Path) -> dict:
    """The validated content of ``root/session.json``."""
    path = root / SESSION_FILE
    if not path.exists() and not (root / CAPTURES_DIR).is_dir():
        raise ArchiveError(
            f"{root} is not a charz archive (no {SESSION_FILE})",
            hint="Give the session directory, the one holding session.json.",
        )
    record = read_json(path, hint=SESSION_HINT)
    try:
        return validate_session(record)
    except UnsupportedVersion as exc:
        raise ArchiveError(f"{path}: {exc}", hint=_NEWER_HINT) from None
    except FormatError as exc:
        raise ArchiveCorrupt(path, str(exc), hint=SESSION_HINT) from None


def read_json(path: Path, *, hint: str = SALVAGE_HINT) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc, "missing", hint) from None
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ArchiveCorrupt(path, f"not valid JSON ({exc})", hint=hint) from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def scan_captures(captures_dir: Path, *, tolerant: bool) -> Scan:
    """Parse and validate every commit record; check the indices have no gaps."""
    damaged: list[Damaged] = []

    def problem(exc: ArchiveError, index: int | None, path: Path) -> None:
        if not tolerant:
            raise exc
        damaged.append(_damaged(exc, index, path))

    try:
        names = os.listdir(captures_dir)
    except OSError as exc:
        problem(_unreadable(captures_dir, exc, "missing", "Without it the session has no captures."), None, captures_dir)
        return Scan((), tuple(damaged), -1)

    found = {}
    for name in sorted(names):
        index = parse_capture_file_name(name)
        if index is None:
            continue  # channel files, temp files, anything a user parked there
        path = captures_dir / name
        if name != capture_file_name(index):
            reason = f"not a commit record name (expected {capture_file_name(index)})"
            problem(ArchiveCorrupt(path, reason, hint=SALVAGE_HINT), None, path)
            continue
        found[index] = path

    entries = []
    expected = 0
    for index in sorted(found):
        if index != expected:
            missing = captures_dir / capture_file_name(expected)
            last = max(found)
            reason = f"missing (captures {expected}…{index - 1} are missing, but capture {last} exists)"
            problem(ArchiveCorrupt(missing, reason, hint=SALVAGE_HINT), expected, missing)
        expected = index + 1
        path = found[index]
        try:
            entries.append(_parse_entry(index, path))
        except ArchiveError as exc:
            problem(exc, index, path)
    return Scan(tuple(entries), tuple(damaged), max(found, default=-1))


def _parse_entry(index: int, path: Path) -> Entry:
    record = read_json(path)
    try:
        recorded, files = capture_files(record)
    except UnsupportedVersion as exc:
        raise ArchiveError(f"{path}: {exc}", hint=_NEWER_HINT) from None
    except FormatError as exc:
        raise ArchiveCorrupt(path, str(exc), hint=SESSION_HINT) from None
    if recorded != index:
        raise ArchiveCorrupt(path, f"holds index {recorded}, its name says {index}", hint=SALVAGE_HINT)
    return Entry(index, path, record, files)


def check_sizes(entry: Entry) -> None:
    """Cheap completeness check: every channel file exists with the recorded size."""
    for f in entry.files:
        path = entry.path.parent / f.file
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise _unreadable(path, exc, f"missing, but {entry.path.name} lists it") from None
        if size != f.file_bytes:
            raise ArchiveCorrupt(path, _size_reason(size, f, entry), hint=SALVAGE_HINT)


class _RowBlocks:
    """One 2-D array per kind of channel file (channel, dtype, length, sample interval),
    each file read straight into its row.

    The analysis measures a batch of same-shape captures as one array; handing them out
    as rows of one already saves it copying the whole archive again.  Rows of captures
    that turn out damaged stay unused.
    """

    def __init__(self, entries: tuple[Entry, ...]):
        counts: dict[tuple, int] = {}
        self._slot: dict[tuple[int, str], tuple[tuple, int]] = {}
        for entry in entries:
            for f in entry.files:
                key = (f.name, f.dtype, f.n_samples, entry.record.get("sample_interval_s"))
                self._slot[(entry.index, f.name)] = (key, counts.get(key, 0))
                counts[key] = counts.get(key, 0) + 1
        self._counts = counts
        self._blocks: dict[tuple, np.ndarray] = {}

    def row(self, entry: Entry, f: ChannelFile) -> np.ndarray | None:
        slot = self._slot.get((entry.index, f.name))
        if slot is None:
            return None
        key, i = slot
        block = self._blocks.get(key)
        if block is None:
            # Allocated on first use, so a strict read that fails early has not paid for it.
            block = self._blocks[key] = np.empty((self._counts[key], f.n_samples), dtype=f.np_dtype)
        return block[i]


def load_capture(entry: Entry, *, verify: bool, rows: _RowBlocks | None = None) -> Capture:
    codes = {f.name: _load_codes(entry, f, verify=verify, row=rows.row(entry, f) if rows else None)
             for f in entry.files}
    try:
        return capture_from_dict(entry.record, codes)
    except FormatError as exc:
        raise ArchiveCorrupt(entry.path, str(exc), hint=SALVAGE_HINT) from None


def _load_codes(entry: Entry, f: ChannelFile, *, verify: bool, row: np.ndarray | None = None) -> np.ndarray:
    path = entry.path.parent / f.file
    try:
        if row is None:
            data = path.read_bytes()
            payload = None
        else:
            data, payload = _read_into(path, f, row)
    except OSError as exc:
        raise _unreadable(path, exc, f"missing, but {entry.path.name} lists it") from None
    size = len(data) + (0 if payload is None else payload)
    if size != f.file_bytes:
        raise ArchiveCorrupt(path, _size_reason(size, f, entry), hint=SALVAGE_HINT)
    if verify and _sha256(data, None if payload is None else row) != f.sha256:
        raise ArchiveCorrupt(
            path, f"SHA-256 differs from the one recorded in {entry.path.name}: the data are damaged", hint=SALVAGE_HINT
        )
    # numpy parses the header (the format's own parser, not ours); the samples are
    # then viewed in place (or were read into their row), read-only, without a copy.
    buf = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(buf)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(buf)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(buf)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    # A damaged header is Python literal text to numpy's parser, so any of the parser's
    # own errors can come out of it (a flipped brace gives tokenize.TokenError).
    except (ValueError, TypeError, SyntaxError, TokenError, RecursionError, MemoryError) as exc:
        raise ArchiveCorrupt(path, f"not a valid .npy file ({exc})", hint=SALVAGE_HINT) from None
    header_bytes = buf.tell()
    if dtype != f.np_dtype or shape != (f.n_samples,) or header_bytes + f.n_samples * dtype.itemsize != size:
        raise ArchiveCorrupt(
            path,
            f"holds {dtype}{list(shape)} in {size} bytes, {entry.path.name} records {f.dtype}[{f.n_samples}]",
            hint=SALVAGE_HINT,
        )
    if payload is None:
        return np.frombuffer(data, dtype=dtype, count=f.n_samples, offset=header_bytes)
    row.flags.writeable = False  # as read-only as a view of the file's bytes
    return row


def _read_into(path: Path, f: ChannelFile, row: np.ndarray) -> tuple[bytes, int]:
    """``(header bytes, sample bytes read into row)``; ``(b"", file size)`` for a file of
    another size than recorded, which is not read (the caller reports it).

    The header is what the recorded size leaves before the samples; the .npy parser then
    checks that it says so.
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size != f.file_bytes:
            return b"", size
        header = fh.read(max(size - row.nbytes, 0))
        return header, fh.readinto(memoryview(row).cast("B"))


def _sha256(head: bytes, row: np.ndarray | None) -> str:
    h = hashlib.sha256(head)
    if row is not None:
        h.update(memoryview(row).cast("B"))
    return h.hexdigest()


def _unreadable(path: Path, exc: OSError, missing: str, hint: str = SALVAGE_HINT) -> ArchiveError:
    """Permission problems are the user's to fix; anything else (gone, a directory
    where a file belongs, EIO from a failing disk) is damage to the archive."""
    if isinstance(exc, PermissionError):
        return ArchiveError(f"{path}: cannot read it: {exc.strerror}", hint="Check the permissions.")
    if isinstance(exc, FileNotFoundError):
        return ArchiveCorrupt(path, missing, hint=hint)
    return ArchiveCorrupt(path, f"cannot be read: {exc.strerror or exc}", hint=hint)


def _size_reason(size: int, f: ChannelFile, entry: Entry) -> str:
    return f"is {size} bytes, {entry.path.name} records {f.file_bytes} (truncated or overwritten)"


def _damaged(exc: ArchiveError, index: int | None, fallback: Path | None = None) -> Damaged:
    path = getattr(exc, "path", None) or fallback
    reason = exc.message.removeprefix(f"{path}: ")
    return Damaged(Path(path), index, reason)

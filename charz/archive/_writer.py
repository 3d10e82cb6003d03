"""Append captures to a session directory, crash-safely.

Commit protocol for one capture ``k`` (see docs/archive.md, "Crash safety"):

1. each channel goes to ``captures/k.<name>.npy`` through a temp file that is
   fsync'ed and renamed (``_atomic.write_atomic``), then the directory is fsync'ed;
2. the commit record ``captures/k.json`` is written the same way, last.

A capture exists for readers only once step 2's rename happened, and by then
everything it points to is durable.  A kill before that leaves channel files or
temp files without a commit record; readers ignore them and the next writer
(:meth:`ArchiveWriter.open_append`) removes them before it appends capture ``k``
again.  ``session.lock`` is ``flock``'ed so only one writer works on a session.
"""

from __future__ import annotations

import dataclasses
import datetime
import errno
import fcntl
import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np

import charz
from charz.archive import _atomic
from charz.archive._format import (
    CAPTURES_DIR,
    DTYPES,
    LOCK_FILE,
    SESSION_FILE,
    Capture,
    Channel,
    ChannelFile,
    capture_file_name,
    capture_to_dict,
    channel_file_name,
    new_session,
    parse_channel_file_name,
    updated_session,
)
from charz.archive._reader import Damaged, _damaged, check_sizes, load_capture, read_session, scan_captures
from charz.errors import ArchiveCorrupt, ArchiveError


class ArchiveWriter:
    """The one writer of a session directory.

    Make one with :meth:`create` (new session) or :meth:`open_append` (resume);
    use it as a context manager or call :meth:`close`, which releases the lock.

    Examples
    --------
    >>> with ArchiveWriter.create("runs/s1", {"drive": {"model": "MXP"}}) as w:   # doctest: +SKIP
    ...     w.append(capture)
    0
    >>> with ArchiveWriter.open_append("runs/s1") as w:                           # doctest: +SKIP
    ...     w.next_index, w.step_counts
    (1, {3: 1})
    """

    def __init__(self, root: Path, lock: BinaryIO, metadata: dict, scan_result: _Resumed) -> None:
        # Private: create() and open_append() hold the lock before this runs.
        self._root = root
        self._captures = root / CAPTURES_DIR
        self._lock: BinaryIO | None = lock
        self._metadata = metadata
        self._next_index = scan_result.next_index
        self._records = list(scan_result.records)
        self.damaged: tuple[Damaged, ...] = scan_result.damaged
        """Damaged captures found on resume (tolerant mode only); never overwritten."""
        self.discarded: tuple[Path, ...] = scan_result.discarded
        """Files of an interrupted capture (or temp files) that resuming removed."""

    # -- construction -----------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike, metadata: Mapping[str, Any] | None = None) -> ArchiveWriter:
        """Start a new session directory at ``path``.

        Parameters
        ----------
        path : path-like
            Created if missing (with parents).  An existing directory must be
            empty; the debris of a create that was killed is tolerated.
        metadata : dict
            Top-level keys of ``session.json``: ``drive``, ``bench`` and ``plan``
            (dicts, default ``{}``) and any other JSON values.  ``schema``,
            ``created_utc`` and ``tool`` are set here.

        Raises
        ------
        ArchiveError
            ``path`` is an archive already, a non-empty directory, a file,
            or locked by another writer.
        ValueError
            ``metadata`` is not JSON, or uses a reserved key.
        """
        root = Path(path)
        session = new_session(
            {} if metadata is None else metadata,
            created_utc=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            tool_version=charz.__version__,
        )
        _refuse_unless_fresh(root)
        _mkdir(root, parents=True)
        lock = _acquire(root)
        done = False
        try:
            _refuse_unless_fresh(root)  # again, now that no other writer can be busy
            _mkdir(root / CAPTURES_DIR)
            try:
                _atomic.fsync_dir(root / CAPTURES_DIR)
                _atomic.fsync_dir(root)
                _atomic.fsync_dir(root.parent)
                _write_json(root / SESSION_FILE, session)
            except OSError as exc:
                if is_disk_full(exc):
                    raise ArchiveError(f"disk full: no space left to create the session {root} ({free_text(root)})",
                                       hint="free some space, or give --out on a larger disk",
                                       code=exc.errno) from exc
                raise ArchiveError(f"cannot create the session {root}: {exc.strerror or exc}") from exc
            writer = cls(root, lock, session, _Resumed(0, (), (), ()))
            done = True
        finally:
            if not done:
                lock.close()
        return writer

    @classmethod
    def open_append(cls, path: str | os.PathLike, *, tolerant: bool = False) -> ArchiveWriter:
        """Reopen a session to append after its last complete capture.

        Every commit record is validated and every channel file's size checked;
        the last capture is verified in full (SHA-256).  Files of a capture that
        a kill interrupted are removed (listed in :attr:`discarded`).

        Parameters
        ----------
        path : path-like
            The session directory.
        tolerant : bool
            Resume even if captures in the middle are damaged (they are listed in
            :attr:`damaged` and left as they are; new captures go after them).

        Raises
        ------
        ArchiveCorrupt
            A capture is damaged (strict mode).  The hint says how to go on.
        ArchiveError
            Not an archive, or another writer holds it.
        """
        root = Path(path)
        read_session(root)  # first without the lock: never drop a lock file into a non-archive
        lock = _acquire(root)
        done = False
        try:
            metadata = read_session(root)
            writer = cls(root, lock, metadata, _resume(root / CAPTURES_DIR, tolerant=tolerant))
            done = True
        finally:
            if not done:
                lock.close()
        return writer

    # -- state --------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self._root

    @property
    def metadata(self) -> dict:
        """A copy of the current ``session.json``."""
        return json.loads(json.dumps(self._metadata))

    @property
    def next_index(self) -> int:
        """The index the next appended capture gets."""
        return self._next_index

    @property
    def records(self) -> tuple[dict, ...]:
        """The commit records of the intact captures, in index order: what each capture
        was (op, size, offset, step, extra ...) without reading its samples."""
        return tuple(self._records)

    @property
    def step_counts(self) -> dict[int, int]:
        """Plan step id → number of complete captures for it (captures without a step are not counted)."""
        counts = Counter(r["step"] for r in self._records)
        return {step: n for step, n in sorted(counts.items()) if step is not None}

    def completed_steps(self, captures_per_step: int = 1) -> frozenset[int]:
        """Steps with at least ``captures_per_step`` complete captures: what a resumed plan may skip."""
        return frozenset(step for step, n in self.step_counts.items() if n >= captures_per_step)

    @property
    def closed(self) -> bool:
        return self._lock is None

    # -- writing ------------------------------------------------------------

    def append(self, capture: Capture) -> int:
        """Store ``capture`` durably and return its index.

        ``capture.index`` may be None (the writer assigns :attr:`next_index`) or
        must equal :attr:`next_index`.  When this returns, the capture survives a
        kill or a power cut; if it raises, the archive is as it was before.

        Raises
        ------
        ArchiveError
            The file system refused (full, read-only ...).
        ValueError
            Wrong index, or the writer is closed.
        """
        self._check_open()
        if not isinstance(capture, Capture):
            raise TypeError(f"append takes a Capture, got {type(capture).__name__}")
        index = self._next_index
        if capture.index is not None and capture.index != index:
            raise ValueError(f"capture.index is {capture.index}, but the next index of {self._root} is {index}")
        capture = dataclasses.replace(capture, index=index)
        written: list[Path] = []
        committed = False
        try:
            files = []
            for ch in capture.channels:
                path = self._captures / channel_file_name(index, ch.name)
                files.append(_atomic.write_atomic(path, lambda f, ch=ch, p=path: _write_npy(f, ch, p.name), sync_dir=False))
                written.append(path)
            record = capture_to_dict(capture, files)
            payload = _json_bytes(record)
            _atomic.fsync_dir(self._captures)  # channel files durable before the record that points to them
            _atomic.write_atomic(self._captures / capture_file_name(index), lambda f: f.write(payload), sync_dir=False)
            # From here on the capture is visible: its files must stay and its index is used.
            committed = True
            self._next_index = index + 1
            self._records.append(record)
            _atomic.fsync_dir(self._captures)
        except OSError as exc:
            if committed:
                raise ArchiveError(
                    f"capture {index} was written to {self._captures} but could not be made durable: "
                    f"{exc.strerror or exc}",
                    hint="It reads back now but may not survive a power cut; check the disk.",
                ) from exc
            if is_disk_full(exc):
                raise ArchiveError(
                    f"disk full: no space left for capture {index} in {self._captures} "
                    f"({free_text(self._captures)})",
                    hint=f"free some space on that file system (or move the session directory to a larger "
                    f"disk: it is movable); captures before {index} are intact: "
                    f"continue with: charz resume {self.path}", code=exc.errno,
                ) from exc
            raise ArchiveError(
                f"cannot write capture {index} to {self._captures}: {exc.strerror or exc}",
                hint=f"Free some space (or fix the permissions); captures before {index} are intact: "
                f"continue with: charz resume {self.path}",
            ) from exc
        finally:
            if not committed:
                # Any failure (disk full, a bug, Ctrl-C): an uncommitted file is ours to remove.
                _remove_quietly(written)
        return index

    def update_metadata(self, **changes: Any) -> dict:
        """Replace top-level keys of ``session.json`` atomically; returns the new content.

        Examples
        --------
        >>> writer.update_metadata(finished_utc="2026-01-31T14:00:00Z")   # doctest: +SKIP
        """
        self._check_open()
        session = updated_session(self._metadata, changes)
        try:
            _write_json(self._root / SESSION_FILE, session)
        except OSError as exc:
            if is_disk_full(exc):
                raise ArchiveError(f"disk full: no space left to update {self._root / SESSION_FILE} "
                                   f"({free_text(self._root)})",
                                   hint=f"free some space on that file system, then: charz resume {self._root}",
                                   code=exc.errno) from exc
            raise ArchiveError(f"cannot update {self._root / SESSION_FILE}: {exc.strerror or exc}") from exc
        self._metadata = session
        return self.metadata

    def close(self) -> None:
        """Release the lock.  Idempotent."""
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"next_index={self._next_index}"
        return f"<ArchiveWriter {self._root} {state}>"

    def _check_open(self) -> None:
        if self._lock is None:
            raise ValueError(f"the writer of {self._root} is closed")


# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Resumed:
    next_index: int
    records: tuple[dict, ...]
    damaged: tuple[Damaged, ...]
    discarded: tuple[Path, ...]


_RESUME_HINT = (
    "Appending needs an intact session.  ArchiveWriter.open_append(path, tolerant=True) keeps "
    "damaged captures as they are, lists them in .damaged and appends after the newest one; "
    "if {file} belongs to the newest capture, moving it (and that capture's .json and .npy files) "
    "out of {dir} lets resuming take that capture again."
)


def _resume(captures_dir: Path, *, tolerant: bool) -> _Resumed:
    """Find where to append: after the newest commit record, damaged or not."""
    try:
        scan = scan_captures(captures_dir, tolerant=tolerant)
        damaged = list(scan.damaged)
        records: list[dict] = []
        for entry in scan.entries:
            try:
                # Only the newest capture can have been in flight at a crash, so it
                # alone is hashed; for the others the sizes are a cheap sanity check.
                if entry.index == scan.last_index:
                    load_capture(entry, verify=True)
                else:
                    check_sizes(entry)
            except ArchiveError as exc:
                if not tolerant:
                    raise
                damaged.append(_damaged(exc, entry.index, entry.path))
                continue
            records.append(entry.record)
    except ArchiveCorrupt as exc:
        exc.hint = _RESUME_HINT.format(file=Path(exc.path).name, dir=captures_dir)
        raise
    # Never below a commit record that exists, even a damaged one: it is not ours to overwrite.
    next_index = scan.last_index + 1
    discarded = _remove_orphans(captures_dir, next_index) + _remove_orphans(captures_dir.parent, None)
    return _Resumed(next_index, tuple(records), tuple(damaged), discarded)


def _remove_orphans(directory: Path, next_index: int | None) -> tuple[Path, ...]:
    """Remove temp files and channel files at or after ``next_index`` (uncommitted by construction)."""
    removed = []
    try:
        names = sorted(os.listdir(directory))
        for name in names:
            parsed = parse_channel_file_name(name) if next_index is not None else None
            if _atomic.is_temp_name(name) or (parsed is not None and parsed[0] >= next_index):
                os.unlink(directory / name)
                removed.append(directory / name)
        if removed:
            _atomic.fsync_dir(directory)
    except OSError as exc:
        raise ArchiveError(
            f"cannot remove the files of an interrupted capture in {directory}: {exc.strerror or exc}",
            hint="Check the directory's permissions.",
        ) from exc
    return tuple(removed)


def _refuse_unless_fresh(root: Path) -> None:
    """Only a missing or empty directory (or what a killed create() left) may become a session."""
    if not root.exists():
        return
    if not root.is_dir():
        raise ArchiveError(f"{root} exists and is not a directory", hint="Choose another session path.")
    if (root / SESSION_FILE).exists():
        raise ArchiveError(
            f"{root} is a charz archive already",
            hint=f"Continue it with: charz resume {root}, or choose another session path.",
        )
    try:
        names = os.listdir(root)
        leftovers = os.listdir(root / CAPTURES_DIR) if (root / CAPTURES_DIR).is_dir() else []
    except OSError as exc:
        raise ArchiveError(f"cannot list {root}: {exc.strerror or exc}") from exc
    foreign = [n for n in names if n not in (LOCK_FILE, CAPTURES_DIR) and not _atomic.is_temp_name(n)]
    if foreign or leftovers:
        shown = sorted(foreign) or [f"{CAPTURES_DIR}/{n}" for n in sorted(leftovers)]
        raise ArchiveError(
            f"{root} is not empty and not a charz archive (it holds {', '.join(shown[:5])})",
            hint="Choose a new or empty directory for the session; nothing was written.",
        )


def _acquire(root: Path) -> BinaryIO:
    path = root / LOCK_FILE
    try:
        lock = open(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+b")
    except OSError as exc:
        raise ArchiveError(f"cannot open {path}: {exc.strerror or exc}", hint="Check the directory's permissions.") from exc
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = lock.read(32).decode("ascii", "replace").strip() or "unknown"
        lock.close()
        raise ArchiveError(
            f"{root} is being written by another writer (pid {holder})",
            hint="Wait for that session to finish or stop it; reading needs no lock.",
        ) from None
    except OSError as exc:
        lock.close()
        raise ArchiveError(
            f"cannot lock {path}: {exc.strerror or exc}",
            hint="The file system may not support flock (e.g. some network file systems); use a local disk.",
        ) from exc
    # The pid only feeds the message above; the flock is what excludes, so a
    # failure to record it (disk full) must not stop the session.
    with suppress(OSError):
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n".encode())
        lock.flush()
    return lock


def _write_npy(f: BinaryIO, ch: Channel, file_name: str) -> ChannelFile:
    codes = np.ascontiguousarray(ch.waveform.codes, dtype=DTYPES[ch.waveform.codes.dtype.name])  # little-endian, C order
    hashing = _HashingWriter(f)
    np.lib.format.write_array(hashing, codes, version=(1, 0), allow_pickle=False)
    return ChannelFile(ch.name, file_name, codes.dtype.name, codes.shape[0], hashing.n_bytes, hashing.sha256.hexdigest())


class _HashingWriter:
    """Hash and count what numpy writes, so the file is never read back."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self.sha256 = hashlib.sha256()
        self.n_bytes = 0

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        self.n_bytes += len(data)
        return self._f.write(data)


def _json_bytes(value: dict) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _write_json(path: Path, value: dict) -> None:
    payload = _json_bytes(value)
    _atomic.write_atomic(path, lambda f: f.write(payload))


def _mkdir(path: Path, *, parents: bool = False) -> None:
    try:
        path.mkdir(parents=parents, exist_ok=True)
    except OSError as exc:
        raise ArchiveError(f"cannot create {path}: {exc.strerror or exc}", hint="Check the path and its permissions.") from exc


def _remove_quietly(paths: list[Path]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass  # best effort: an uncommitted file is an orphan that resume removes anyway



def is_disk_full(exc: OSError) -> bool:
    """ENOSPC (no space) or EDQUOT (the quota is used up): both are a full disk to the user."""
    return getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT)


def free_text(path: str | os.PathLike) -> str:
    """"0 B free of 64 MiB on /mnt/x" for the file system holding ``path`` (or its parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        st = os.statvfs(p)
    except OSError:
        return "its free space could not be read"
    free, size = st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize

    def mib(n: int) -> str:
        return f"{n / (1 << 20):.1f} MiB" if n < 1 << 30 else f"{n / (1 << 30):.1f} GiB"

    return f"{mib(free)} free of {mib(size)} on the file system holding {p}"

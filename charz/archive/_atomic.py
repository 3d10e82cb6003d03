"""Write a file so that it is either absent, or complete and durable.

The content goes to a hidden temp name in the same directory, is flushed and
fsync'ed, and is then renamed over the final name with ``os.replace`` (atomic on
POSIX within one file system).  A kill at any moment therefore leaves either the
old file (or none) plus possibly a temp file, never a half-written final name.
Temp names are recognisable (:func:`is_temp_name`) so a writer that resumes can
remove them and readers can ignore them.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO, TypeVar

T = TypeVar("T")

_TEMP_NAME = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")


def temp_path(path: Path) -> Path:
    """A fresh temp name next to ``path``: ``.<name>.<16 hex>.tmp``."""
    return path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")


def is_temp_name(name: str) -> bool:
    """True for names made by :func:`temp_path` (and only for those)."""
    return _TEMP_NAME.fullmatch(name) is not None


def fsync_dir(path: Path) -> None:
    """Make the directory's entries (creations, renames) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, write: Callable[[BinaryIO], T], *, sync_dir: bool = True) -> T:
    """Create or replace ``path`` atomically with what ``write(file)`` writes.

    Parameters
    ----------
    path : Path
        Final name.
    write : callable
        Called once with a binary file open for writing; its result is returned.
    sync_dir : bool
        Fsync the directory after the rename.  A caller renaming several files
        may pass False and call :func:`fsync_dir` once after the last one.

    Examples
    --------
    >>> write_atomic(Path("/tmp/x.json"), lambda f: f.write(b"{}"))   # doctest: +SKIP
    2
    """
    tmp = temp_path(path)
    done = False
    try:
        # O_EXCL: never write into a file some other process also has open.  0o666: the
        # umask decides the mode, as for any file the user writes.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        done = True
    finally:
        if not done:
            with suppress(FileNotFoundError):
                os.unlink(tmp)
    if sync_dir:
        fsync_dir(path.parent)
    return result

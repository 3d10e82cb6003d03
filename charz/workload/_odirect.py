"""Exactly one O_DIRECT request per capture, timed on the host.

The paper's method (003 §5.1) needs every capture to show one request of a known
size at a known offset, reaching the drive as one command: so the file is opened
``O_DIRECT`` (no page cache to merge or defer it), the buffer is page-aligned
(``mmap``), and the data is fresh random bytes for every request so that a drive
that compresses or deduplicates cannot shortcut the write.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import stat
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from charz.errors import WorkloadError
from charz.workload._claim import ExclusiveClaim, require_claim_for_write

Op = Literal["write", "read"]

#: ioctls from <linux/fs.h>: logical sector size and size in bytes of a block device.
BLKSSZGET = 0x1268
BLKGETSIZE64 = 0x80081272

#: Alignment used for scratch files: the largest logical sector in use (4Kn).
FILE_ALIGNMENT_BYTES = 4096

#: Largest single request; 003 sweeps 4–160 KB, 1 MiB leaves room.
DEFAULT_MAX_REQUEST_BYTES = 1 << 20


@dataclass(frozen=True)
class IOResult:
    """One request as the host saw it.

    ``t_start_ns``/``t_end_ns`` are ``time.monotonic_ns()`` right before and
    right after the system call; ``wall_start_ns`` is ``time.time_ns()`` at the
    start, for lining up with clocks outside this process.
    """

    op: Op
    path: str
    offset_bytes: int
    size_bytes: int
    t_start_ns: int
    t_end_ns: int
    wall_start_ns: int

    @property
    def duration_ns(self) -> int:
        return self.t_end_ns - self.t_start_ns


def _arg_request(size_bytes: int, offset_bytes: int, alignment_bytes: int, max_request_bytes: int,
                 capacity_bytes: int) -> None:
    if isinstance(size_bytes, bool) or not isinstance(size_bytes, int) or size_bytes <= 0:
        raise WorkloadError(f"size_bytes must be a positive int, got {size_bytes!r}")
    if isinstance(offset_bytes, bool) or not isinstance(offset_bytes, int) or offset_bytes < 0:
        raise WorkloadError(f"offset_bytes must be a non-negative int, got {offset_bytes!r}")
    if size_bytes % alignment_bytes or offset_bytes % alignment_bytes:
        raise WorkloadError(
            f"O_DIRECT needs size and offset in multiples of {alignment_bytes} bytes; "
            f"got size {size_bytes}, offset {offset_bytes}",
            hint="use sizes in 4 KiB steps and offsets from the fresh-LBA allocator",
        )
    if size_bytes > max_request_bytes:
        raise WorkloadError(f"request of {size_bytes} bytes exceeds the buffer ({max_request_bytes} bytes)",
                            hint="open with a larger max_request_bytes")
    if offset_bytes + size_bytes > capacity_bytes:
        raise WorkloadError(
            f"request [{offset_bytes}, {offset_bytes + size_bytes}) runs past the end ({capacity_bytes} bytes)"
        )


class DirectIO:
    """An ``O_DIRECT`` descriptor on a block device or scratch file, and its buffer.

    Use :func:`open_direct`; close it (or use ``with``) when done.
    """

    def __init__(self, path: str, fd: int, *, writable: bool, is_block_device: bool,
                 alignment_bytes: int, capacity_bytes: int, max_request_bytes: int):
        self.path = path
        self.writable = writable
        self.is_block_device = is_block_device
        self.alignment_bytes = alignment_bytes
        self.capacity_bytes = capacity_bytes
        self.max_request_bytes = max_request_bytes
        self._fd = fd
        # anonymous mmap: page-aligned, as O_DIRECT requires of the user buffer
        self._buffer = mmap.mmap(-1, max_request_bytes)
        self._view = memoryview(self._buffer)

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.close(fd)
            finally:
                try:
                    self._view.release()
                    self._buffer.close()
                except BufferError:
                    # A slice is still held by a frame an interrupt (Ctrl-C) unwound; the
                    # buffer is anonymous memory holding nothing to keep: the GC frees it.
                    pass

    def __enter__(self) -> DirectIO:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _check(self, op: Op, size_bytes: int, offset_bytes: int) -> None:
        if self.closed:
            raise WorkloadError(f"{self.path} is closed")
        if op == "write" and not self.writable:
            raise WorkloadError(f"{self.path} was opened read-only")
        _arg_request(size_bytes, offset_bytes, self.alignment_bytes, self.max_request_bytes,
                     self.capacity_bytes)

    def write(self, size_bytes: int, offset_bytes: int, *,
              before_io: Callable[[Op, int, int], None] | None = None) -> IOResult:
        """Write ``size_bytes`` of fresh random data at ``offset_bytes`` in one ``pwrite``.

        Parameters
        ----------
        size_bytes, offset_bytes : int
            Multiples of :attr:`alignment_bytes`.
        before_io : callable, optional
            Called as ``before_io("write", size, offset)`` after the data is ready
            and just before the system call (e.g. to tell the simulated drive).

        Raises
        ------
        WorkloadError
            Bad arguments, an I/O error, or a short write.

        Examples
        --------
        >>> with open_direct(scratch, create_size_bytes=1 << 20) as dio:   # doctest: +SKIP
        ...     dio.write(20480, 0).size_bytes
        20480
        """
        self._check("write", size_bytes, offset_bytes)
        # fresh bytes every time: a drive that compresses or deduplicates must
        # still program all of them
        self._view[:size_bytes] = os.urandom(size_bytes)
        return self._do("write", size_bytes, offset_bytes, before_io)

    def read(self, size_bytes: int, offset_bytes: int, *,
             before_io: Callable[[Op, int, int], None] | None = None) -> IOResult:
        """Read ``size_bytes`` at ``offset_bytes`` in one ``preadv`` into the aligned buffer."""
        self._check("read", size_bytes, offset_bytes)
        return self._do("read", size_bytes, offset_bytes, before_io)

    def last_data(self, size_bytes: int) -> bytes:
        """A copy of the first ``size_bytes`` of the buffer (what was last written or read)."""
        return bytes(self._view[:size_bytes])

    def _do(self, op: Op, size_bytes: int, offset_bytes: int,
            before_io: Callable[[Op, int, int], None] | None) -> IOResult:
        chunk = self._view[:size_bytes]
        try:
            # Inside the try: an interrupt while the mock is told must still release the slice.
            if before_io is not None:
                before_io(op, size_bytes, offset_bytes)
            wall = time.time_ns()
            t0 = time.monotonic_ns()
            try:
                if op == "write":
                    done = os.pwrite(self._fd, chunk, offset_bytes)
                else:
                    # preadv fills our aligned buffer; os.pread would allocate an unaligned one
                    done = os.preadv(self._fd, [chunk], offset_bytes)
            except OSError as exc:
                if _disk_full(exc) and not self.is_block_device:
                    raise _no_space(self.path, f"the scratch file could not take a {size_bytes}-byte {op}",
                                    exc.errno) from exc
                raise WorkloadError(
                    f"O_DIRECT {op} of {size_bytes} bytes at {offset_bytes} on {self.path} failed: {exc.strerror}",
                    hint="check dmesg for I/O errors" if exc.errno != 22 else
                    "EINVAL: the device's logical block size or the file system rejects this alignment",
                    code=exc.errno,
                ) from exc
            finally:
                t1 = time.monotonic_ns()
        finally:
            chunk.release()
        if done != size_bytes:
            if op == "write" and not self.is_block_device and _free_bytes(self.path) < size_bytes:
                # A file system that fills up mid-request writes what fits and returns the count.
                raise _no_space(self.path, f"the scratch file took {done} of {size_bytes} bytes", None)
            raise WorkloadError(
                f"short {op} on {self.path}: {done} of {size_bytes} bytes at offset {offset_bytes}",
                hint="the request was split or cut short; the capture does not show one request",
            )
        return IOResult(op, self.path, offset_bytes, size_bytes, t0, t1, wall)


def _disk_full(exc: OSError) -> bool:
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)


def _free_bytes(path: str) -> int:
    try:
        st = os.statvfs(os.path.dirname(path) or ".")
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


def _no_space(path: str, what: str, code: int | None) -> WorkloadError:
    from charz.archive import free_text  # lazy: numpy

    return WorkloadError(f"disk full: {what} ({free_text(os.path.dirname(path) or '.')})", code=code,
                         hint=f"free some space there, or put the scratch file on a larger disk "
                              f"(charz resume DIR --scratch PATH); {path} stands in for the drive")


def _block_geometry(fd: int) -> tuple[int, int]:
    sector = struct.unpack("i", fcntl.ioctl(fd, BLKSSZGET, b"\0" * 4))[0]
    size = struct.unpack("Q", fcntl.ioctl(fd, BLKGETSIZE64, b"\0" * 8))[0]
    return sector, size


def open_direct(
    path: str | os.PathLike,
    *,
    writable: bool = True,
    claim: ExclusiveClaim | None = None,
    create_size_bytes: int | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> DirectIO:
    """Open ``path`` with ``O_DIRECT`` for single-request I/O.

    Parameters
    ----------
    path : path-like
        A whole-disk block device, or a scratch file on a file system that
        supports O_DIRECT (ext4, xfs, btrfs; not tmpfs before Linux 6.6).
    writable : bool
        Open for writing.  Writing a block device needs ``claim``.
    claim : ExclusiveClaim, optional
        The guard's exclusive hold on the device (``charz.device.hold_exclusive``).
    create_size_bytes : int, optional
        For scratch files: create the file if needed and make it at least this
        large, with its blocks allocated (so the timed write does not allocate).
    max_request_bytes : int
        Size of the aligned buffer, i.e. the largest request.

    Raises
    ------
    UnsafeTarget
        A writable block device without a covering claim.
    WorkloadError
        Cannot open, or the file system refuses O_DIRECT.

    Examples
    --------
    >>> with open_direct("/dev/loop3", claim=hold) as dio:     # doctest: +SKIP
    ...     r = dio.write(32768, 1 << 20)
    >>> r.duration_ns > 0                                       # doctest: +SKIP
    True
    """
    real = os.path.realpath(os.fspath(path))
    if max_request_bytes <= 0 or max_request_bytes % mmap.PAGESIZE:
        raise WorkloadError(f"max_request_bytes must be a positive multiple of {mmap.PAGESIZE}")
    if writable:
        require_claim_for_write(real, claim)
    if create_size_bytes is not None:
        _prepare_scratch(real, create_size_bytes)
    flags = (os.O_RDWR if writable else os.O_RDONLY) | os.O_DIRECT | os.O_CLOEXEC
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        hint = ("the file system does not support O_DIRECT (tmpfs before Linux 6.6, some FUSE); "
                "put the scratch file on ext4/xfs" if exc.errno == 22 else None)
        raise WorkloadError(f"cannot open {real} with O_DIRECT: {exc.strerror}", hint=hint,
                            code=exc.errno) from exc
    try:
        st = os.fstat(fd)
        if stat.S_ISBLK(st.st_mode):
            alignment, capacity = _block_geometry(fd)
            is_block = True
        elif stat.S_ISREG(st.st_mode):
            alignment, capacity, is_block = FILE_ALIGNMENT_BYTES, st.st_size, False
        else:
            raise WorkloadError(f"{real} is neither a block device nor a regular file")
        return DirectIO(real, fd, writable=writable, is_block_device=is_block,
                        alignment_bytes=alignment, capacity_bytes=capacity,
                        max_request_bytes=max_request_bytes)
    except BaseException:
        os.close(fd)
        raise


def _prepare_scratch(path: str, size_bytes: int) -> None:
    if isinstance(size_bytes, bool) or not isinstance(size_bytes, int) or size_bytes <= 0:
        raise WorkloadError(f"create_size_bytes must be a positive int, got {size_bytes!r}")
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise WorkloadError(f"create_size_bytes is for scratch files; {path} is not a regular file")
    existed = os.path.exists(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise WorkloadError(f"cannot create {path}: {exc.strerror}", code=exc.errno) from exc
    try:
        if os.fstat(fd).st_size < size_bytes:
            try:
                os.posix_fallocate(fd, 0, size_bytes)
            except OSError as exc:
                if _disk_full(exc):  # said now, before anything is measured
                    if not existed:  # ours, and empty: not left behind to take the space again
                        os.unlink(path)
                    raise _no_space(path, f"the scratch file needs {size_bytes / (1 << 20):.1f} MiB",
                                    exc.errno) from exc
                # file systems without fallocate still work, the first writes allocate
                os.ftruncate(fd, size_bytes)
    finally:
        os.close(fd)

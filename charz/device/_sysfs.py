"""The kernel's view of a block device, from sysfs.

Pure parsers (:func:`parse_queue_limits`, :func:`parse_scheduler`) take the
attribute texts; the readers take a ``sysfs_root`` so that tests can point them at
a fake tree.  Paths follow ``Documentation/ABI/stable/sysfs-block``: whole disks
are ``/sys/block/<disk>``, their partitions ``/sys/block/<disk>/<part>`` (with a
``partition`` file), and ``/sys/dev/block/MAJ:MIN`` links to either.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from charz.device._values import as_int
from charz.errors import DeviceError

SYSFS_ROOT = "/sys"

#: queue/ attributes read for :class:`QueueLimits`.
QUEUE_ATTRIBUTES = (
    "logical_block_size",
    "physical_block_size",
    "minimum_io_size",
    "optimal_io_size",
    "discard_granularity",
    "discard_max_bytes",
    "max_sectors_kb",
    "max_hw_sectors_kb",
    "rotational",
    "write_cache",
    "scheduler",
    "read_ahead_kb",
)


@dataclass(frozen=True)
class QueueLimits:
    """The block layer's limits for one device (``/sys/block/X/queue``).

    ``minimum_io_size_bytes`` and ``optimal_io_size_bytes`` are what the drive (or
    the kernel's fallback) advertises; charz prints its measured I/O unit next to
    them.  ``write_cache`` is the kernel's view (``write back``/``write through``),
    not a setting of the drive.
    """

    logical_block_size_bytes: int
    physical_block_size_bytes: int
    minimum_io_size_bytes: int
    optimal_io_size_bytes: int
    discard_granularity_bytes: int
    discard_max_bytes: int
    max_sectors_kb: int
    max_hw_sectors_kb: int
    rotational: bool
    write_cache: str | None
    scheduler: str | None
    schedulers: tuple[str, ...]
    read_ahead_kb: int

    @property
    def supports_discard(self) -> bool:
        return self.discard_granularity_bytes > 0 and self.discard_max_bytes > 0


def parse_scheduler(text: str) -> tuple[str | None, tuple[str, ...]]:
    """The active scheduler and all available ones.

    >>> parse_scheduler("none [mq-deadline] kyber bfq\\n")
    ('mq-deadline', ('none', 'mq-deadline', 'kyber', 'bfq'))
    >>> parse_scheduler("none\\n")
    ('none', ('none',))
    """
    names = text.split()
    active = None
    plain = []
    for name in names:
        if name.startswith("[") and name.endswith("]"):
            name = name[1:-1]
            active = name
        plain.append(name)
    if active is None and len(plain) == 1:
        # a device without a choice (e.g. an NVMe with only "none") shows no brackets
        active = plain[0]
    return active, tuple(plain)


def parse_queue_limits(attrs: Mapping[str, str]) -> QueueLimits:
    """Build :class:`QueueLimits` from the attribute texts.

    Examples
    --------
    >>> q = parse_queue_limits({"logical_block_size": "512\\n", "physical_block_size": "4096",
    ...     "minimum_io_size": "4096", "optimal_io_size": "0", "discard_granularity": "4096",
    ...     "discard_max_bytes": "2147450880", "max_sectors_kb": "1280", "max_hw_sectors_kb": "2048",
    ...     "rotational": "0", "write_cache": "write back", "scheduler": "[none] mq-deadline",
    ...     "read_ahead_kb": "128"})
    >>> q.minimum_io_size_bytes, q.scheduler, q.rotational, q.supports_discard
    (4096, 'none', False, True)
    """
    def num(name: str, default: int | None = None) -> int:
        if name not in attrs:
            if default is not None:
                return default
            raise DeviceError(f"sysfs: queue/{name} is missing")
        return as_int(attrs[name].strip(), f"queue/{name}")

    scheduler, schedulers = parse_scheduler(attrs.get("scheduler", ""))
    write_cache = attrs.get("write_cache", "").strip() or None
    return QueueLimits(
        logical_block_size_bytes=num("logical_block_size"),
        physical_block_size_bytes=num("physical_block_size"),
        minimum_io_size_bytes=num("minimum_io_size"),
        optimal_io_size_bytes=num("optimal_io_size", 0),
        discard_granularity_bytes=num("discard_granularity", 0),
        discard_max_bytes=num("discard_max_bytes", 0),
        max_sectors_kb=num("max_sectors_kb"),
        max_hw_sectors_kb=num("max_hw_sectors_kb", 0),
        rotational=num("rotational", 0) == 1,
        write_cache=write_cache,
        scheduler=scheduler,
        schedulers=schedulers,
        read_ahead_kb=num("read_ahead_kb", 0),
    )


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DeviceError(f"sysfs: cannot read {path}: {exc.strerror}") from exc


def read_queue_limits(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> QueueLimits:
    """Read ``/sys/block/<kname>/queue/*`` for a whole disk."""
    base = os.path.join(sysfs_root, "block", kname, "queue")
    if not os.path.isdir(base):
        raise DeviceError(f"sysfs: {base} does not exist (not a whole disk?)")
    attrs = {}
    for name in QUEUE_ATTRIBUTES:
        text = _read(os.path.join(base, name))
        if text is not None:
            attrs[name] = text
    return parse_queue_limits(attrs)


@dataclass(frozen=True)
class BlockNode:
    """A block device as sysfs names it."""

    kname: str
    major: int
    minor: int
    #: the whole disk's kernel name when this is a partition, else None.
    parent: str | None

    @property
    def is_partition(self) -> bool:
        return self.parent is not None

    @property
    def maj_min(self) -> str:
        return f"{self.major}:{self.minor}"


def _parse_dev(text: str | None, where: str) -> tuple[int, int]:
    major, sep, minor = (text or "").strip().partition(":")
    if not sep:
        raise DeviceError(f"sysfs: {where}/dev is missing or not MAJ:MIN")
    return as_int(major, "dev"), as_int(minor, "dev")


def node_for_devnum(major: int, minor: int, *, sysfs_root: str = SYSFS_ROOT) -> BlockNode:
    """The sysfs node of device number ``major:minor`` (a disk or a partition)."""
    link = os.path.join(sysfs_root, "dev", "block", f"{major}:{minor}")
    if not os.path.exists(link):
        raise DeviceError(f"sysfs: no block device {major}:{minor} ({link} missing)")
    real = os.path.realpath(link)
    kname = os.path.basename(real)
    parent = None
    if os.path.exists(os.path.join(real, "partition")):
        parent = os.path.basename(os.path.dirname(real))
    return BlockNode(kname, major, minor, parent)


def partitions(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> tuple[BlockNode, ...]:
    """The partitions of whole disk ``kname``, in name order."""
    base = os.path.join(sysfs_root, "block", kname)
    found = []
    for entry in sorted(_listdir(base)):
        sub = os.path.join(base, entry)
        if os.path.exists(os.path.join(sub, "partition")):
            major, minor = _parse_dev(_read(os.path.join(sub, "dev")), sub)
            found.append(BlockNode(entry, major, minor, kname))
    return tuple(found)


def partition_start_bytes(disk: str, part: str, *, sysfs_root: str = SYSFS_ROOT) -> int:
    """Where partition ``part`` of ``disk`` starts on the disk (``start`` is in 512-byte
    sectors whatever the logical block size)."""
    base = os.path.join(sysfs_root, "block", disk, part)
    text = _read(os.path.join(base, "start"))
    if text is None:
        raise DeviceError(f"sysfs: {base}/start is missing")
    return as_int(text.strip(), "start") * 512


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise DeviceError(f"sysfs: cannot list {path}: {exc.strerror}") from exc


def holders(kname: str, *, parent: str | None = None, sysfs_root: str = SYSFS_ROOT) -> tuple[str, ...]:
    """Kernel names of the devices stacked on ``kname`` (dm, md, bcache, LVM)."""
    parts = [sysfs_root, "block"] + ([parent] if parent else []) + [kname, "holders"]
    return tuple(sorted(_listdir(os.path.join(*parts))))


def slaves(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> tuple[str, ...]:
    """Kernel names of the devices ``kname`` is stacked on (non-empty for dm/md)."""
    return tuple(sorted(_listdir(os.path.join(sysfs_root, "block", kname, "slaves"))))


def loop_backing_file(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> str | None:
    """The file behind loop device ``kname``, or None for other devices."""
    text = _read(os.path.join(sysfs_root, "block", kname, "loop", "backing_file"))
    return text.strip() if text else None


def nvme_nsid(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> int | None:
    """The namespace id of an NVMe namespace block device, or None."""
    text = _read(os.path.join(sysfs_root, "block", kname, "nsid"))
    return as_int(text.strip(), "nsid") if text else None


def nvme_sibling_namespaces(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> tuple[str, ...]:
    """Other namespaces attached to the same NVMe controller as ``kname``."""
    controller = os.path.realpath(os.path.join(sysfs_root, "block", kname, "device"))
    names = [n for n in _listdir(controller) if n.startswith("nvme") and "n" in n[4:] and n != kname]
    return tuple(sorted(n for n in names if os.path.exists(os.path.join(controller, n, "nsid"))))


def size_bytes(kname: str, *, sysfs_root: str = SYSFS_ROOT) -> int:
    """Size of whole disk ``kname`` (``size`` is always in 512-byte sectors)."""
    base = os.path.join(sysfs_root, "block", kname)
    text = _read(os.path.join(base, "size"))
    if text is None:
        raise DeviceError(f"sysfs: {base}/size is missing")
    return as_int(text.strip(), "size") * 512

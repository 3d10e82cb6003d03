"""The kernel's queue limits beside charz's measurement.

The limits are read through :mod:`charz.device` from sysfs (read-only: tune opens nothing
for writing and runs nothing); this module only finds the whole disk behind a name, applies
``--min-io``/``--opt-io`` overrides and compares the limits — and, for a partition, where it
starts — with the profile.

Why compare at all: mkfs.ext4, mkfs.xfs, LVM, parted and libfdisk align to
``minimum_io_size``/``optimal_io_size`` when left alone
(``Documentation/ABI/stable/sysfs-block``: "smallest request the device can perform
without incurring a performance penalty" / "preferred unit for sustained I/O").  Most
SATA and consumer NVMe SSDs report the logical or physical block size there and
``optimal_io_size`` 0 (the NVMe driver fills them only from NPWG/NOWS), so the tools
align to nothing the drive actually cares about.  Each disagreement is printed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace

from charz.device import (
    SYSFS_ROOT,
    QueueLimits,
    node_for_devnum,
    partition_start_bytes,
    partitions,
    read_queue_limits,
)
from charz.errors import DeviceError, UsageError
from charz.tune._basis import PAGE, UNIT, Basis
from charz.tune._model import Source
from charz.tune._sizes import human

_ATTRS = {
    "logical_block_size": "logical_block_size_bytes",
    "physical_block_size": "physical_block_size_bytes",
    "minimum_io_size": "minimum_io_size_bytes",
    "optimal_io_size": "optimal_io_size_bytes",
    "discard_granularity": "discard_granularity_bytes",
}


@dataclass(frozen=True)
class KernelLimits:
    """Queue limits plus where they came from.

    ``sectors_assumed`` is True when the sector sizes were not read (``--min-io`` /
    ``--opt-io`` without ``--device``): 512 B is then an assumption, and every value
    computed from it says so.  ``partition_start_bytes`` is where ``partition`` starts
    on ``disk`` (sysfs ``start``), when a partition was named.
    """

    queue: QueueLimits
    origin: str
    sectors_assumed: bool = False
    disk: str | None = None
    partition: str | None = None
    partition_start_bytes: int | None = None
    #: Size of the device (or the partition) named, from sysfs ``size``; None when not read.
    size_bytes: int | None = None

    def value(self, attr: str) -> int:
        return int(getattr(self.queue, _ATTRS[attr]))

    def source(self, attr: str) -> Source:
        assumed = self.sectors_assumed and attr in ("logical_block_size", "physical_block_size")
        return Source(f"queue/{attr}", self.value(attr), "B", "kernel",
                      origin="assumed, no --device" if assumed else self.origin)

    @property
    def logical(self) -> int:
        return self.queue.logical_block_size_bytes

    @property
    def physical(self) -> int:
        return self.queue.physical_block_size_bytes

    @property
    def min_io(self) -> int:
        return self.queue.minimum_io_size_bytes

    @property
    def opt_io(self) -> int:
        return self.queue.optimal_io_size_bytes


def as_kernel_limits(limits: QueueLimits | KernelLimits | None) -> KernelLimits | None:
    """Accept a bare :class:`~charz.device.QueueLimits` (origin "queue limits") or a KernelLimits."""
    if limits is None or isinstance(limits, KernelLimits):
        return limits
    if isinstance(limits, QueueLimits):
        return KernelLimits(limits, "queue limits")
    raise TypeError(f"limits must be QueueLimits, KernelLimits or None, not {type(limits).__name__}")


def _whole_disk(device: str, sysfs_root: str) -> tuple[str, str | None]:
    if device.startswith("/"):
        real = os.path.realpath(device)
        try:
            st = os.stat(real)
        except OSError as exc:
            raise DeviceError(f"{device}: {exc.strerror}", hint="give the block device, e.g. /dev/sda") from None
        if not stat.S_ISBLK(st.st_mode):
            raise DeviceError(f"{device} is not a block device", hint="give the block device, e.g. /dev/sda")
        node = node_for_devnum(os.major(st.st_rdev), os.minor(st.st_rdev), sysfs_root=sysfs_root)
        return (node.parent, node.kname) if node.is_partition else (node.kname, None)
    name = device
    if os.path.isdir(os.path.join(sysfs_root, "block", name)):
        return name, None
    try:
        disks = sorted(os.listdir(os.path.join(sysfs_root, "block")))
    except OSError as exc:
        raise DeviceError(f"sysfs: cannot list {sysfs_root}/block: {exc.strerror}") from None
    for disk in disks:
        if any(p.kname == name for p in partitions(disk, sysfs_root=sysfs_root)):
            return disk, name
    raise DeviceError(f"no block device named {name!r} in {sysfs_root}/block",
                      hint="give a device such as /dev/sda or a kernel name such as nvme0n1")


def read_limits(device: str, *, sysfs_root: str = SYSFS_ROOT) -> KernelLimits:
    """The queue limits of ``device`` (``/dev/sda``, ``sda``, ``sda1``: a partition reads its disk's).

    Read-only: only files under ``sysfs_root`` are opened, for reading.

    Example
    -------
    >>> import tempfile
    >>> from charz.device.testing import make_fake_sysfs
    >>> root = make_fake_sysfs(tempfile.mkdtemp(), disk="sdz", devnum=(8, 240), partitions={"sdz1": (8, 241)})
    >>> k = read_limits("sdz1", sysfs_root=str(root))
    >>> k.disk, k.partition, k.min_io, k.opt_io, k.partition_start_bytes
    ('sdz', 'sdz1', 512, 0, 1048576)
    """
    disk, part = _whole_disk(device, sysfs_root)
    queue = read_queue_limits(disk, sysfs_root=sysfs_root)
    start = None if part is None else partition_start_bytes(disk, part, sysfs_root=sysfs_root)
    return KernelLimits(queue, f"{sysfs_root.rstrip('/')}/block/{disk}/queue", disk=disk, partition=part,
                        partition_start_bytes=start, size_bytes=_size(disk, part, sysfs_root))


def _size(disk: str, part: str | None, sysfs_root: str) -> int | None:
    """``size`` of the disk or partition (512-byte sectors whatever the block size), if sysfs has it."""
    path = os.path.join(sysfs_root, "block", disk, *([part] if part else []), "size")
    try:
        with open(path) as f:
            return int(f.read().strip()) * 512
    except (OSError, ValueError):
        return None


def with_overrides(
    limits: KernelLimits | None, *, min_io_bytes: int | None, opt_io_bytes: int | None
) -> KernelLimits | None:
    """Replace ``minimum_io_size``/``optimal_io_size`` (e.g. to ask "what if the drive reported 32 KiB?").

    Without read limits, the sector sizes are assumed to be 512 B (and marked so) and a
    missing ``minimum_io_size`` is the logical block size, as the kernel reports for a
    drive that says nothing.

    Example
    -------
    >>> k = with_overrides(None, min_io_bytes=None, opt_io_bytes=0)
    >>> k.min_io, k.opt_io, k.sectors_assumed
    (512, 0, True)
    """
    # What a kernel could report: whole logical blocks (minimum_io_size at least one,
    # optimal_io_size 0 for "not reported").
    logical = 512 if limits is None else limits.logical
    for name, value, lowest in (("--min-io", min_io_bytes, logical), ("--opt-io", opt_io_bytes, 0)):
        if value is not None and (value < lowest or value % logical):
            allowed = f"a multiple of the {logical} B logical block" + (", or 0" if lowest == 0 else "")
            raise UsageError(f"{name} {value} B is not a size a kernel reports: use {allowed}",
                             hint="e.g. --min-io 32k --opt-io 128k")
    if min_io_bytes is None and opt_io_bytes is None:
        return limits
    if limits is None:
        queue = QueueLimits(
            logical_block_size_bytes=512, physical_block_size_bytes=512,
            minimum_io_size_bytes=512 if min_io_bytes is None else min_io_bytes,
            optimal_io_size_bytes=0 if opt_io_bytes is None else opt_io_bytes,
            discard_granularity_bytes=0, discard_max_bytes=0, max_sectors_kb=0, max_hw_sectors_kb=0,
            rotational=False, write_cache=None, scheduler=None, schedulers=(), read_ahead_kb=0,
        )
        return KernelLimits(queue, "--min-io/--opt-io", sectors_assumed=True)
    changes = {}
    if min_io_bytes is not None:
        changes["minimum_io_size_bytes"] = min_io_bytes
    if opt_io_bytes is not None:
        changes["optimal_io_size_bytes"] = opt_io_bytes
    return replace(limits, queue=replace(limits.queue, **changes), origin=f"{limits.origin} with --min-io/--opt-io")


def compare_limits(limits: KernelLimits, basis: Basis) -> tuple[str, ...]:
    """Where the kernel's limits and the profile disagree, one sentence each (pure).

    Example
    -------
    >>> from charz.tune._basis import decide_basis
    >>> from charz.tune._facts import facts_from_profile
    >>> from charz.tune.testing import profile_dict
    >>> b = decide_basis(facts_from_profile(profile_dict(unit_bytes=32768, n_step=4, step_pages=8)))
    >>> k = with_overrides(None, min_io_bytes=4096, opt_io_bytes=0)
    >>> for line in compare_limits(k, b): print(line)                      # doctest: +ELLIPSIS
    queue/minimum_io_size 4 KiB is smaller than the measured write unit 32 KiB: ...
    queue/optimal_io_size is 0: ...
    """
    out: list[str] = list(_partition_start(limits, basis))
    page = basis.page_bytes
    if basis.kind == UNIT:
        unit, full = basis.align_bytes, basis.full_bytes
        if limits.min_io < unit:
            out.append(f"queue/minimum_io_size {human(limits.min_io)} is smaller than the measured write unit "
                       f"{human(unit)}: the drive does not advertise its unit, and writes of minimum_io_size make it "
                       "read-modify-write (003 §5.5, Fig. 16)")
        elif limits.min_io % unit:
            out.append(f"queue/minimum_io_size {human(limits.min_io)} is not a multiple of the measured write unit "
                       f"{human(unit)}")
        target = full or unit
        if limits.opt_io == 0:
            out.append(f"queue/optimal_io_size is 0: tools that align to it pick nothing; charz measured "
                       f"{human(target)}" + (f" ({human(unit)} unit × {basis.parallel_units} in parallel)" if full else ""))
        elif limits.opt_io % target and target % limits.opt_io:
            out.append(f"queue/optimal_io_size {human(limits.opt_io)} and the measured {human(target)} are not "
                       "multiples of each other: tools that align to it will split units")
    elif basis.kind == PAGE and limits.opt_io and page and limits.opt_io > page:
        out.append(f"queue/optimal_io_size {human(limits.opt_io)} asks for alignment beyond the {human(page)} page; "
                   "charz measured no I/O unit beyond a page, so following it gains nothing measurable (and costs little)")
    if page and limits.physical < page:
        out.append(f"queue/physical_block_size {human(limits.physical)} is smaller than the {human(page)} flash page "
                   f"(given.page_size_bytes): tools that size blocks from it (ZFS ashift) undershoot the page")
    elif page and limits.physical > page:
        out.append(f"queue/physical_block_size {human(limits.physical)} is larger than the {human(page)} page "
                   "given in the profile; check the page size")
    if limits.queue.rotational:
        disk = limits.disk or "DEV"
        out.append("queue/rotational is 1 for an SSD (USB bridges and VMs often say so): mkfs.ext4 then takes "
                   f"stripe_width from optimal_io_size whenever that is set; echo 0 > /sys/block/{disk}/queue/rotational "
                   "corrects the kernel's view")
    return tuple(out)


def _partition_start(limits: KernelLimits, basis: Basis) -> tuple[str, ...]:
    """A partition that starts off the unit (or the page) shifts everything in it: file-system
    alignment inside it then lines up with the partition, not with the drive."""
    start = limits.partition_start_bytes
    if start is None:
        return ()
    name = limits.partition or "the partition"
    where = f"{name} starts at byte {start} ({human(start - start % 1024)} + {start % 1024} B)" if start % 1024 else \
        f"{name} starts at {human(start)}"
    grains = []
    if basis.kind == UNIT:
        grains.append((basis.align_bytes, "measured write unit"))
        if basis.full_bytes:
            grains.append((basis.full_bytes, "measured full stripe (unit × parallel units)"))
    if basis.page_bytes:
        grains.append((basis.page_bytes, "flash page (given.page_size_bytes)"))
    for grain, what in grains:
        if start % grain:
            return (f"{where}, {start % grain} B past a multiple of the {human(grain)} {what}: every alignment "
                    f"inside {name} (the mkfs options below) is off by that much on the drive; recreate the "
                    "partition at a multiple of it (charz tune --fs partition) before making a file system",)
    return ()


def describe_limits(limits: KernelLimits) -> str:
    """One line of the limits tune uses.

    >>> describe_limits(with_overrides(None, min_io_bytes=4096, opt_io_bytes=0))
    'minimum_io_size 4096 B, optimal_io_size 0 B, physical_block_size 512 B (assumed), logical_block_size 512 B (assumed), rotational 0'
    """
    tag = " (assumed)" if limits.sectors_assumed else ""
    start = "" if limits.partition_start_bytes is None else \
        f", {limits.partition} starts at byte {limits.partition_start_bytes}"
    return (f"minimum_io_size {limits.min_io} B, optimal_io_size {limits.opt_io} B, "
            f"physical_block_size {limits.physical} B{tag}, logical_block_size {limits.logical} B{tag}, "
            f"rotational {int(limits.queue.rotational)}{start}")

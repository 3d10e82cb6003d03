"""Each printed mkfs command checked against the tool's documented limits and the host's kernel.

A command that the tool refuses, or that makes a file system this machine cannot mount,
is not printed: the advice says why instead.  What a command may run into depends on the
block size (``--block-size``) and on the host (its page size, its kernel):

ext4 (mke2fs(8): ``-b`` 1024–65536)
    Linux mounts ext4 only with a block no larger than its page (``ext4_fill_super``:
    "unsupported filesystem blocksize"); mke2fs itself warns "blocks too big for system"
    and stops to ask.  A block above the page → refused.
XFS (mkfs.xfs(8): ``-b size`` 512–65536, at least 1024 with CRCs, the default)
    A block above the page mounts from Linux 6.12 (large block size support); before,
    "File system with blocksize N bytes. Only pagesize (4096) or less will currently
    work."  A block above the page on an older kernel → refused.
    mkfs.xfs (xfsprogs ≥ 5.19) refuses a file system under 300 MiB ("Filesystem must be
    larger than 300MB"): with ``--device`` its size is known, and a smaller one → refused.
    With a stripe unit, a device under 1 GiB may stop it too: the log (at least 64 MiB)
    must fit in one allocation group, and aligning to the stripe makes more, smaller ones
    (512 MiB stops xfsprogs 6.1, 600 MiB does not) → warned.
btrfs (mkfs.btrfs(8): ``-s`` a power of two from 4 KiB to 64 KiB)
    Below 4 KiB → refused (mkfs.btrfs stops).  The kernel mounts the sector sizes it lists
    in ``/sys/fs/btrfs/features/supported_sectorsizes``; any other → refused, with that
    list.  Without the file (btrfs not loaded) the page size is the one sure size: any
    other is warned about.

The host's facts are read once (:func:`read_host`, read-only) and passed in, so every rule
is a pure function of them and can be tested for any host.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from charz.tune._model import Advice
from charz.tune._sizes import KiB, human

BTRFS_FEATURES = "/sys/fs/btrfs/features/supported_sectorsizes"
XFS_MIN_BYTES = 300 * 1024 * KiB  # xfsprogs >= 5.19
XFS_STRIPED_LOG_ROOM_BYTES = 1024 * 1024 * KiB
XFS_LARGE_BLOCKS_KERNEL = (6, 12)  # XFS block size > page size (LBS), Linux 6.12
BTRFS_SECTOR_MIN, BTRFS_SECTOR_MAX = 4 * KiB, 64 * KiB


@dataclass(frozen=True)
class Host:
    """What decides whether a file system can be mounted here.

    ``btrfs_sectorsizes`` is None when the kernel does not say (btrfs not loaded).
    """

    page_bytes: int
    kernel: tuple[int, int]
    btrfs_sectorsizes: tuple[int, ...] | None = None
    release: str = ""

    @property
    def name(self) -> str:
        return f"this host (Linux {self.release or '.'.join(map(str, self.kernel))}, {human(self.page_bytes)} pages)"


def parse_release(release: str) -> tuple[int, int]:
    """``6.18.44-fc-v657`` → (6, 18).

    >>> parse_release("6.18.44-fc-v657"), parse_release("5.4.0-150-generic")
    ((6, 18), (5, 4))
    """
    m = re.match(r"(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def read_host() -> Host:
    """The running host's page size, kernel release and btrfs sector sizes (read-only)."""
    sizes = None
    try:
        with open(BTRFS_FEATURES) as f:
            sizes = tuple(sorted(int(x) for x in f.read().split()))
    except (OSError, ValueError):
        pass
    release = os.uname().release
    return Host(os.sysconf("SC_PAGE_SIZE"), parse_release(release), sizes, release)


@dataclass(frozen=True)
class Verdict:
    refused: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def check_block_size(target: str, block: int, host: Host) -> Verdict:
    """Refusals and warnings for ``target``'s mkfs with a ``block``-byte block on ``host`` (pure).

    >>> h = Host(4096, (6, 18), (4096,), "6.18")
    >>> check_block_size("btrfs", 1024, h).refused[0][:60]
    'mkfs.btrfs refuses a 1 KiB sector size: it takes a power of '
    >>> check_block_size("ext4", 8192, h).refused[0][:58]
    'Linux mounts ext4 only with blocks up to its page size: an'
    >>> check_block_size("xfs", 8192, h)
    Verdict(refused=(), warnings=())
    >>> check_block_size("xfs", 8192, Host(4096, (6, 6), None, "6.6")).refused[0][:50]
    'Linux 6.6 mounts XFS only with blocks up to its pa'
    """
    page = host.page_bytes
    refused: list[str] = []
    warnings: list[str] = []
    if target == "ext4" and block > page:
        refused.append(f"Linux mounts ext4 only with blocks up to its page size: an ext4 of {human(block)} blocks "
                       f"cannot be mounted on {host.name} (mke2fs warns 'blocks too big for system' and stops to "
                       f"ask); use --block-size {human(page).replace(' KiB', 'k')} here")
    elif target == "xfs" and block > page and host.kernel < XFS_LARGE_BLOCKS_KERNEL:
        refused.append(f"Linux {host.release or '.'.join(map(str, host.kernel))} mounts XFS only with blocks up to "
                       f"its page size ({human(page)}); blocks above it need Linux 6.12 or later (large block size "
                       f"support): use --block-size {human(page).replace(' KiB', 'k')} here")
    elif target == "btrfs":
        if not BTRFS_SECTOR_MIN <= block <= BTRFS_SECTOR_MAX:
            refused.append(f"mkfs.btrfs refuses a {human(block)} sector size: it takes a power of two from 4 KiB to "
                           "64 KiB (mkfs.btrfs(8)); use --block-size 4k")
        elif host.btrfs_sectorsizes is not None and block not in host.btrfs_sectorsizes:
            listed = ", ".join(human(s) for s in host.btrfs_sectorsizes)
            refused.append(f"this kernel's btrfs mounts sector sizes {listed} only ({BTRFS_FEATURES}): a "
                           f"file system of {human(block)} sectors could not be mounted on {host.name}; "
                           "use --block-size 4k")
        elif host.btrfs_sectorsizes is None and block != page:
            warnings.append(f"sector size {human(block)} differs from the {human(page)} page: the kernel may not "
                            f"mount it ({BTRFS_FEATURES} is absent, btrfs not loaded, so charz cannot tell); "
                            "--block-size 4k is safe")
    return Verdict(tuple(refused), tuple(warnings))


def check_device_size(advice: Advice, size_bytes: int | None) -> Verdict:
    """Refusals and warnings for the size of the device the commands name (pure).

    >>> from charz.tune._model import Command
    >>> a = Advice("xfs", "unit", "", (Command(("mkfs.xfs", "-b", "size=4096", "-d", "su=32k,sw=4", "DEV")),))
    >>> check_device_size(a, 256 * 2**20).refused[0][:46]
    'mkfs.xfs refuses a file system under 300 MiB: '
    >>> check_device_size(a, 512 * 2**20).warnings[0][:40]
    'mkfs.xfs with a stripe unit may stop on '
    >>> check_device_size(a, 2**40)
    Verdict(refused=(), warnings=())
    """
    if advice.target != "xfs" or size_bytes is None or not advice.commands:
        return Verdict()
    if size_bytes < XFS_MIN_BYTES:
        return Verdict((f"mkfs.xfs refuses a file system under 300 MiB: the device holds {human(size_bytes)} "
                        "(xfsprogs 5.19 and later)",))
    striped = any(a.startswith("su=") for c in advice.commands for a in c.argv)
    if striped and size_bytes < XFS_STRIPED_LOG_ROOM_BYTES:
        return Verdict(warnings=(f"mkfs.xfs with a stripe unit may stop on {human(size_bytes)} ('Log size must be "
                                 "at least 64MB': aligned allocation groups are too small for the log); on a "
                                 "device this small drop -d su,sw",))
    return Verdict()


def vet(advice: Advice, block: int, host: Host, size_bytes: int | None = None) -> Advice:
    """``advice`` with its commands withdrawn (and why) if the tool or the kernel would refuse them."""
    a, b = check_block_size(advice.target, block, host), check_device_size(advice, size_bytes)
    verdict = Verdict(a.refused + b.refused, a.warnings + b.warnings)
    if verdict.refused:
        return replace(advice, headline=f"no {advice.target} command: {verdict.refused[0].split(':')[0]}",
                       commands=(), disagreements=(), refused=verdict.refused,
                       warnings=advice.warnings + verdict.warnings)
    if verdict.warnings:
        return replace(advice, warnings=advice.warnings + verdict.warnings)
    return advice

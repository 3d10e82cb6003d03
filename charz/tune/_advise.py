"""advise(): one profile + one target → :class:`~charz.tune.Advice` (pure: reads and runs nothing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from charz.device import QueueLimits
from charz.errors import UsageError
from charz.tune._basis import Basis, decide_basis
from charz.tune._btrfs import advise_btrfs
from charz.tune._context import DEFAULT_BLOCK_BYTES, Context
from charz.tune._ext4 import advise_ext4
from charz.tune._facts import facts_from_profile
from charz.tune._limits import KernelLimits, as_kernel_limits
from charz.tune._lvm import advise_lvm
from charz.tune._mdadm import advise_mdadm
from charz.tune._model import Advice
from charz.tune._partition import advise_partition
from charz.tune._sizes import KiB, is_pow2
from charz.tune._tool_limits import Host, read_host, vet
from charz.tune._xfs import advise_xfs
from charz.tune._zfs import advise_zfs

_ADVISORS: dict[str, Callable[[Context], Advice]] = {
    "ext4": advise_ext4,
    "xfs": advise_xfs,
    "zfs": advise_zfs,
    "btrfs": advise_btrfs,
    "mdadm": advise_mdadm,
    "lvm": advise_lvm,
    "partition": advise_partition,
}
#: The targets, in the order ``--fs all`` prints them.
TARGETS: tuple[str, ...] = tuple(_ADVISORS)


def _arg_block_size(block_size_bytes: int) -> int:
    if not isinstance(block_size_bytes, int) or not is_pow2(block_size_bytes) or not KiB <= block_size_bytes <= 64 * KiB:
        raise UsageError(f"block size {block_size_bytes!r} is not a power of two from 1 KiB to 64 KiB",
                         hint="use --block-size 4k (the x86 page size; what every tool here mounts)")
    return block_size_bytes


def _arg_data_disks(data_disks: int | None) -> int | None:
    if data_disks is not None and (not isinstance(data_disks, int) or data_disks < 1):
        raise UsageError(f"data disks must be a positive whole number, not {data_disks!r}")
    return data_disks


def _arg_fs(fs: str) -> str:
    if fs not in _ADVISORS:
        raise UsageError(f"unknown target {fs!r}", hint="choose one of " + ", ".join(TARGETS) + " (or all)")
    return fs


def basis_of(profile: dict[str, Any]) -> Basis:
    """Validate ``profile`` and decide what it aligns to (shared by every target)."""
    return decide_basis(facts_from_profile(profile))


def advise(
    profile: dict[str, Any],
    *,
    fs: str,
    limits: QueueLimits | KernelLimits | None,
    block_size_bytes: int = DEFAULT_BLOCK_BYTES,
    data_disks: int | None = None,
    device: str | None = None,
    host: Host | None = None,
) -> Advice:
    """Commands for ``fs`` (ext4, xfs, zfs, btrfs, mdadm, lvm, partition) from a profile.

    Parameters
    ----------
    profile
        A ``charz.profile/1`` dict (validated here; ProfileError names a bad key).
    fs
        The target.
    limits
        The kernel's queue limits (:func:`charz.tune.read_limits`), a bare
        :class:`charz.device.QueueLimits`, or None when unknown.
    block_size_bytes
        The file-system block size (a power of two, 1–64 KiB).
    data_disks
        RAID 5/6 data members, for mdadm's full-stripe note.
    device
        The device path to put in the commands; ``DEV`` when None.
    host
        The machine the commands are for (:func:`charz.tune._tool_limits.read_host`, the
        running one when None): commands it cannot run or mount are withdrawn, with why.

    Example
    -------
    >>> from charz.tune.testing import preset_profile
    >>> a = advise(preset_profile("mxp"), fs="ext4", limits=None)
    >>> a.commands[0].argv
    ('mkfs.ext4', '-b', '4096', '-E', 'stride=8,stripe_width=32', 'DEV')
    >>> [o.reason for o in a.commands[0].options][1]
    '32 KiB write unit / 4 KiB block: allocations start on unit boundaries; from results.write_io_unit_bytes = 32 KiB (inferred, high); block size = 4 KiB (--block-size default)'
    """
    advisor = _ADVISORS[_arg_fs(fs)]
    ctx = make_context(profile, limits=limits, block_size_bytes=block_size_bytes, data_disks=data_disks,
                       device=device, host=host)
    return _vetted(advisor(ctx), ctx)


def _vetted(advice: Advice, ctx: Context) -> Advice:
    # Every printed command is checked against the tool's limits and what this host mounts.
    size = ctx.limits.size_bytes if ctx.limits is not None else None
    return vet(advice, ctx.block_size_bytes, ctx.host, size) if ctx.host is not None else advice


def make_context(profile: dict[str, Any], *, limits: QueueLimits | KernelLimits | None,
                 block_size_bytes: int = DEFAULT_BLOCK_BYTES, data_disks: int | None = None,
                 device: str | None = None, host: Host | None = None) -> Context:
    """The profile validated and its basis decided once, with the user's options checked:
    what every target's advisor works from."""
    return Context(basis_of(profile), as_kernel_limits(limits), _arg_block_size(block_size_bytes),
                   _arg_data_disks(data_disks), device or "DEV", host or read_host())


def advise_targets(ctx: Context, targets: tuple[str, ...]) -> tuple[Advice, ...]:
    """Each target's advice from one context (``targets`` checked first, so a typo costs nothing)."""
    advisors = [_ADVISORS[_arg_fs(t)] for t in targets]
    return tuple(_vetted(advisor(ctx), ctx) for advisor in advisors)

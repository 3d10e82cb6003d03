"""btrfs: ``mkfs.btrfs -s B -n NODE DEV``.

Rules
-----
* btrfs has **no stripe unit on one device**: there is no ``stride``/``su`` to give it,
  and its data extents are aligned to the sector size only.  Said so, every time.
* ``-s`` (sectorsize, the data allocation unit) = the block size.  It cannot follow a
  32 KiB unit: the kernel mounts only the sector sizes it supports (usually the CPU page,
  4 KiB on x86; mkfs.btrfs(8)); ``_tool_limits`` withdraws a command it would refuse.
* ``-n`` (nodesize, the metadata tree block; a power of two, a multiple of the
  sectorsize, 16 KiB by default, at most 64 KiB) = the write unit when the unit is a power
  of two from 16 KiB to 64 KiB, so metadata writes are whole units (MXP, Q Pro: 32 KiB).
  A smaller power-of-two unit already divides the 16 KiB default; a larger or
  non-power-of-two unit cannot be matched (said so, default kept).  mkfs.btrfs(8):
  larger nodes pack better and fragment less but cost more memory copying per update.
* Multi-device RAID profiles stripe in fixed 64 KiB pieces (``BTRFS_STRIPE_LEN``): charz
  says whether the unit divides 64 KiB.
* One-page unit → defaults; undetermined unit → defaults, flagged (the page does not
  change any btrfs option).

What mkfs.btrfs does alone: it reads no queue limits; sectorsize 4 KiB (btrfs-progs ≥ 6.7;
the CPU page size before), nodesize 16 KiB (``BTRFS_MKFS_DEFAULT_NODE_SIZE``).
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, UNIT
from charz.tune._context import Context, nothing_to_advise
from charz.tune._model import Advice, Command, KernelDefault, Option, Source
from charz.tune._sizes import KiB, human, is_pow2

TARGET = "btrfs"
NODESIZE_DEFAULT_BYTES = 16 * KiB
NODESIZE_MAX_BYTES = 64 * KiB
STRIPE_LEN_BYTES = 64 * KiB


def mkfs_btrfs_default() -> KernelDefault:
    """mkfs.btrfs's choice: it does not look at the queue limits.

    >>> mkfs_btrfs_default().options[1].value
    16384
    """
    tool = Source("mkfs.btrfs default", None, "", "tool", origin="btrfs-progs ≥ 6.7")
    return KernelDefault("mkfs.btrfs alone uses -s 4096 -n 16384 and reads no queue limits",
                         (Option.of("-s", 4096, "B", "sectorsize default", tool),
                          Option.of("-n", NODESIZE_DEFAULT_BYTES, "B", "nodesize default", tool)))


def advise_btrfs(ctx: Context) -> Advice:
    """The mkfs.btrfs command for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> advise(preset_profile("mxp"), fs="btrfs", limits=None).commands[0].display
    'mkfs.btrfs -s 4096 -n 32768 DEV'
    """
    basis, block = ctx.basis, ctx.block_size_bytes
    default = mkfs_btrfs_default()
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes = ["btrfs has no stripe unit on a single device: there is nothing like stride or su to set; "
             "data is aligned to the sector size only"]
    # Whether mkfs.btrfs takes the sector size and this kernel mounts it: _tool_limits.vet.
    options = [Option.of("-s", block, "B", "sectorsize = the file-system block size", ctx.block_source)]
    node = None
    if basis.kind == UNIT:
        unit = basis.align_bytes
        if is_pow2(unit) and NODESIZE_DEFAULT_BYTES < unit <= NODESIZE_MAX_BYTES and unit % block == 0:
            node = unit
            options.append(Option.of("-n", unit, "B", f"nodesize = the {human(unit)} write unit: every metadata "
                                     "write is a whole unit", basis.align_source))
        elif is_pow2(unit) and unit <= NODESIZE_DEFAULT_BYTES:
            notes.append(f"the default 16 KiB nodesize is already a multiple of the {human(unit)} unit")
        else:
            notes.append(f"the {human(unit)} unit cannot be a nodesize (a power of two up to 64 KiB): the default "
                         "16 KiB stands, and metadata writes will be partial units")
        if STRIPE_LEN_BYTES % unit == 0:
            notes.append(f"multi-device RAID profiles stripe in fixed 64 KiB pieces, a whole number of "
                         f"{human(unit)} units")
        else:
            notes.append(f"multi-device RAID profiles stripe in fixed 64 KiB pieces, not a multiple of the "
                         f"{human(unit)} unit: members will see partial units")
    else:
        notes.append("nodesize: no unit beyond a page to match; the default 16 KiB stands"
                     + (" (fallback: the unit is undetermined)" if basis.kind == FALLBACK else ""))
    argv = ["mkfs.btrfs", "-s", str(block)] + (["-n", str(node)] if node else []) + [ctx.device]
    disagreements = (f"btrfs nodesize: mkfs.btrfs alone → 16384; charz → {node}",) if node else ()
    headline = f"mkfs.btrfs with nodesize {human(node)}" if node else "mkfs.btrfs with its defaults"
    return Advice(TARGET, basis.kind, headline, (Command(tuple(argv), tuple(options), "make the file system"),),
                  default, disagreements, tuple(notes), tuple(warnings))

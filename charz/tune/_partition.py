"""Partitioning: where the first partition starts, for sfdisk and for parted.

Rules
-----
* Start = lcm(1 MiB, unit × ``n_step``) — the 1 MiB every tool already uses, made a
  multiple of the size that keeps every package busy, so that whatever sits in the
  partition (a file system's stripe, an LV's extents) lines up with the drive.  MXP and
  Q Pro: lcm(1 MiB, 128 KiB) = 1 MiB — the default is right, and charz says so.  A
  12-package drive with 96 KiB would need 3 MiB.  Without ``n_step``: lcm(1 MiB, unit).
* sfdisk takes the start as a sector number in *logical* sectors (``start=``); with no
  ``--device`` the sector is assumed to be 512 B (and the 4 KiB-sector number is given too).
* parted gets ``-a optimal`` and the start in MiB (always whole MiB here).
* One-page unit → 1 MiB (sector 2048 at 512 B).  Undetermined unit → 1 MiB, flagged.
* charz prints; it runs nothing.  Both commands rewrite the partition table.

What the tools do alone: libfdisk (``libfdisk/src/alignment.c``) starts at 1 MiB, or at
``optimal_io_size`` (else ``minimum_io_size``) when the device reports a topology and that
size is above 1 MiB; parted ``-a optimal`` (``libparted/arch/linux.c``) uses 1 MiB when
1 MiB is a multiple of the reported sizes (or none is reported), otherwise
``optimal_io_size`` (or ``minimum_io_size`` when that is 0).  ``alignment_offset`` is
honoured by both; charz's queue limits do not carry it (see the notes).
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, UNIT
from charz.tune._context import Context, no_limits, nothing_to_advise
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, Command, KernelDefault, Option, Source
from charz.tune._sizes import MiB, human, is_pow2, lcm

TARGET = "partition"


def partition_default(limits: KernelLimits | None) -> KernelDefault:
    """Where sfdisk/fdisk (libfdisk) and ``parted -a optimal`` start the first partition by themselves.

    Example
    -------
    >>> from charz.tune._limits import with_overrides
    >>> partition_default(with_overrides(None, min_io_bytes=4096, opt_io_bytes=0)).summary
    'sfdisk alone starts the first partition at 1 MiB (sector 2048); parted -a optimal aligns to 1 MiB'
    """
    if limits is None:
        return no_limits("1 MiB, or optimal_io_size when the device reports one above 1 MiB (libfdisk) / "
                         "that 1 MiB is not a multiple of (parted)")
    io_size = limits.opt_io or limits.min_io
    if io_size and limits.physical and io_size % limits.physical:
        io_size = limits.physical
    has_topology = bool(limits.opt_io) or not is_pow2(limits.min_io)
    first = io_size if has_topology and io_size > MiB else MiB
    fdisk_src = limits.source("optimal_io_size" if limits.opt_io else "minimum_io_size")
    opt, mini = limits.opt_io, limits.min_io
    if (not opt and not mini) or (opt and MiB % opt == 0 and mini and MiB % mini == 0) \
            or (not mini and opt and MiB % opt == 0) or (not opt and mini and MiB % mini == 0):
        parted, parted_src = MiB, None
    elif not opt:
        parted, parted_src = mini, limits.source("minimum_io_size")
    else:
        parted, parted_src = opt, limits.source("optimal_io_size")
    sector = limits.logical
    options = (Option.of("start", first, "B", "libfdisk first LBA", *([fdisk_src] if first != MiB else [])),
               Option.of("align", parted, "B", "parted optimal alignment", *([parted_src] if parted_src else [])))
    return KernelDefault(f"sfdisk alone starts the first partition at {human(first)} (sector {first // sector}); "
                         f"parted -a optimal aligns to {human(parted)}", options)


def advise_partition(ctx: Context) -> Advice:
    """sfdisk and parted commands for the first partition (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> [c.display for c in advise(preset_profile("mxp"), fs="partition", limits=None).commands]
    ["printf 'label: gpt\\\\nstart=2048\\\\n' | sfdisk DEV", 'parted --script -a optimal DEV mklabel gpt mkpart primary 1MiB 100%']
    """
    basis, limits = ctx.basis, ctx.limits
    default = partition_default(limits)
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes: list[str] = []
    fallback = basis.kind == FALLBACK
    if basis.kind == UNIT:
        target = basis.full_bytes or basis.align_bytes
        start = lcm(MiB, target)
        if basis.full_bytes:
            why = (f"lcm(1 MiB, {human(basis.align_bytes)} unit × {basis.parallel_units} in parallel = {human(target)}): "
                   "whatever the partition holds lines up with a write that keeps every package busy")
            sources = (basis.align_source, basis.parallel_source)
        else:
            why = f"lcm(1 MiB, the {human(target)} write unit)"
            sources = (basis.align_source,)
        if start == MiB:
            notes.append(f"1 MiB is already a multiple of {human(target)}: the tools' default start is right for this drive")
    else:
        page = basis.align_bytes
        start = lcm(MiB, page)
        why = f"lcm(1 MiB, the {human(page)} page): page alignment" + (" only" if fallback else "; no unit beyond a page")
        sources = (basis.align_source,)
    if limits is not None and not limits.sectors_assumed:
        sector = limits.logical
        sector_src = limits.source("logical_block_size")
    else:
        sector = 512
        sector_src = Source("logical sector", 512, "B", "option", origin="assumed, no --device")
        warnings.append(f"the logical sector size is assumed to be 512 B (no --device): on a 4Kn drive use "
                        f"start={start // 4096} instead")
    device = ctx.device
    if limits is not None and limits.partition:
        device = f"/dev/{limits.disk}"
        warnings.append(f"{limits.partition} is a partition: partitioning applies to the whole disk, so the commands "
                        f"name {device}")
    notes.insert(0, f"both commands replace {device}'s partition table (to add a partition to an existing table: "
                    "sfdisk --append)")
    first_sector = start // sector
    sector_opt = Option.of("start", first_sector, "sectors", f"{human(start)} / {sector} B sectors: {why}",
                           *sources, sector_src, fallback=fallback)
    mib_opt = Option.of("start", start // MiB, "MiB", why, *sources, fallback=fallback)
    sfdisk = Command(("sfdisk", device), (sector_opt,),
                     "partition table with one partition (sfdisk reads the script on stdin)",
                     stdin=f"label: gpt\nstart={first_sector}\n")
    parted = Command(("parted", "--script", "-a", "optimal", device, "mklabel", "gpt", "mkpart", "primary",
                      f"{start // MiB}MiB", "100%"), (mib_opt,), "the same with parted")
    notes.append("queue limits in charz do not include alignment_offset; if /sys/block/DEV/alignment_offset is not 0, "
                 "the tools shift the start by it and so should you")
    auto = {o.name: o.value for o in default.options}
    disagreements = ()
    if default.known and (auto["start"] != start or start % auto["align"]):
        disagreements = (f"partition start: sfdisk alone → {human(auto['start'])}, parted -a optimal → "
                         f"{human(auto['align'])} alignment; charz → {human(start)}",)
    headline = f"first partition at {human(start)} (sector {first_sector} of {sector} B)"
    return Advice(TARGET, basis.kind, headline, (sfdisk, parted), default, disagreements, tuple(notes), tuple(warnings))

"""ext4: ``mkfs.ext4 -b B -E stride=S,stripe_width=W DEV``.

Rules
-----
* ``stride`` is in file-system blocks: write unit / block size (MXP: 32 KiB / 4 KiB = 8).
  mke2fs(8): "the number of blocks read or written to disk before moving to the next
  disk"; for one SSD the "disk" is the group of packages one unit occupies.  Without a
  stripe width the ext4 allocator aligns to the stride, so files start on unit
  boundaries and no block group's bitmaps share a unit with data.
* ``stripe_width`` = stride × ``n_step``: the blocks that keep every package busy
  (MXP: 8 × 4 = 32 blocks = 128 KiB).  mke2fs requires it to be a multiple of the stride.
* A unit of one page (X-25M, 840) → ``-b B`` alone (page-aligned defaults); a page larger
  than the block gets ``stride`` = page / block.  Undetermined unit → the same, flagged
  as a fallback, and only with a known page size.
* A block size that does not divide the unit → no ``-E`` at all (stride would be
  fractional): use 4 KiB blocks.

What mke2fs does alone (``misc/mke2fs.c``, ``get_device_geometry``): ``min_io`` =
``minimum_io_size`` (or the physical sector when that exceeds the block), ``opt_io`` =
``optimal_io_size`` (else ``min_io``); stride = min_io / block when larger than the block
(``set_raid_stride = always``).  Since e2fsprogs 1.47.3 (commit b61f182b, 2025) the
stripe width is taken from opt_io **only on rotational disks** (``set_raid_stripe =
disk``): "for SSD-based RAID arrays, trying to do raid-aligned allocations is not worth
it".  Older mke2fs took it on any disk.  On a typical SSD (minimum_io_size 512 or 4096,
optimal_io_size 0) mke2fs therefore sets neither.
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, PAGE, UNIT
from charz.tune._context import Context, no_limits, nothing_to_advise
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, Command, KernelDefault, Option
from charz.tune._sizes import human

TARGET = "ext4"


def mke2fs_default(limits: KernelLimits | None, block_bytes: int) -> KernelDefault:
    """stride/stripe_width mkfs.ext4 would set from the queue limits (e2fsprogs ≥ 1.47.3).

    Example
    -------
    >>> from charz.tune._limits import with_overrides
    >>> mke2fs_default(with_overrides(None, min_io_bytes=4096, opt_io_bytes=0), 4096).summary
    'mkfs.ext4 alone sets no stride (minimum_io_size 4096 B is not above the 4096 B block) and no stripe_width (optimal_io_size 0 B; non-rotational)'
    """
    if limits is None:
        return no_limits("mke2fs sets stride = minimum_io_size / block when larger than the block; "
                         "stripe_width = optimal_io_size / block only on rotational disks (e2fsprogs ≥ 1.47.3)")
    psector = limits.physical
    min_io = limits.min_io or (psector if psector > block_bytes else 0)
    opt_io = limits.opt_io or min_io or (psector if psector > block_bytes else 0)
    options = []
    if min_io > block_bytes:
        stride_text = f"stride={min_io // block_bytes}"
        options.append(Option.of("stride", min_io // block_bytes, "fs blocks", "minimum_io_size / block",
                                 limits.source("minimum_io_size")))
    else:
        stride_text = f"no stride (minimum_io_size {limits.min_io} B is not above the {block_bytes} B block)"
    rotational = "rotational" if limits.queue.rotational else "non-rotational"
    if opt_io > block_bytes and limits.queue.rotational:
        stripe_text = f"stripe_width={opt_io // block_bytes} (optimal_io_size {opt_io} B; rotational)"
        options.append(Option.of("stripe_width", opt_io // block_bytes, "fs blocks", "optimal_io_size / block",
                                 limits.source("optimal_io_size")))
    elif opt_io > block_bytes:
        stripe_text = (f"no stripe_width (non-rotational; mke2fs before 1.47.3 would set "
                       f"stripe_width={opt_io // block_bytes} from optimal_io_size {opt_io} B)")
    else:
        stripe_text = f"no stripe_width (optimal_io_size {limits.opt_io} B; {rotational})"
    return KernelDefault(f"mkfs.ext4 alone sets {stride_text} and {stripe_text}", tuple(options))


def _compare(ours: dict[str, int], default: KernelDefault) -> tuple[str, ...]:
    if not default.known:
        return ()
    theirs = {o.name: o.value for o in default.options}
    out = []
    for name in ("stride", "stripe_width"):
        if ours.get(name) != theirs.get(name):
            mine = f"{name}={ours[name]}" if name in ours else f"no {name}"
            alone = f"{name}={theirs[name]}" if name in theirs else f"no {name}"
            out.append(f"ext4 {name}: mkfs.ext4 alone → {alone}; charz → {mine}")
    return tuple(out)


def advise_ext4(ctx: Context) -> Advice:
    """The mkfs.ext4 command for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> advise(preset_profile("mxp"), fs="ext4", limits=None).commands[0].display
    'mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 DEV'
    """
    basis, block = ctx.basis, ctx.block_size_bytes
    default = mke2fs_default(ctx.limits, block)
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes: list[str] = []
    extended: list[Option] = []
    align = basis.align_bytes
    if align % block:
        warnings.append(f"the {human(block)} block does not divide the {human(align)} "
                        f"{'write unit' if basis.kind == UNIT else 'page'}: no stride can express it; use --block-size 4k")
    elif basis.kind == UNIT:
        stride = align // block
        if stride > 1:
            extended.append(Option.of("stride", stride, "fs blocks",
                                      f"{human(align)} write unit / {human(block)} block: "
                                      "allocations start on unit boundaries",
                                      basis.align_source, ctx.block_source))
        n = basis.parallel_units
        if n and n > 1:
            extended.append(Option.of("stripe_width", stride * n, "fs blocks",
                                      f"stride {stride} × {n} units in parallel = {human(align * n)}, "
                                      "the size that keeps every package busy", basis.parallel_source))
            notes.append("mke2fs ≥ 1.47.3 no longer sets stripe_width on SSDs by itself: the ext4 allocator works hard "
                         "to find stripe-aligned space; if that shows on a full, fragmented file system, keep stride and "
                         f"drop stripe_width (tune2fs -E stripe_width=0 {ctx.device})")
        elif n == 1:
            notes.append("n_step is 1: one unit already keeps every package busy, so stripe_width would equal stride")
    else:
        if align > block:
            extended.append(Option.of("stride", align // block, "fs blocks",
                                      f"{human(align)} page / {human(block)} block: page alignment only",
                                      basis.align_source, ctx.block_source, fallback=basis.kind == FALLBACK))
        if basis.kind == PAGE:
            notes.append("no I/O unit larger than a page (003 Table 2 '-'): the page-aligned defaults are the advice; "
                         "003 Table 4 found no alignment gain on such drives")
    argv = ["mkfs.ext4", "-b", str(block)]
    if extended:
        argv += ["-E", ",".join(f"{o.name}={o.value}" for o in extended)]
    argv.append(ctx.device)
    options = (Option.of("-b", block, "B", "file-system block size", ctx.block_source), *extended)
    if extended:
        notes.append("on an existing ext4, tune2fs -E " + ",".join(f"{o.name}={o.value}" for o in extended)
                     + f" {ctx.device} sets the same without reformatting (it guides new allocations only)")
    ours = {o.name: o.value for o in extended}
    headline = ("mkfs.ext4 with " + ", ".join(f"{o.name}={o.value}" for o in extended)) if extended else \
        "mkfs.ext4 with its defaults (-b %d)" % block
    return Advice(TARGET, basis.kind, headline, (Command(tuple(argv), options, "make the file system"),),
                  default, _compare(ours, default), tuple(notes), tuple(warnings))

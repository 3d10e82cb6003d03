"""XFS: ``mkfs.xfs -b size=B -d su=U,sw=N DEV``.

Rules
-----
* ``su`` (stripe unit, bytes, k suffix) = the write unit; ``sw`` (a multiplier) =
  ``n_step``, so the stripe width su × sw is the size that keeps every package busy
  (MXP: ``su=32k,sw=4`` = 128 KiB).  mkfs.xfs(8): su must be a multiple of the block
  size — else mkfs.xfs stops ("Stripe unit ... is not a multiple of the block size"),
  so charz then gives no ``-d`` and says why.  ``n_step`` unknown → ``sw=1`` (XFS needs
  a width whenever it has a unit: ``xfs_validate_stripe_geometry``), flagged.
* A unit of one page (X-25M, 840) → no ``-d`` (page-aligned defaults).  ``-d noalign``
  is the explicit way to say "no stripe": it matters only when the kernel reports a
  geometry mkfs.xfs would adopt; charz then names the choice (keeping it costs little,
  dropping it loses nothing measurable).  A page larger than the block → ``su=page,sw=1``.
* Undetermined unit → the page rule, flagged as a fallback, only with a known page size.
* Stripe units above 256 KiB make mkfs.xfs fall back to a 32 KiB log stripe unit (noted).

What mkfs.xfs does alone (``libxfs/topology.c: blkid_get_topology``, ``mkfs/xfs_mkfs.c``):
sunit = ``minimum_io_size``, swidth = ``optimal_io_size``; both are dropped when either
equals the physical sector size, when the pair is invalid (a unit without a width, a
width that is not a multiple of the unit), when they are not multiples of the block
size, and on data volumes under 1 GiB.  A typical SSD (4096/0) gets no alignment.
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, PAGE, UNIT
from charz.tune._context import Context, no_limits, nothing_to_advise
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, Command, KernelDefault, Option
from charz.tune._sizes import KiB, human, suffixed

TARGET = "xfs"
LOG_SUNIT_MAX_BYTES = 256 * KiB


def mkfs_xfs_default(limits: KernelLimits | None, block_bytes: int) -> KernelDefault:
    """su/sw mkfs.xfs would take from the queue limits.

    Example
    -------
    >>> from charz.tune._limits import with_overrides
    >>> mkfs_xfs_default(with_overrides(None, min_io_bytes=32768, opt_io_bytes=131072), 4096).summary
    'mkfs.xfs alone sets su=32k,sw=4 (minimum_io_size 32768 B, optimal_io_size 131072 B) (on data volumes of 1 GiB or more)'
    """
    if limits is None:
        return no_limits("mkfs.xfs takes su = minimum_io_size and su × sw = optimal_io_size unless either equals "
                         "the physical sector size")
    sunit, swidth, psector = limits.min_io, limits.opt_io, limits.physical
    pair = f"(minimum_io_size {sunit} B, optimal_io_size {swidth} B)"
    if sunit == psector or swidth == psector:
        return KernelDefault(f"mkfs.xfs alone sets no stripe {pair}: a value equal to the physical sector size "
                             f"({psector} B) means 'nothing to report'")
    if not sunit and not swidth:
        return KernelDefault(f"mkfs.xfs alone sets no stripe {pair}")
    if not sunit or not swidth or sunit > swidth or swidth % sunit:
        return KernelDefault(f"mkfs.xfs alone sets no stripe {pair}: it ignores the pair as invalid "
                             "('Volume reports invalid stripe unit')")
    if sunit % block_bytes or swidth % block_bytes:
        return KernelDefault(f"mkfs.xfs alone sets no stripe {pair}: not a multiple of the {block_bytes} B block")
    options = (Option.of("su", sunit, "B", "minimum_io_size", limits.source("minimum_io_size")),
               Option.of("sw", swidth // sunit, "", "optimal_io_size / minimum_io_size", limits.source("optimal_io_size")))
    return KernelDefault(f"mkfs.xfs alone sets su={suffixed(sunit)},sw={swidth // sunit} {pair} "
                         "(on data volumes of 1 GiB or more)", options)


def _compare(ours: dict[str, int], default: KernelDefault) -> tuple[str, ...]:
    if not default.known:
        return ()
    theirs = {o.name: o.value for o in default.options}
    if ours == theirs:
        return ()
    alone = f"su={suffixed(theirs['su'])},sw={theirs['sw']}" if theirs else "no stripe"
    mine = f"su={suffixed(ours['su'])},sw={ours['sw']}" if ours else "no stripe"
    return (f"xfs stripe: mkfs.xfs alone → {alone}; charz → {mine}",)


def advise_xfs(ctx: Context) -> Advice:
    """The mkfs.xfs command for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> advise(preset_profile("mxp"), fs="xfs", limits=None).commands[0].display
    'mkfs.xfs -b size=4096 -d su=32k,sw=4 DEV'
    """
    basis, block = ctx.basis, ctx.block_size_bytes
    default = mkfs_xfs_default(ctx.limits, block)
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes: list[str] = []
    data: list[Option] = []
    align = basis.align_bytes
    fallback = basis.kind == FALLBACK
    if align % block:
        warnings.append(f"mkfs.xfs needs su to be a multiple of the {human(block)} block; the {human(align)} "
                        f"{'write unit' if basis.kind == UNIT else 'page'} is not: use --block-size 4k")
    elif basis.kind == UNIT:
        data.append(Option.of("su", align, "B", f"stripe unit = the {human(align)} write unit", basis.align_source))
        n = basis.parallel_units
        if n:
            data.append(Option.of("sw", n, "units", f"{n} units in parallel: su × sw = {human(align * n)} keeps every "
                                  "package busy", basis.parallel_source))
        else:
            data.append(Option.of("sw", 1, "units", "n_step is undetermined: XFS needs a width, the unit alone is "
                                  "the only measured size", basis.align_source, fallback=True))
        if align > LOG_SUNIT_MAX_BYTES:
            notes.append(f"su {human(align)} is above 256 KiB: mkfs.xfs uses a 32 KiB log stripe unit instead "
                         "(it says so); that is expected")
    elif align > block:
        data.append(Option.of("su", align, "B", f"stripe unit = the {human(align)} page: page alignment only",
                              basis.align_source, fallback=fallback))
        data.append(Option.of("sw", 1, "units", "one page per stripe", basis.align_source, fallback=fallback))
    if basis.kind in (PAGE, FALLBACK) and not data:
        would_align = bool(default.options)
        notes.append("no stripe: with no unit beyond the page there is nothing to align to"
                     + ("; mkfs.xfs -d noalign DEV would also stop it taking su/sw from the kernel — keeping the kernel's "
                        "costs little, dropping it loses nothing measurable" if would_align else
                        "; -d noalign is not needed unless the kernel reports a stripe (then mkfs.xfs would follow it)"))
    argv = ["mkfs.xfs", "-b", f"size={block}"]
    if data:
        argv += ["-d", ",".join(f"{o.name}={suffixed(o.value) if o.name == 'su' else o.value}" for o in data)]
    argv.append(ctx.device)
    options = (Option.of("-b size", block, "B", "file-system block size", ctx.block_source), *data)
    ours = {o.name: o.value for o in data}
    headline = (f"mkfs.xfs with su={suffixed(ours['su'])},sw={ours['sw']}" if data
                else f"mkfs.xfs with its defaults (-b size={block})")
    return Advice(TARGET, basis.kind, headline, (Command(tuple(argv), options, "make the file system"),),
                  default, _compare(ours, default), tuple(notes), tuple(warnings))

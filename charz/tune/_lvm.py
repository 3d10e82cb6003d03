"""LVM: ``pvcreate --dataalignment A DEV``.

Rules
-----
* ``--dataalignment`` (pvcreate(8): "align the start of a PV data area with a multiple
  of this number") = unit × ``n_step`` (the size that keeps every package busy) when that
  is a power of two dividing the 4 MiB default extent — then every LV, which starts on an
  extent boundary, starts on such a boundary too.  Otherwise the write unit itself when it
  divides the extent, and a warning that ``vgcreate -s`` must be a multiple of it.
  MXP, Q Pro: 128 KiB.  The default first extent at 1 MiB is already a multiple, so the
  option changes nothing there but pins it against odd kernel values (below).
* One-page unit → defaults (1 MiB is page-aligned).  Undetermined unit → defaults, flagged.
* Check the result with ``pvs -o +pe_start``.

What LVM does alone (lvm2 ``lib/metadata/metadata.c: set_pe_align``): the first PE at
1 MiB (``default_data_alignment``); with ``data_alignment_detection`` (on by default) the
alignment is *replaced* by ``minimum_io_size`` and then by ``optimal_io_size`` whenever the
current value is not a multiple of them — so a drive reporting e.g. 96 KiB would move it.
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, UNIT
from charz.tune._context import Context, no_limits, nothing_to_advise
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, Command, KernelDefault, Option
from charz.tune._sizes import MiB, human, is_pow2, suffixed

TARGET = "lvm"
PE_ALIGN_DEFAULT_BYTES = MiB
EXTENT_DEFAULT_BYTES = 4 * MiB


def lvm_default(limits: KernelLimits | None) -> KernelDefault:
    """Where pvcreate puts the first extent by itself.

    Example
    -------
    >>> from charz.tune._limits import with_overrides
    >>> lvm_default(with_overrides(None, min_io_bytes=4096, opt_io_bytes=0)).options[0].value
    1048576
    """
    if limits is None:
        return no_limits("the first extent at 1 MiB, moved to minimum_io_size / optimal_io_size when 1 MiB is not a "
                         "multiple of them")
    align, why, src = PE_ALIGN_DEFAULT_BYTES, "default_data_alignment 1 MiB", None
    for attr, value in (("minimum_io_size", limits.min_io), ("optimal_io_size", limits.opt_io)):
        if value and align % value:
            align, why, src = value, f"{attr} (1 MiB is not a multiple of it)", limits.source(attr)
    option = Option.of("dataalignment", align, "B", why, *([src] if src else []))
    return KernelDefault(f"pvcreate alone aligns the first extent to {human(align)} ({why})", (option,))


def advise_lvm(ctx: Context) -> Advice:
    """The pvcreate command for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> advise(preset_profile("mxp"), fs="lvm", limits=None).commands[0].display
    'pvcreate --dataalignment 128k DEV'
    """
    basis = ctx.basis
    default = lvm_default(ctx.limits)
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes = ["check where the data starts with pvs -o +pe_start"]
    argv = ["pvcreate"]
    options: list[Option] = []
    if basis.kind == UNIT:
        unit, full = basis.align_bytes, basis.full_bytes
        if full and is_pow2(full) and EXTENT_DEFAULT_BYTES % full == 0:
            align = full
            option = Option.of("dataalignment", full, "B", f"{human(unit)} unit × {basis.parallel_units} in parallel: "
                               "LVs start where a write keeps every package busy", basis.align_source, basis.parallel_source)
        else:
            align = unit
            option = Option.of("dataalignment", unit, "B", f"the {human(unit)} write unit: LVs start on unit boundaries",
                               basis.align_source)
            if full:
                notes.append(f"unit × n_step = {human(full)} is not a power of two dividing the 4 MiB extent; "
                             "aligning to the unit instead")
        if EXTENT_DEFAULT_BYTES % align:
            warnings.append(f"the default 4 MiB extent is not a multiple of {human(align)}: give vgcreate -s a "
                            f"multiple of {human(align)}, or LVs after the first will not be aligned")
        options.append(option)
        argv += ["--dataalignment", suffixed(align)]
        if PE_ALIGN_DEFAULT_BYTES % align == 0:
            notes.append(f"the default first extent at 1 MiB is already a multiple of {human(align)}; the option "
                         "pins it against kernel values that would move it")
    else:
        notes.append("no unit beyond a page: the default 1 MiB data alignment is page-aligned; keep it"
                     + (" (fallback: the unit is undetermined)" if basis.kind == FALLBACK else ""))
    argv.append(ctx.device)
    disagreements = ()
    auto = {o.name: o.value for o in default.options}.get("dataalignment")
    if options and auto is not None and auto % options[0].value:
        disagreements = (f"lvm data alignment: pvcreate alone → {human(auto)}; charz → {human(options[0].value)}",)
    headline = f"pvcreate --dataalignment {suffixed(options[0].value)}" if options else "pvcreate with its defaults"
    return Advice(TARGET, basis.kind, headline, (Command(tuple(argv), tuple(options), "initialise the physical volume"),),
                  default, disagreements, tuple(notes), tuple(warnings))

"""ZFS: ``zpool create -o ashift=A POOL DEV`` and ``zfs set recordsize=R POOL``.

Rules
-----
* ``recordsize`` (the largest block of a file; a power of two from 512 B, default 128K)
  = the smallest power of two ≥ the write unit.  This is 003 §6's "aligning the record
  size with the I/O unit": records of 32 KiB instead of 4 KiB gave +123 % (MXP) and
  +201 % (Q Pro), because a record smaller than the unit makes the drive read the rest of
  the unit and write it again (§5.5, Fig. 16).  A unit that is not a power of two (e.g.
  96 KiB = 3 × 32 KiB) cannot be matched: records then straddle units (warned).  Above
  1 MiB the ``large_blocks`` feature and ``zfs_max_recordsize`` are needed (warned).
  ZFS's default 128K is also fine when it is a multiple of the unit (said so).
* ``ashift`` (log2 of the smallest block ZFS writes, 9–16) = log2 of the flash page, and
  never below the logical sector.  Blocks smaller than a page make the drive program
  partial pages.  ashift is fixed when the vdev is created.  Raising it to the unit
  (15 for 32 KiB) would remove all sub-unit writes but multiplies the space of small
  blocks and metadata — not recommended, only mentioned.
* A unit of one page (X-25M, 840) → only ashift (recordsize stays the default).
  Undetermined unit → ashift from the page only, flagged as a fallback.
* No page size in the profile → no ashift (auto-detection is then all there is).

What ZFS does alone (OpenZFS ``vdev.c: vdev_ashift_optimize``; ``vdev_disk.c``): ashift =
log2(``physical_block_size``) when it is above the logical sector and at most
``zfs_vdev_max_auto_ashift`` = 14 (commit 44cec45f7 lowered the cap to 14 because some
NVMe drives report a 64 KiB preferred write alignment); otherwise log2 of the logical
sector (at least 9).  A 512e drive that reports 512-byte physical sectors gets ashift 9.
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, UNIT
from charz.tune._context import Context, no_limits, nothing_to_advise
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, Command, KernelDefault, Option
from charz.tune._sizes import MiB, KiB, human, is_pow2, next_pow2, suffixed

TARGET = "zfs"
ASHIFT_MIN, ASHIFT_MAX, AUTO_ASHIFT_MAX = 9, 16, 14
RECORDSIZE_DEFAULT_BYTES = 128 * KiB
RECORDSIZE_MIN_BYTES = 512


def _shift(n: int) -> int:
    return max(n, 1).bit_length() - 1


def zpool_default(limits: KernelLimits | None) -> KernelDefault:
    """The ashift ``zpool create`` picks by itself from the sector sizes.

    Example
    -------
    >>> from charz.tune._limits import with_overrides
    >>> zpool_default(with_overrides(None, min_io_bytes=512, opt_io_bytes=0)).options[0].value
    9
    """
    if limits is None:
        return no_limits("ashift = log2(physical_block_size) when above the logical sector and ≤ 14, else log2(logical)")
    logical, physical = _shift(max(limits.logical, 512)), _shift(max(limits.physical, 512))
    if logical < physical <= AUTO_ASHIFT_MAX:
        ashift, why = physical, "log2(physical_block_size)"
        src = limits.source("physical_block_size")
    else:
        ashift = max(ASHIFT_MIN, logical)
        why = ("log2(logical_block_size): the physical sector is above the auto-detection cap of 14"
               if physical > AUTO_ASHIFT_MAX else "log2(logical_block_size)")
        src = limits.source("logical_block_size")
    return KernelDefault(f"zpool create alone picks ashift={ashift} ({why}); recordsize stays 128K",
                         (Option.of("ashift", ashift, "", why, src),))


def advise_zfs(ctx: Context) -> Advice:
    """zpool/zfs commands for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> [c.display for c in advise(preset_profile("qpro"), fs="zfs", limits=None).commands]
    ['zpool create -o ashift=13 POOL DEV', 'zfs set recordsize=32K POOL']
    """
    basis = ctx.basis
    default = zpool_default(ctx.limits)
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes: list[str] = []
    disagreements: list[str] = []
    commands: list[Command] = []
    fallback = basis.kind == FALLBACK
    page_fact = basis.facts.page_size

    if page_fact.known:
        page = page_fact.value
        ashift = _shift(next_pow2(page))
        why = f"log2 of the {human(page)} flash page: no ZFS block is smaller than a page"
        if not is_pow2(page):
            warnings.append(f"the page size {page} B is not a power of two; ashift rounds it up to {human(1 << ashift)}")
        sources = [page_fact.source()]
        if ctx.limits is not None and not ctx.limits.sectors_assumed and _shift(ctx.limits.logical) > ashift:
            ashift = _shift(ctx.limits.logical)
            why = f"log2 of the {human(ctx.limits.logical)} logical sector (ZFS cannot write less)"
            sources.append(ctx.limits.source("logical_block_size"))
        if ashift > ASHIFT_MAX:
            warnings.append(f"the page needs ashift {ashift}, above ZFS's maximum {ASHIFT_MAX}; using {ASHIFT_MAX}")
            ashift = ASHIFT_MAX
        if ashift > AUTO_ASHIFT_MAX:
            notes.append(f"ashift={ashift} is above the auto-detection cap of {AUTO_ASHIFT_MAX}: it has to be given by hand")
        ashift_opt = Option.of("ashift", ashift, "", why, *sources, fallback=fallback)
        commands.append(Command(("zpool", "create", "-o", f"ashift={ashift}", "POOL", ctx.device), (ashift_opt,),
                                "create the pool (ashift is fixed for the life of the vdev)"))
        auto = {o.name: o.value for o in default.options}.get("ashift")
        if auto is not None and auto != ashift:
            disagreements.append(f"zfs ashift: zpool create alone → ashift={auto}; charz → ashift={ashift}")
    else:
        warnings.append("given.page_size_bytes is not in the profile: no ashift advice (charz analyze --page-size); "
                        "zpool create then auto-detects it from the sector sizes")

    if basis.kind == UNIT:
        unit = basis.align_bytes
        record = max(next_pow2(unit), RECORDSIZE_MIN_BYTES)
        why = (f"smallest power of two ≥ the {human(unit)} write unit: no record makes the drive "
               "read-modify-write (003 §6)")
        if record % unit:
            warnings.append(f"the {human(unit)} unit is not a power of two: {human(record)} records straddle unit "
                            "boundaries; ZFS cannot do better")
        if record > MiB:
            warnings.append("recordsize above 1M needs the large_blocks pool feature "
                            f"(and zfs_max_recordsize ≥ {human(record)})")
        rec_opt = Option.of("recordsize", record, "B", why, basis.align_source)
        commands.append(Command(("zfs", "set", f"recordsize={suffixed(record, upper=True)}", "POOL"), (rec_opt,),
                                "set the record size (inherited by new datasets; applies to newly written files)"))
        if record < RECORDSIZE_DEFAULT_BYTES and RECORDSIZE_DEFAULT_BYTES % unit == 0:
            full = basis.full_bytes
            notes.append("ZFS's default 128K is also a whole number of units"
                         + (f" ({RECORDSIZE_DEFAULT_BYTES // unit} × {human(unit)}"
                            + (f"; {human(full)} keeps every package busy" if full else "") + ")")
                         + f": keep it for datasets of large sequential files, use {suffixed(record, upper=True)} "
                         "where records are rewritten in place (databases, VM images)")
        if is_pow2(unit) and _shift(unit) <= ASHIFT_MAX:
            notes.append(f"ashift={_shift(unit)} would make every ZFS block a whole unit, at the cost of "
                         f"{human(unit)} for every small block and metadata: not recommended")
    else:
        notes.append("recordsize: no unit beyond a page to match; the default 128K stands")
    read = basis.facts.read_unit
    record_now = next((o.value for c in commands for o in c.options if o.name == "recordsize"), RECORDSIZE_DEFAULT_BYTES)
    if read.known and read.value > record_now:
        # the drive reads whole read units (003 §4.1): a smaller record still costs a full unit per read
        notes.append(f"the drive reads in {human(read.value)} units ({read.key}, {read.confidence}): records of "
                     f"{human(record_now)} each cost a full read unit")

    if ctx.limits is not None and ctx.limits.sectors_assumed and page_fact.known:
        notes.append("sector sizes were assumed (no --device): the auto-ashift comparison is indicative only")
    headline = ", ".join(o.name + "=" + (suffixed(o.value, upper=True) if o.name == "recordsize" else str(o.value))
                         for c in commands for o in c.options) or "no ZFS settings"
    return Advice(TARGET, basis.kind, "zfs " + headline, tuple(commands), default, tuple(disagreements),
                  tuple(notes), tuple(warnings))

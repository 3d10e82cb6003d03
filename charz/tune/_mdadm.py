"""mdadm: ``mdadm --create MD --level=LEVEL --raid-devices=N --chunk=32K MEMBERS...``.

Rules
-----
* ``--chunk`` (KiB; K/M suffixes; a power of two for RAID 4/5/6/10 and a multiple of
  4 KiB, mdadm(8)) = the smallest power of two ≥ the write unit, at least 4 KiB.  003 §6
  ends on exactly this: "aligning the stripe size to I/O unit size of SSD".  A chunk is
  then one whole unit per member: no member ever receives a partial unit from md.  A
  unit that is not a power of two cannot be matched (warned: chunks straddle units).
  Larger powers of two (up to unit × n_step, which keeps every package of a member busy
  with one chunk; mdadm's default 512K) are also whole units — said so.
* With ``data_disks`` (RAID 5/6 data members): the full stripe is chunk × data disks;
  writes of whole stripes spare md the parity read-modify-write.  charz prints the
  matching mkfs commands for the array (ext4 stride/stripe_width, XFS su/sw).  md
  exports the chunk as ``minimum_io_size`` and the stripe as ``optimal_io_size``, so
  mkfs.xfs finds them alone; mke2fs ≥ 1.47.3 takes only the stride on non-rotational
  arrays.
* One-page unit → the default chunk (512K is a multiple of the page).  Undetermined
  unit → the default chunk, flagged (a page-sized chunk would only add md overhead).

What mdadm does alone: ``--chunk`` defaults to 512 KiB; it does not consult the
members' queue limits.
"""

from __future__ import annotations

from charz.tune._basis import FALLBACK, NONE, UNIT
from charz.tune._context import Context, nothing_to_advise
from charz.tune._model import Advice, Command, KernelDefault, Option, Source
from charz.tune._sizes import KiB, human, next_pow2, suffixed

TARGET = "mdadm"
CHUNK_DEFAULT_BYTES = 512 * KiB
CHUNK_MIN_BYTES = 4 * KiB


def mdadm_default() -> KernelDefault:
    """mdadm's own chunk.

    >>> mdadm_default().options[0].value
    524288
    """
    tool = Source("mdadm default", None, "", "tool", origin="mdadm(8)")
    return KernelDefault("mdadm --create alone uses --chunk=512K; it does not read the members' queue limits",
                         (Option.of("chunk", CHUNK_DEFAULT_BYTES, "B", "mdadm's default chunk", tool),))


def _array_mkfs(ctx: Context, chunk: int, data_disks: int, chunk_source: Source) -> tuple[Command, ...]:
    block = ctx.block_size_bytes
    disks = Source("data disks", data_disks, "disks", "option", origin="--data-disks")
    commands = []
    if chunk % block == 0:
        stride = chunk // block
        opts = (Option.of("stride", stride, "fs blocks", f"chunk {human(chunk)} / {human(block)} block", chunk_source,
                          ctx.block_source),
                Option.of("stripe_width", stride * data_disks, "fs blocks", f"stride × {data_disks} data disks", disks))
        commands.append(Command(("mkfs.ext4", "-b", str(block), "-E", f"stride={stride},stripe_width={stride * data_disks}",
                                 "MD"), opts, "ext4 on the array"))
        opts = (Option.of("su", chunk, "B", "stripe unit = the chunk", chunk_source),
                Option.of("sw", data_disks, "disks", "data disks", disks))
        commands.append(Command(("mkfs.xfs", "-b", f"size={block}", "-d", f"su={suffixed(chunk)},sw={data_disks}", "MD"),
                                opts, "XFS on the array"))
    return tuple(commands)


def advise_mdadm(ctx: Context) -> Advice:
    """The mdadm chunk for the profile (see the module docstring for the rules).

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> advise(preset_profile("mxp"), fs="mdadm", limits=None).commands[0].display
    'mdadm --create MD --level=LEVEL --raid-devices=N --chunk=32K MEMBERS...'
    """
    basis = ctx.basis
    default = mdadm_default()
    if basis.kind == NONE:
        return nothing_to_advise(TARGET, ctx, default)
    warnings = list(ctx.basis_warnings())
    notes: list[str] = []
    argv = ["mdadm", "--create", "MD", "--level=LEVEL", "--raid-devices=N"]
    options: list[Option] = []
    if basis.kind == UNIT:
        unit = basis.align_bytes
        chunk = max(next_pow2(unit), CHUNK_MIN_BYTES)
        chunk_source = basis.align_source
        if chunk % unit:
            warnings.append(f"the {human(unit)} unit is not a power of two: {human(chunk)} chunks straddle unit "
                            "boundaries; md needs a power-of-two chunk")
        options.append(Option.of("chunk", chunk, "B", f"smallest power of two ≥ the {human(unit)} write unit: each "
                                 "member gets whole units (003 §6: stripe size = I/O unit)", chunk_source))
        argv.append(f"--chunk={suffixed(chunk, upper=True)}")
        full = basis.full_bytes
        if full and full > chunk:
            notes.append(f"any larger power of two is also whole units; {human(next_pow2(full))} "
                         f"(unit × n_step) keeps every package of a member busy with one chunk, and mdadm's default "
                         "512K is a multiple too")
    else:
        chunk = CHUNK_DEFAULT_BYTES
        chunk_source = Source("mdadm default", None, "", "tool", origin="mdadm(8)")
        notes.append("no unit beyond a page: mdadm's default 512K chunk is a whole number of pages; keep it"
                     + (" (fallback: the unit is undetermined)" if basis.kind == FALLBACK else ""))
    # --device names one member: it goes in the command, the others stay a placeholder
    argv += ["MEMBERS..."] if ctx.device == "DEV" else [ctx.device, "OTHERS..."]
    commands = [Command(tuple(argv), tuple(options), "create the array (replace MD, LEVEL, N and the members)")]
    if ctx.data_disks:
        stripe = chunk * ctx.data_disks
        notes.append(f"RAID 5/6 with {ctx.data_disks} data disks: the full stripe is {human(chunk)} × {ctx.data_disks} "
                     f"= {human(stripe)}; writes of whole stripes spare md the parity read-modify-write "
                     f"(--raid-devices = {ctx.data_disks + 1} for RAID 5, {ctx.data_disks + 2} for RAID 6)")
        notes.append("md reports the chunk as minimum_io_size and the stripe as optimal_io_size: mkfs.xfs takes them "
                     "alone; mke2fs ≥ 1.47.3 takes only the stride on an array of SSDs (non-rotational)")
        commands.extend(_array_mkfs(ctx, chunk, ctx.data_disks, chunk_source))
    if ctx.device != "DEV":
        notes.append(f"{ctx.device} is one member; list the others in place of OTHERS...")
    disagreements = (f"mdadm chunk: mdadm alone → 512K; charz → {suffixed(chunk, upper=True)}",) if options else ()
    headline = f"mdadm --chunk={suffixed(chunk, upper=True)}" if options else "mdadm with its default chunk (512K)"
    return Advice(TARGET, basis.kind, headline, tuple(commands), default, disagreements, tuple(notes), tuple(warnings))

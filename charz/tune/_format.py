"""Advice as text a person reads (pure: strings in, strings out)."""

from __future__ import annotations

import textwrap

from collections.abc import Sequence

from charz.tune._basis import FALLBACK, NONE
from charz.tune._limits import describe_limits
from charz.tune._model import PLACEHOLDERS, Advice, Option
from charz.tune._report import RUNS_NOTHING, TuneReport
from charz.tune._sizes import human


def _option_line(o: Option) -> str:
    value = human(o.value) if o.unit == "B" and isinstance(o.value, int) else f"{o.value}" + (f" {o.unit}" if o.unit else "")
    return f"      {o.name} = {value}: {o.reason}"


def format_advice(advice: Advice, *, said: frozenset[str] = frozenset()) -> str:
    """One target's block: commands with one line per option, the tool's default, disagreements, notes.

    Example
    -------
    >>> from charz.tune import advise
    >>> from charz.tune.testing import preset_profile
    >>> print(format_advice(advise(preset_profile("mxp"), fs="xfs", limits=None)))  # doctest: +ELLIPSIS
    == xfs: mkfs.xfs with su=32k,sw=4
      $ mkfs.xfs -b size=4096 -d su=32k,sw=4 DEV
          -b size = 4 KiB: file-system block size; from block size = 4 KiB (--block-size default)
          su = 32 KiB: stripe unit = the 32 KiB write unit; from results.write_io_unit_bytes = 32 KiB (inferred, high)
          sw = 4 units: 4 units in parallel: su × sw = 128 KiB keeps every package busy; from results.n_step = 4 steps (measured, high)
      kernel default: unknown without queue limits ...
    """
    tag = {FALLBACK: " [FALLBACK]", NONE: " [NO ADVICE]"}.get(advice.basis, "")
    lines = [f"== {advice.target}{tag}: {advice.headline}"]
    lines += [textwrap.fill(f"  ✗ refused: {r}", 80, subsequent_indent="    ", break_long_words=False,
                            break_on_hyphens=False) for r in advice.refused]
    for w in advice.warnings:
        # a caveat the report's header already printed is not repeated per target
        lines.append("  ! (see the basis above)" if w in said else f"  ! {w}")
    for command in advice.commands:
        if command.purpose and len(advice.commands) > 1:
            lines.append(f"  # {command.purpose}")
        lines.append(f"  $ {command.display}")
        lines.extend(_option_line(o) for o in command.options)
    lines.append(f"  kernel default: {advice.kernel_default.summary}")
    for d in advice.disagreements:
        lines.append(f"  ≠ {d}")
    for n in advice.notes:
        lines.append(f"  · {n}")
    if advice.placeholders:
        lines.append("  replace: " + "; ".join(f"{p} = {PLACEHOLDERS[p]}" for p in advice.placeholders))
    return "\n".join(lines)


def _facts_lines(report: TuneReport) -> list[str]:
    f = report.basis.facts
    lines = [f"drive     {f.model} (serial {f.serial})", f"basis     {report.basis.summary}"]
    given = [f"page {human(f.page_size.value)} ({f.page_size.key})" if f.page_size.known else "page size not given"]
    if f.packages.known:
        given.append(f"{f.packages.value} packages ({f.packages.key})")
    if f.packages_per_unit.known:
        given.append(f"packages per unit {f.packages_per_unit.value} ({f.packages_per_unit.key}, "
                     f"{f.packages_per_unit.confidence})")
    lines.append("given     " + "; ".join(given))
    r = f.read_unit
    lines.append("read unit " + (f"{human(r.value)} ({r.key}, {r.confidence})" if r.known
                                 else f"undetermined, not used: {r.evidence or 'no evidence'}"))
    return lines


def format_report(report: TuneReport | Sequence[Advice]) -> str:
    """The whole ``charz tune`` output: the notice that nothing runs, the shared facts, each target.

    Example
    -------
    >>> from charz.tune import build_report
    >>> from charz.tune.testing import preset_profile
    >>> print(format_report(build_report(preset_profile("x25m"), fs="ext4", limits=None)).splitlines()[0])
    charz tune prints commands; it runs nothing. Check the device in every command before you run it: they erase what is on it.
    """
    if not isinstance(report, TuneReport):
        return "\n\n".join([RUNS_NOTHING, *(format_advice(a) for a in report)])
    lines = [RUNS_NOTHING]
    if report.profile_path:
        lines.append(f"profile   {report.profile_path}")
    lines += _facts_lines(report)
    header_caveats = ((report.basis.missing,) if report.basis.missing else ()) + report.basis.warnings
    lines.extend(f"  ! {w}" for w in header_caveats)
    if report.limits is None:
        lines.append("kernel    no queue limits (give --device DEV to read them, or --min-io/--opt-io)")
    else:
        lines.append(f"kernel    {report.limits.origin}: {describe_limits(report.limits)}")
        lines.extend(f"  ≠ {d}" for d in report.limit_disagreements)
    said = frozenset(header_caveats)
    return "\n\n".join(["\n".join(lines), *(format_advice(a, said=said) for a in report.advice)])

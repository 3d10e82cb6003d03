"""``charz wa``'s result as text and JSON (pure): the table, its notes and warnings.

``format_summary`` and ``format_json`` take what a WA archive holds (``charz.wa.read_wa``);
``wrap`` folds a line to 80 columns with an indented continuation.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # charz.wa loads numpy: the CLI imports this module at start (tests/system/test_cli_help.py)
    from charz.wa import WaRecord, WaSettings

__all__ = ["format_json", "format_summary", "wrap"]


def _fmt_bytes(n: float) -> str:
    for unit, s in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= s:
            return f"{n / s:.4g} {unit}"
    return f"{n:.0f} B"


def format_json(settings: WaSettings, records: Mapping[int, WaRecord], out=None) -> dict:
    """The result as one JSON document (pure): per step its counts per die, WA with its
    uncertainty and origin, trust, errors and warnings; the run's notes once."""
    steps = []
    for i in sorted(records):
        r = records[i]
        est = r.estimate
        steps.append({
            "index": i, "label": r.label, "kind": r.step.kind, "file": r.step.file,
            "trusted": r.trusted, "errors": list(r.errors), "warnings": list(r.warnings),
            "programs": [d.programs for d in r.dies] or [r.counts.programs],
            "channels": [d.channel for d in r.dies],
            "erases_counted_apart": [d.erases_in_window for d in r.dies],
            "die_spread": (r.die_spread or {}).get("spread"),
            "samplerate_hz": r.counts.samplerate_hz, "settled": r.settled,
            "logical_bytes": r.logical_bytes, "volume_evidence": r.volume_evidence,
            "m_p": r.m_p.value if r.m_p else None,
            "wa": est.wa.to_dict() if est else None, "u_counting": est.u_counting if est else None,
            "u_volume": est.u_volume if est else None,
            "true_wa": (r.truth or {}).get("true_wa"), "re_wa": r.re_wa})
    return {"archive": str(out) if out is not None else None, "schema": settings.schema,
            "geometry": settings.geometry.to_dict(), "windows": settings.windows.to_dict(),
            "settle_s": settings.settle_s, "min_gap_us": settings.min_gap_us,
            "notes": list(settings.notes), "steps": steps,
            "untrusted": [s["index"] for s in steps if not s["trusted"]]}


def _head(settings: WaSettings, records: Mapping[int, WaRecord]) -> list[str]:
    """The run's geometry, windows and samplerate, stop rule and simulated drive."""
    geo = settings.geometry
    parts = [f"{q.value} {u}" for q, u in ((geo.channels, "ch"), (geo.chips_per_channel, "chips/ch"),
                                           (geo.dies_per_chip, "dies/chip"))]
    lines = [f"geometry  {' × '.join(parts)}, page {_fmt_bytes(geo.page_size.value)} ({geo.channels.origin})"]
    w = settings.windows
    rates = sorted({r.counts.samplerate_hz for r in records.values()}) or \
        ([settings.samplerate_hz] if settings.samplerate_hz else [])
    lines.append(f"windows   program ({w.program_us[0]:g}, {w.program_us[1]:g}) µs, read "
                 f"({w.read_us[0]:g}, {w.read_us[1]:g}), erase ({w.erase_us[0]:g}, "
                 f"{w.erase_us[1]:g}); {', '.join(f'{x / 1e3:g}' for x in rates) or '?'} kS/s")
    if settings.settle_s is not None:
        lines.append(f"stop rule R/B high {settings.settle_s:g} s at the end (000 §4.2: 300 s)"
                     + (f"; shortest gap {settings.min_gap_us:g} µs" if settings.min_gap_us else ""))
    ftl = settings.bench.get("ftl")
    if ftl:
        from charz.archive import ftl_label  # numpy &c.: only once a command runs
        lines.append(f"drive     simulated: {ftl_label(ftl)}")
    return lines


def _row(i: int, r: WaRecord, mock: bool, ctr: bool) -> str:
    """One step's row: pulses, WA ± u (M_p for the calibration), true WA and |RE_WA| on the
    mock, the drive's counters' WA; `` !`` when the step is not trustworthy."""
    n = round(sum(d.programs for d in r.dies) / len(r.dies)) if r.dies else r.counts.programs
    flag = "" if r.trusted else " !"
    label = r.label if len(r.label) <= 26 else r.label[:25] + "…"
    if r.step.kind == "calibrate":
        mp = r.m_p
        wa1 = mp.details.get("wa_mp1") if mp else None
        txt = (f"M_p {mp.value} (WA₁ {_num(wa1)})" if mp and mp.value and wa1 is not None
               else f"M_p {mp.value}" if mp and mp.value else "M_p ? (cannot tell)")
        return f"{i:>3} {label:<26} {n:>9} {txt}{flag}"
    est = r.estimate
    wa = f"{_num(est.wa.value)} ± {_num(est.wa.uncertainty)}" if est else "—"
    row = f"{i:>3} {label:<26} {n:>9} {wa:<14}"
    if mock and r.truth:
        row += f" {_num(r.truth['true_wa']):>6} {(_percent(r.re_wa) if r.re_wa is not None else '—'):>7}"
    elif mock:
        row += " " * 15
    if ctr:
        cw = (r.counters or {}).get("wa") or {}
        row += f" {_num(cw['value']):>6}" if cw.get("value") else f" {'—':>6}"
    return row.rstrip() + flag


def _re_wa_lines(records: Mapping[int, WaRecord]) -> list[str]:
    """000 §4.3's accuracy bounds on the mock: |RE_WA| < 1 % write-only, < 3 % mixed."""
    bench = [r for r in records.values() if r.step.kind == "benchmark" and r.re_wa is not None]
    lines = []
    for name, rows, bound in (("100 %-write", [r for r in bench if r.job.write_fraction >= 1.0], 0.01),
                              ("mixed", [r for r in bench if r.job.write_fraction < 1.0], 0.03)):
        if not rows:
            continue
        met = sum(r.re_wa < bound for r in rows)
        uneven = sum(r.re_wa >= bound and _die_spread(r) >= bound for r in rows)
        line = (f"|RE_WA| {name}: {met} of {len(rows)} under {100 * bound:g} %, max "
                f"{100 * max(r.re_wa for r in rows):.2f} %")
        if uneven:
            line += (f"; {uneven} miss{'es' if uneven != 1 else ''} where the simulated dies "
                     "differ by more than that (one die cannot stand for all)")
        lines.append(line)
    return lines


def format_summary(settings: WaSettings, records: Mapping[int, WaRecord], *, verbose: bool = False) -> str:
    """The result table and notes (pure; ≤ 80 columns once folded by ``wrap``).

    Every warning is listed, each once (``verbose`` is kept for callers; it adds nothing now).
    """
    lines = _head(settings, records)
    lines.append("")
    mock = any(r.truth for r in records.values())
    ctr = any(((r.counters or {}).get("wa") or {}).get("value") for r in records.values())
    # Columns of fixed width, each after one space: the widest row is 79 columns, and no two
    # columns touch however large WA grows (_num keeps a number within its column's width).
    head = f"{'#':>3} {'benchmark':<26} {'pulses':>9} {'WA ± u':<14}"
    lines.append(head + (f" {'true':>6} {'|RE_WA|':>7}" if mock else "") + (f" {'SMART':>6}" if ctr else ""))
    lines += [_row(i, records[i], mock, ctr) for i in sorted(records)]
    lines.append("")
    lines += _re_wa_lines(records)
    lines.append("WA = Eq. 7 (inferred from measured pulses and volume); u = one standard error "
                 "(counting and volume).")
    for i in sorted(records):
        sp = records[i].die_spread
        if sp:
            per = ", ".join(f"{d.channel} {d.programs}" for d in records[i].dies)
            lines.append(f"  {i}: dies {per}; mean {sp['mean']:.1f}, spread {100 * (sp['spread'] or 0):.2f} % "
                         "(in u)")
    for note in settings.notes:
        lines.append(f"note: {note}")
    lines += _counter_notes(records)
    bad = [i for i in sorted(records) if not records[i].trusted]
    if bad:
        lines.append(f"! not trustworthy: step{'s' if len(bad) != 1 else ''} {', '.join(map(str, bad))} "
                     "(see below)")
        for i in bad:
            for e in records[i].errors:
                lines.append(f"  {i}: {e}")
    lines += _warning_lines(records)
    return "\n".join(lines)


def _num(v: float) -> str:
    """A WA-sized number in at most 6 characters: 3 decimals below 10, 2 below 100, then fewer."""
    if v is None:
        return "—"
    for limit, digits in ((10, 3), (100, 2), (1000, 1)):
        if abs(v) < limit:
            return f"{v:.{digits}f}"
    return f"{v:.0f}"


def _percent(fraction: float) -> str:
    p = 100 * fraction
    return f"{p:.2f} %" if p < 100 else f"{p:.0f} %"


def _steps(indices: list[int]) -> str:
    """``0–3, 7`` for [0, 1, 2, 3, 7]."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def _warning_lines(records: Mapping[int, WaRecord]) -> list[str]:
    """Every warning of every step, each said once: a warning's explanation (after "; ") once per kind,
    then what each step measured; steps with the same text share one line."""
    kinds: dict[str, dict[str, list[int]]] = {}   # kind (digits masked) → text before "; " → steps
    tails: dict[str, str] = {}
    for i in sorted(records):
        for w in records[i].warnings:
            head, _, tail = w.partition("; ")
            kind = re.sub(r"\d+(?:[.,]\d+)*", "#", head) + "|" + tail
            tails[kind] = tail
            steps = kinds.setdefault(kind, {}).setdefault(head, [])
            if i not in steps:
                steps.append(i)
    if not kinds:
        return []
    n = sum(len(s) for heads in kinds.values() for s in heads.values())
    out = [f"{n} warning{'s' if n != 1 else ''}:"]
    for kind, heads in kinds.items():
        tail = tails[kind]
        if len(heads) == 1:
            (head, steps), = heads.items()
            s = "s" if len(steps) > 1 else ""
            out.append(f"  step{s} {_steps(steps)}: {head}" + (f"; {tail}" if tail else ""))
            continue
        every = sorted(i for steps in heads.values() for i in steps)
        if tail:
            out.append(f"  steps {_steps(every)}: {tail}")
        for head, steps in heads.items():
            s = "s" if len(steps) > 1 else ""
            out.append(f"    step{s} {_steps(steps)}: {head}")
    return out


def _counter_notes(records: Mapping[int, WaRecord]) -> list[str]:
    """Where the counter column comes from, and whatever stopped it (each said once)."""
    said: list[str] = []
    out = []
    for r in (records[i] for i in sorted(records)):
        c = r.counters or {}
        wa = c.get("wa") or {}
        if not said and wa.get("method"):
            tools = sorted({s.split(":")[0] for s in wa.get("sources", [])})
            names = [f"{x['name']} [{x['unit']}]" for x in (c.get("after") or {}).get("counters", [])]
            out.append(f"SMART = the drive's own write counters, {', '.join(names) or '—'} "
                       f"({', '.join(tools) or '—'}): {wa['method']} (inferred from measured counter deltas).")
            said.append("method")
        for text in [c.get("error"), wa.get("too_coarse"), *(wa.get("notes") or [])]:
            if text and text not in said:
                said.append(text)
                out.append(f"SMART: {text}")
    return out


def _die_spread(r: WaRecord) -> float:
    """How far the simulated dies' pulse counts stray from their mean (0 without truth)."""
    d = (r.truth or {}).get("die_program_pulses") or []
    if not d:
        return 0.0
    m = sum(d) / len(d)
    return max(abs(x - m) for x in d) / m



def wrap(text: str, width: int = 80) -> str:
    out = []
    for line in text.splitlines():
        out += textwrap.wrap(line, width, subsequent_indent="    ") or [""]
    return "\n".join(out)


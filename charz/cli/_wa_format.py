"""``charz wa``'s result as text and JSON (pure): the table, its notes and warnings.

``format_summary`` and ``format_json`` take what a WA archive holds (``charz.wa.read_wa``);
``wrap`` folds a line to 80 columns with an indented continuation.
"""

from __future__ import annotations

import re
import textwrap

from charz.archive import ftl_label

__all__ = ["format_json", "format_summary", "wrap"]


def _fmt_bytes(n: float) -> str:
    for unit, s in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= s:
            return f"{n / s:.4g} {unit}"
    return f"{n:.0f} B"


def format_json(settings: dict, records: dict[int, dict], out=None) -> dict:
    """The result as one JSON document (pure): per step its counts per die, WA with its
    uncertainty and origin, trust, errors and warnings; the run's notes once."""
    steps = []
    for i in sorted(records):
        r = records[i]
        est = r.get("estimate") or {}
        steps.append({
            "index": i, "label": r.get("label"), "kind": r["step"]["kind"], "file": r["step"].get("file"),
            "trusted": bool(r.get("trusted")), "errors": r.get("errors", []), "warnings": r.get("warnings", []),
            "programs": [d["programs"] for d in r.get("dies", [])] or [r["counts"]["programs"]],
            "channels": [d["channel"] for d in r.get("dies", [])],
            "erases_counted_apart": [d["erases_in_window"] for d in r.get("dies", [])],
            "die_spread": (r.get("die_spread") or {}).get("spread"),
            "samplerate_hz": r["counts"]["samplerate_hz"], "settled": r.get("settled"),
            "logical_bytes": r.get("logical_bytes"), "volume_evidence": r.get("volume_evidence"),
            "m_p": (r.get("m_p") or {}).get("value"),
            "wa": est.get("wa"), "u_counting": est.get("u_counting"), "u_volume": est.get("u_volume"),
            "true_wa": (r.get("truth") or {}).get("true_wa"), "re_wa": r.get("re_wa")})
    return {"archive": str(out) if out is not None else None, "schema": settings.get("schema"),
            "geometry": settings.get("geometry"), "windows": settings.get("windows"),
            "settle_s": settings.get("settle_s"), "min_gap_us": settings.get("min_gap_us"),
            "notes": settings.get("notes", []), "steps": steps,
            "untrusted": [s["index"] for s in steps if not s["trusted"]]}


def format_summary(settings: dict, records: dict[int, dict], *, verbose: bool = False) -> str:
    """The result table and notes (pure; ≤ 80 columns once folded by ``_wrap``).

    Every warning is listed, each once (``verbose`` is kept for callers; it adds nothing now).
    """
    geo = settings.get("geometry", {})
    lines = []
    if geo:
        parts = [f"{geo[k]['value']} {u}" for k, u in (("channels", "ch"), ("chips_per_channel", "chips/ch"),
                                                        ("dies_per_chip", "dies/chip"))]
        origin = geo["channels"]["origin"]
        lines.append(f"geometry  {' × '.join(parts)}, page {_fmt_bytes(geo['page_size']['value'])} ({origin})")
    w = settings["windows"]
    rates = sorted({r["counts"]["samplerate_hz"] for r in records.values()}) or \
        ([settings["samplerate_hz"]] if settings.get("samplerate_hz") else [])
    lines.append(f"windows   program ({w['program_us'][0]:g}, {w['program_us'][1]:g}) µs, read "
                 f"({w['read_us'][0]:g}, {w['read_us'][1]:g}), erase ({w['erase_us'][0]:g}, "
                 f"{w['erase_us'][1]:g}); {', '.join(f'{x / 1e3:g}' for x in rates) or '?'} kS/s")
    if settings.get("settle_s") is not None:
        lines.append(f"stop rule R/B high {settings['settle_s']:g} s at the end (000 §4.2: 300 s)"
                     + (f"; shortest gap {settings['min_gap_us']:g} µs" if settings.get("min_gap_us") else ""))
    ftl = settings.get("bench", {}).get("ftl")
    if ftl:
        lines.append(f"drive     simulated: {ftl_label(ftl)}")
    lines.append("")
    mock = any(r.get("truth") for r in records.values())
    ctr = any(((r.get("counters") or {}).get("wa") or {}).get("value") for r in records.values())
    # Columns of fixed width, each after one space: the widest row is 79 columns, and no two
    # columns touch however large WA grows (_num keeps a number within its column's width).
    head = f"{'#':>3} {'benchmark':<26} {'pulses':>9} {'WA ± u':<14}"
    lines.append(head + (f" {'true':>6} {'|RE_WA|':>7}" if mock else "") + (f" {'SMART':>6}" if ctr else ""))
    for i in sorted(records):
        r = records[i]
        dies = r.get("dies") or []
        n = round(sum(d["programs"] for d in dies) / len(dies)) if dies else r["counts"]["programs"]
        flag = "" if r.get("trusted") else " !"
        label = r["label"] if len(r["label"]) <= 26 else r["label"][:25] + "…"
        if r["step"]["kind"] == "calibrate":
            mp = r.get("m_p", {})
            wa1 = mp.get("details", {}).get("wa_mp1")
            txt = (f"M_p {mp['value']} (WA₁ {_num(wa1)})" if mp.get("value") and wa1 is not None
                   else f"M_p {mp['value']}" if mp.get("value") else "M_p ? (cannot tell)")
            lines.append(f"{i:>3} {label:<26} {n:>9} {txt}{flag}")
            continue
        est = r.get("estimate")
        wa = f"{_num(est['wa']['value'])} ± {_num(est['wa']['uncertainty'])}" if est else "—"
        row = f"{i:>3} {label:<26} {n:>9} {wa:<14}"
        if mock and r.get("truth"):
            re = r.get("re_wa")
            row += f" {_num(r['truth']['true_wa']):>6} {(_percent(re) if re is not None else '—'):>7}"
        elif mock:
            row += " " * 15
        if ctr:
            cw = (r.get("counters") or {}).get("wa") or {}
            row += f" {_num(cw['value']):>6}" if cw.get("value") else f" {'—':>6}"
        lines.append(row.rstrip() + flag)
    lines.append("")
    bench = [r for r in records.values() if r["step"]["kind"] == "benchmark" and r.get("re_wa") is not None]
    if bench:
        for name, rows, bound in (("100 %-write", [r for r in bench if r["job"]["write_fraction"] >= 1.0], 0.01),
                                  ("mixed", [r for r in bench if r["job"]["write_fraction"] < 1.0], 0.03)):
            if not rows:
                continue
            met = sum(r["re_wa"] < bound for r in rows)
            uneven = sum(r["re_wa"] >= bound and _die_spread(r) >= bound for r in rows)
            line = (f"|RE_WA| {name}: {met} of {len(rows)} under {100 * bound:g} %, max "
                    f"{100 * max(r['re_wa'] for r in rows):.2f} %")
            if uneven:
                line += (f"; {uneven} miss{'es' if uneven != 1 else ''} where the simulated dies "
                         "differ by more than that (one die cannot stand for all)")
            lines.append(line)
    lines.append("WA = Eq. 7 (inferred from measured pulses and volume); u = one standard error "
                 "(counting and volume).")
    for i in sorted(records):
        sp = records[i].get("die_spread")
        if sp:
            per = ", ".join(f"{d['channel']} {d['programs']}" for d in records[i]["dies"])
            lines.append(f"  {i}: dies {per}; mean {sp['mean']:.1f}, spread {100 * (sp['spread'] or 0):.2f} % "
                         "(in u)")
    for note in settings.get("notes", []):
        lines.append(f"note: {note}")
    lines += _counter_notes(records)
    bad = [i for i in sorted(records) if not records[i].get("trusted")]
    if bad:
        lines.append(f"! not trustworthy: step{'s' if len(bad) != 1 else ''} {', '.join(map(str, bad))} "
                     "(see below)")
        for i in bad:
            for e in records[i]["errors"]:
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


def _warning_lines(records: dict[int, dict]) -> list[str]:
    """Every warning of every step, each said once: a warning's explanation (after "; ") once per kind,
    then what each step measured; steps with the same text share one line."""
    kinds: dict[str, dict[str, list[int]]] = {}   # kind (digits masked) → text before "; " → steps
    tails: dict[str, str] = {}
    for i in sorted(records):
        for w in records[i].get("warnings") or []:
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


def _counter_notes(records: dict[int, dict]) -> list[str]:
    """Where the counter column comes from, and whatever stopped it (each said once)."""
    said: list[str] = []
    out = []
    for r in (records[i] for i in sorted(records)):
        c = r.get("counters") or {}
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


def _die_spread(r: dict) -> float:
    """How far the simulated dies' pulse counts stray from their mean (0 without truth)."""
    d = (r.get("truth") or {}).get("die_program_pulses") or []
    if not d:
        return 0.0
    m = sum(d) / len(d)
    return max(abs(x - m) for x in d) / m



def wrap(text: str, width: int = 80) -> str:
    out = []
    for line in text.splitlines():
        out += textwrap.wrap(line, width, subsequent_indent="    ") or [""]
    return "\n".join(out)


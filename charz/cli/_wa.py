"""``charz wa``: write amplification from one die's R/B pin (RB-Explorer, papers 000/001).

parse → build (plan, bench, archive) → run → pure ``format_*`` → print.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import re
import sys
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from charz.cli._common import console, emit_json
from charz.cli._conventions import MockFtl, WaCounters
from charz.cli._stop import stoppable
from charz.errors import AnalysisError, UsageError

__all__ = ["register", "wa_app", "format_summary"]

wa_app = typer.Typer(name="wa", no_args_is_help=True, add_completion=False,
                     help="Write amplification from a NAND die's Ready/Busy pin (RB-Explorer, 000).")

_ORIGIN_SHORT = {"given": "given", "measured": "measured", "inferred": "inferred"}


def _sizes(text: str) -> tuple[int, ...]:
    from charz.session import parse_fio_size as parse_size  # lazy: numba, numpy, scipy
    return tuple(parse_size(x) for x in text.split(",") if x.strip())


def _window(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"a window is 'LOW,HIGH' in µs (e.g. 200,2200), not {text!r}") from None
    return a, b


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
        from charz.archive import ftl_label  # lazy: numpy
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


def _wrap(text: str, width: int = 80) -> str:
    out = []
    for line in text.splitlines():
        out += textwrap.wrap(line, width, subsequent_indent="    ") or [""]
    return "\n".join(out)


def _finish(out: Path, settings: dict, summary, quiet: bool, *, json_out: bool = False,
            verbose: bool = False) -> None:
    if json_out:
        emit_json(json.dumps(format_json(settings, summary.records, out), indent=1))
    else:
        console.print(_wrap(format_summary(settings, summary.records, verbose=verbose)))
        console.print(f"archive   {out}")
    if summary.untrusted:
        n, of = len(summary.untrusted), len(summary.records)
        raise AnalysisError(f"{n} of {of} step{'s' if of != 1 else ''} {'is' if n == 1 else 'are'} not trustworthy",
                            hint="see the errors above and the width histogram (charz wa report DIR)")


@contextlib.contextmanager
def _bars(steps: int, enabled: bool):
    """Two rich bars on stderr, ≤ 80 columns: the run's steps, and how far the current
    step is (its workload, then the R/B settle wait) — a bench step can take hours."""
    if not enabled:
        yield None
        return
    err = Console(stderr=True, emoji=False)
    err.width = min(err.width, 80)
    bars = Progress(TextColumn("{task.description:<30.30}"), BarColumn(bar_width=16),
                    TextColumn("{task.fields[count]:>6}"), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), console=err)
    with bars:
        yield bars, bars.add_task("wa", total=steps, count=f"0/{steps}"), \
            bars.add_task("  step", total=1.0, count="")


def _run(archive, bench, quiet: bool, *, json_out: bool = False):
    """Run the plan with bars on stderr; with ``json_out`` stdout carries the JSON only (the
    steps' errors go to stderr as they happen)."""
    from charz.session import run_plan  # lazy: numba, numpy, scipy
    plan = archive.settings["plan"]
    todo = sum(1 for i in range(len(plan)) if i not in archive.records)
    if json_out:
        return run_plan(archive, bench, log=lambda t: print(_wrap(t), file=sys.stderr))
    with _bars(todo, not quiet) as ui:
        if ui is None:
            return run_plan(archive, bench, log=lambda t: console.print(_wrap(t)))
        bars, run_task, step_task = ui
        done = [-1]

        def progress(i: int, n: int, label: str) -> None:
            done[0] += 1
            bars.update(run_task, completed=done[0], count=f"{done[0]}/{todo}", description=label)
            if i < n:
                bars.reset(step_task, total=1.0, count="", description="  starting the workload")
            else:
                bars.update(step_task, visible=False)

        def step_progress(fraction: float, text: str) -> None:
            bars.update(step_task, completed=fraction, count=f"{100 * fraction:.0f} %", description=f"  {text}")

        return run_plan(archive, bench, log=lambda t: bars.console.print(_wrap(t)), progress=progress,
                        step_progress=step_progress)


@wa_app.command("run")
def run(
    mock: bool = typer.Option(False, "--mock", help="The simulated drive behind sigrok-cli (no hardware)."),
    mock_multi_plane: bool = typer.Option(True, "--mock-multi-plane/--mock-single-plane",
                                          help="Mock drive: two planes per program pulse (M_p 2) or one."),
    mock_lines: Optional[bool] = typer.Option(None, "--mock-lines/--mock-die-gc",
                                              help="Mock drive: GC on lines over every die (default for greedy "
                                                   "and cost-benefit), or on each die alone."),
    mock_counters: WaCounters = typer.Option("micron", help="Mock drive's SMART counters: micron (pages), intel "
                                                     "(32 MiB units) or nvme (Data Units + OCP C0h)."),
    mock_ftl: Optional[MockFtl] = typer.Option(None, help="Mock drive's block manager: greedy (default), cost-benefit, "
                                                      "wolf (002 §5), fdp (002's baseline), nvm or cdm (an NVM cache, 004 §III)."),
    mock_nvm_cache: str = typer.Option("8m", help="Mock drive's NVM cache for --mock-ftl nvm|cdm."),
    mock_keep_sr: Optional[Path] = typer.Option(None, help="Keep the mock's sigrok session files (NNNN.sr) in "
                                                           "this folder, e.g. for charz wa analyze."),
    device: Optional[Path] = typer.Option(None, help="Block device under test (checked, claimed, confirmed)."),
    logic: Optional[str] = typer.Option(None, help="sigrok DRIVER:CHANNEL of the die's R/B (e.g. fx2lafw:D0)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="WA archive to create (default runs/wa-<time>)."),
    volume: str = typer.Option("128m", help="Bytes each benchmark writes (000: 2g)."),
    sizes: str = typer.Option("512,4k,8k,16k,32k", help="Request sizes of 000 Table 3."),
    files: Optional[str] = typer.Option(None, help="Job files (default: the 8 wa-w*.fio of Table 3)."),
    benchmarks: bool = typer.Option(True, help="Run the Table 3 micro-benchmarks."),
    subtests: int = typer.Option(0, min=0, help="Sub-tests of 4K-RD-100%-W (000 Fig. 10, WALVD)."),
    op_sweep: Optional[str] = typer.Option(None, help="OP percents for sub-test series (000 Table 4), e.g. 7,10,15."),
    mp: Optional[int] = typer.Option(None, help="M_p if known (skips the calibration run)."),
    channels: Optional[int] = typer.Option(None, help="N_channel (bench)."),
    chips: Optional[int] = typer.Option(None, help="N_chip per channel (bench)."),
    dies: Optional[int] = typer.Option(None, help="N_die per chip (bench)."),
    page_size: Optional[str] = typer.Option(None, help="P_a, the NAND page size (bench), e.g. 16k."),
    planes: Optional[int] = typer.Option(None, help="Planes per die, if known (admits M_p = planes)."),
    pages_per_block: Optional[int] = typer.Option(None, min=2, help="Program pulses per erase block, if known: "
                                                                    "erases are told by one per block."),
    profile: Optional[Path] = typer.Option(None, help="A charz profile giving channels, chips, dies, page."),
    program_window: str = typer.Option("200,2200", help="Program pulse window (a, b) µs; SLC: 200,500."),
    read_window: str = typer.Option("2,200", help="Read pulse window µs."),
    erase_window: str = typer.Option("2200,20000", help="Erase pulse window µs."),
    glitch: float = typer.Option(2.0, help="Low or high stretches shorter than this (µs) are glitches."),
    min_gap: Optional[float] = typer.Option(None, help="Shortest high gap (µs) expected between two operations "
                                                       "(bench default 10; the mock's 20): the samplerate must "
                                                       "tell it from a glitch."),
    samplerate: str = typer.Option("250k", help="Analyser samplerate (Hz; k/M suffixes)."),
    settle: Optional[float] = typer.Option(None, help="R/B high this long (s) before a count is read "
                                                      "(000 §4.2: 300, the bench default; the mock's replay 0.05)."),
    settle_timeout: Optional[float] = typer.Option(None, help="Give up waiting for the settle time after this "
                                                              "long (s; default settle + 300)."),
    confirm_serial: Optional[str] = typer.Option(None, help="The drive's serial, for scripts."),
    sigrok_cli: Optional[str] = typer.Option(None, "--sigrok-cli", metavar="PATH",
                                             help="The sigrok-cli to run (default: the one on PATH)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout (no table, no bars)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every warning of every step."),
) -> None:
    """Measure WA: M_p calibration, then 000 Table 3's micro-benchmarks (and sub-tests, OP sweep).

    Exit codes: 0 all steps trusted, 2 bad usage, 4 a step is not trustworthy (its
    counts are kept), 9 the analyser or sigrok-cli failed, 6 the drive was refused."""
    from charz.analysis import PulseWindows  # lazy: numba, numpy, scipy
    from charz.archive import WaArchive  # lazy: numpy
    from charz.logic import parse_samplerate  # lazy: numba, numpy, scipy
    from charz.session import TABLE3_FILES, parse_fio_size as parse_size  # lazy: numba, numpy, scipy
    from charz.session import build_plan  # lazy: numba, numpy, scipy

    if mock == (device is not None):
        raise UsageError("give exactly one of --mock and --device DEV")
    if mock_counters not in ("micron", "intel", "nvme"):
        raise UsageError(f"--mock-counters is micron, intel or nvme, not {mock_counters!r}")
    if mock_ftl is not None and not mock:
        raise UsageError("--mock-ftl chooses the simulated drive's manager: it goes with --mock")
    try:
        rate = parse_samplerate(samplerate)
        windows = PulseWindows(program_us=_window(program_window), read_us=_window(read_window),
                               erase_us=_window(erase_window), glitch_us=glitch)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    ops = tuple(float(x) for x in op_sweep.split(",")) if op_sweep else ()
    plan = build_plan(volume_bytes=parse_size(volume), benchmarks=benchmarks,
                      files=tuple(files.split(",")) if files else TABLE3_FILES, sizes=_sizes(sizes),
                      calibrate=mp is None, subtests=subtests, op_percents=ops)
    if not plan:
        raise UsageError("nothing to run: no benchmarks, no sub-tests, M_p given")
    out = out or Path("runs") / f"wa-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    quiet = quiet or json_out
    if mock:
        from charz.sim import MIN_GAP_US, SETTLE_S  # lazy: numba, numpy, pyvisa, scipy, the simulator
        settle = SETTLE_S if settle is None else settle
        min_gap = MIN_GAP_US if min_gap is None else min_gap
        notes = [f"the mock's replay: R/B high {settle:g} s after its last pulse is its stop rule (000 §4.2 waits "
                 "300 s on a drive); its |RE_WA| checks charz against its own simulator (a self-check)"]
    else:
        settle, min_gap = settle_notes(settle, min_gap)[:2]
        notes = settle_notes(settle, min_gap)[2]
    settings = {"plan": plan, "windows": windows.to_dict(), "samplerate_hz": rate, "settle_s": settle,
                "settle_timeout_s": settle_timeout if settle_timeout is not None else settle + 300.0,
                "m_p_given": mp, "planes": planes, "pages_per_block": pages_per_block, "min_gap_us": min_gap, "notes": notes}
    if mock:
        from charz.sim import MockWaBench, mock_config  # lazy: numba, numpy, pyvisa, scipy, the simulator
        from charz.sim import ftl_options  # lazy: numba, numpy, pyvisa, scipy, the simulator
        try:
            cfg = mock_config(multi_plane=mock_multi_plane, lines=mock_lines,
                              **ftl_options(mock_ftl or "greedy", parse_size(mock_nvm_cache)))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        with tempfile.TemporaryDirectory(prefix="charz-wa-") as tmp:
            bench = MockWaBench(cfg, mock_keep_sr or Path(tmp), samplerate_hz=rate, settle_s=settle,
                                counters=mock_counters, keep_sr=mock_keep_sr is not None)
            from charz.analysis import WaGeometry  # lazy: numba, numpy, scipy
            geo = WaGeometry.given(*bench.geometry_values(), evidence="the simulated drive's configuration")
            settings.update(bench=bench.describe(), geometry=geo.to_dict())
            with WaArchive.create(out, settings) as archive:
                summary = _run(archive, bench, quiet, json_out=json_out)
        _finish(out, archive.settings, summary, quiet, json_out=json_out, verbose=verbose)
        return
    if not logic:
        raise UsageError("--device needs --logic DRIVER:CHANNEL (the analyser on the die's R/B pin)")
    from charz.analysis import WaGeometry  # lazy: numba, numpy, scipy
    from charz.logic import parse_logic_spec  # lazy: numba, numpy, scipy
    from charz.session import DeviceWaBench  # lazy: numba, numpy, scipy

    spec = parse_logic_spec(logic)
    geometry = _geometry(channels, chips, dies, page_size, profile)
    with _stops(out), contextlib.ExitStack() as stack:
        # The archive is made once the drive is initialized (its record goes into it), and
        # closed only after the drive is restored, so the restore is recorded too.
        made: list = []
        stack.callback(lambda: made and made[0].close())
        bench = stack.enter_context(DeviceWaBench.open(
            device, spec, geometry, out=out, samplerate_hz=rate, settle_s=settle, confirm_serial=confirm_serial,
            confirm=_ask, sigrok=sigrok_cli, journal=lambda record: made and made[0].record_initialization(record, [])))
        settings["notes"] += die_notes(len(spec.bits), geometry.dies)
        settings.update(bench=bench.describe(), geometry=geometry.to_dict())
        archive = WaArchive.create(out, settings)
        made.append(archive)
        summary = _run(archive, bench, quiet, json_out=json_out)
    _finish(out, archive.settings, summary, quiet, json_out=json_out, verbose=verbose)


BENCH_SETTLE_S = 300.0   # 000 §4.2: R/B high for five minutes before N_Tprogram is read
BENCH_MIN_GAP_US = 10.0  # assumed: a command, its address cycles and the controller's turnaround


def settle_notes(settle: float | None, min_gap: float | None) -> tuple[float, float, list[str]]:
    """A bench's settle time and shortest gap (defaults 000's 300 s, 10 µs) and what to say of them."""
    notes = []
    settle = BENCH_SETTLE_S if settle is None else settle
    if settle < 0:
        raise UsageError(f"--settle is a time ≥ 0 s, not {settle:g}")
    if settle < BENCH_SETTLE_S:
        notes.append(f"--settle {settle:g} s is shorter than 000's {BENCH_SETTLE_S:g} s (§4.2): programs the "
                     "drive runs later in the background (garbage collection, a cache flush) may be missed")
    if min_gap is None:
        min_gap = BENCH_MIN_GAP_US
        notes.append(f"shortest high gap between two operations assumed {min_gap:g} µs (--min-gap)")
    elif not min_gap > 0:
        raise UsageError(f"--min-gap is a time > 0 µs, not {min_gap:g}")
    return settle, min_gap, notes


def die_notes(counted: int, dies: int, how: str = "--logic DRIVER:D0,D1,…") -> list[str]:
    """``how``: the option of the command at hand that counts several dies (a hint must name a real one)."""
    if counted == 1 and dies > 1:
        return [f"one die of {dies} counted: Eq. 7 takes every die to do the same work (000 §3.2.3, assumed); "
                "u covers dies that share pulses at random, not a die that works more — count several "
                f"({how}) to measure their spread"]
    if counted > dies:
        raise UsageError(f"{counted} dies counted but the geometry has {dies}")
    return []


@contextlib.contextmanager
def _stops(out: Path):
    """A bench run stops cleanly on Ctrl-C, SIGTERM and SIGHUP: the drive's settings are put
    back on the way out (as characterize does), then the exit status says which signal."""

    try:
        with stoppable():
            yield
    except KeyboardInterrupt as exc:
        with contextlib.suppress(OSError, ValueError):  # SIGHUP: the terminal may be gone
            line = (f"stopped; the drive's settings are put back; continue with: charz wa resume {out}"
                    if (Path(out) / "wa.json").exists() else "stopped before the run began; the drive's settings "
                    "are put back")
            Console(stderr=True, emoji=False, highlight=False).print(line, markup=False)
        raise typer.Exit(getattr(exc, "exit_code", 130))


def _geometry(channels, chips, dies, page_size, profile):
    """Eq. 7's constants: each option given wins over the profile's value (and says so)."""
    from charz.analysis import Quantity  # lazy: numba, numpy, scipy
    from charz.analysis import WaGeometry  # lazy: numba, numpy, scipy
    from charz.analysis import geometry_from_profile  # lazy: numba, numpy, scipy
    from charz.session import parse_fio_size as parse_size  # lazy: numba, numpy, scipy

    if profile is None:
        if None in (channels, chips, dies, page_size):
            raise UsageError("Eq. 7 needs --channels, --chips, --dies and --page-size (the drive's parallelism)",
                             hint="take them from the drive's teardown / NAND datasheet, or give --profile")
        return WaGeometry.given(channels, chips, dies, parse_size(page_size))
    from charz.profile import read_profile  # lazy: numba, numpy, scipy
    try:
        g = geometry_from_profile(read_profile(profile))
    except ValueError as exc:
        raise UsageError(f"{profile}: {exc}") from None
    for name, v, unit in (("channels", channels, "channels"), ("chips_per_channel", chips, "chips"),
                          ("dies_per_chip", dies, "dies"),
                          ("page_size", parse_size(page_size) if page_size else None, "B")):
        if v is not None:
            g = replace(g, **{name: Quantity.given(int(v), unit)})
    return g


@wa_app.command("profile")
def profile_cmd(
    out: Path = typer.Argument(..., help="A WA archive."),
    into: Path = typer.Option(..., "--into", help="The charz profile to add the section to (rewritten)."),
    allow_geometry_mismatch: bool = typer.Option(False, help="Add the section even when the WA run's geometry "
                                                             "(channels, chips, dies, page) is not the profile's."),
) -> None:
    """Add (or replace) the profile's write_amplification section from a WA archive.

    Refused (exit 2, nothing written) when the run's geometry is not the profile's."""
    from charz.analysis import wa_section  # lazy: numba, numpy, scipy
    from charz.archive import read_wa_archive  # lazy: numpy
    from charz.profile import read_profile, validate_profile, write_profile  # lazy: numba, numpy, scipy

    settings, records = read_wa_archive(out)
    prof = read_profile(into)
    differ = geometry_mismatch(settings, prof)
    if differ:
        text = "; ".join(f"{name}: run {a}, profile {b}" for name, a, b in differ)
        if not allow_geometry_mismatch:
            raise UsageError(f"{out} was measured with another geometry than {into} describes ({text}): "
                             "its WA (Eq. 7 scales by N_channel · N_chip · N_die · P_a) belongs to another drive "
                             "or another assumption; nothing was written",
                             hint="run charz wa run with --profile on this drive, or add --allow-geometry-mismatch "
                                  "to keep the run's own geometry in the section anyway")
        console.print(_wrap(f"warning: geometry differs ({text}); the section keeps the run's own"), markup=False)
    prof["write_amplification"] = wa_section(settings, records)
    write_profile(validate_profile(prof, origin=str(into)), into)
    console.print(f"{into}: write_amplification from {out} ({len(records)} steps)")


def geometry_mismatch(settings: dict, profile: dict) -> list[tuple[str, object, object]]:
    """(name, the WA run's value, the profile's) for each of Eq. 7's constants the two disagree on.

    A constant the profile does not know is not compared.

    >>> s = {"geometry": {"channels": {"value": 4}, "chips_per_channel": {"value": 1},
    ...                   "dies_per_chip": {"value": 1}, "page_size": {"value": 4096}}}
    >>> p = {"given": {"channels": 10, "packages": 20, "page_size_bytes": 4096}, "results": {}}
    >>> geometry_mismatch(s, p)
    [('channels', 4, 10), ('chips per channel', 1, 2), ('packages', 4, 20)]
    """
    geo = settings.get("geometry") or {}
    given, results = profile.get("given") or {}, profile.get("results") or {}
    ch, pk = given.get("channels"), given.get("packages")
    theirs = {"channels": ch, "chips per channel": pk // ch if ch and pk and pk % ch == 0 else None,
              "dies per chip": (results.get("dies_per_package") or {}).get("value"),
              "page": given.get("page_size_bytes")}
    ours = {"channels": "channels", "chips per channel": "chips_per_channel", "dies per chip": "dies_per_chip",
            "page": "page_size"}
    run = {name: (geo.get(key) or {}).get("value") for name, key in ours.items()}
    a_ch, a_chips = run["channels"], run["chips per channel"]
    run["packages"], theirs["packages"] = (a_ch * a_chips if a_ch and a_chips else None), pk
    return [(name, run[name], theirs[name]) for name in run
            if run[name] is not None and theirs[name] is not None and int(run[name]) != int(theirs[name])]


def _ask(text: str, token_name: str) -> str | None:
    """The drive's confirmation, on stderr (stdout carries the result, JSON with --json)."""
    Console(stderr=True, emoji=False, highlight=False, soft_wrap=True).print(_wrap(text), markup=False)
    if not sys.stdin.isatty():
        return None
    return typer.prompt(f"type the {token_name} to go on")


@wa_app.command("resume")
def resume(
    out: Path = typer.Argument(..., help="The WA archive of an interrupted run."),
    device: Optional[Path] = typer.Option(None, help="Bench: where the drive is now (default: where it was)."),
    logic: Optional[str] = typer.Option(None, help="Bench: sigrok DRIVER:CHANNEL now (default: as before)."),
    confirm_serial: Optional[str] = typer.Option(None, help="Bench: the drive's serial, for scripts."),
    sigrok_cli: Optional[str] = typer.Option(None, "--sigrok-cli", metavar="PATH",
                                             help="Bench: the sigrok-cli to run (default: the run's, else PATH's)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout, as wa show --json."),
) -> None:
    """Run the steps an interrupted charz wa run has no record of (mock or bench)."""
    from charz.archive import WaArchive  # lazy: numpy

    with WaArchive.resume(out) as archive:
        s = archive.settings
        plan = s["plan"]
        todo = [i for i in range(len(plan)) if i not in archive.records]
        console.print(f"resuming {out}: {len(plan) - len(todo)} of {len(plan)} steps done")
        if s["bench"]["kind"] == "mock":
            if device or logic or confirm_serial:
                raise UsageError("--device, --logic and --confirm-serial are for a bench run; this one is --mock")
            summary = _resume_mock(archive, quiet)
        else:
            summary = _resume_device(archive, out, device, logic, confirm_serial, todo, quiet, sigrok_cli)
    _finish(out, s, summary, quiet, json_out=json_out)


def _resume_mock(archive, quiet: bool):
    from charz.sim import MockWaBench  # lazy: numba, numpy, pyvisa, scipy, the simulator
    from charz.sim.ftl import FtlConfig  # lazy: numba, numpy, pyvisa, scipy, the simulator

    s = archive.settings
    cfg = FtlConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in s["bench"]["ftl"].items()})
    with tempfile.TemporaryDirectory(prefix="charz-wa-") as tmp:
        bench = MockWaBench(cfg, Path(tmp), samplerate_hz=s["samplerate_hz"], settle_s=s["settle_s"],
                            counters=s["bench"].get("counters", "micron"))
        return _run(archive, bench, quiet)


def _resume_device(archive, out: Path, device, logic, confirm_serial, todo: list[int], quiet: bool,
                   sigrok_cli: str | None = None):
    """The same drive (its serial checked against the archive's) through the same guard,
    claim and confirmation as ``run``; the steps without a record run in plan order.  A
    step a kill interrupted starts again from its beginning, on a drive that step's
    partial workload has already written to — as each benchmark runs on the drive the
    ones before it left (only the calibration wants a fresh drive, and says so)."""
    from charz.analysis import WaGeometry  # lazy: numba, numpy, scipy
    from charz.logic import LogicSpec, parse_logic_spec  # lazy: numba, numpy, scipy
    from charz.session import DeviceWaBench  # lazy: numba, numpy, scipy

    s = archive.settings
    before = s["bench"]["drive"]
    a = s["bench"]["analyser"]
    spec = parse_logic_spec(logic) if logic else LogicSpec(a["driver"], a["channel"], int(a["bit"]),
                                                           tuple(a.get("channels", ())), tuple(a.get("bits", ())))
    target = device or Path(before["path"])
    if todo:
        console.print(_wrap(f"step {todo[0]} restarts from its beginning; the drive keeps what an interrupted "
                            "run of it wrote"))
    earlier = s["bench"].get("initializations") or [s["bench"].get("initialization") or {}]
    with _stops(out), DeviceWaBench.open(target, spec, WaGeometry.from_dict(s["geometry"]), out=out,
                                          samplerate_hz=s["samplerate_hz"], settle_s=s["settle_s"],
                                          confirm_serial=confirm_serial, confirm=_ask, expect_drive=before,
                                          sigrok=sigrok_cli or a.get("sigrok"), earlier=earlier,
                                          journal=lambda record: archive.record_initialization(record, earlier)) \
            as bench:
        return _run(archive, bench, quiet)


@wa_app.command("show")
def show(out: Path = typer.Argument(..., help="A WA archive."),
         json_out: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
         verbose: bool = typer.Option(False, "--verbose", "-v", help="Every warning of every step.")) -> None:
    """The result table of a WA archive.

    Exit codes: 0 shown, 3 not a WA archive (or damaged)."""
    from charz.archive import read_wa_archive  # lazy: numpy
    settings, records = read_wa_archive(out)
    if json_out:
        emit_json(json.dumps(format_json(settings, records, out), indent=1))
        return
    console.print(_wrap(format_summary(settings, records, verbose=verbose)))


@wa_app.command("report")
def report(
    out: Path = typer.Argument(..., help="A WA archive."),
    to: Optional[Path] = typer.Option(None, "--to", help="Folder for the PNGs (default OUT/report)."),
) -> None:
    """Figures: width histogram with the window, WA per benchmark, WA vs volume, WA vs closed forms.

    Exit codes: 0 written, 3 not a WA archive (or damaged)."""
    from charz.archive import read_wa_archive  # lazy: numpy
    from charz.report import write_wa_pngs  # lazy: matplotlib, numba, numpy, scipy
    settings, records = read_wa_archive(out)
    paths, skipped = write_wa_pngs(settings, records, to or out / "report")
    for p in paths:
        console.print(str(p), markup=False)
    for name, why in skipped:  # an empty placeholder figure would say less than this line
        console.print(_wrap(f"not drawn: {name}: {why}"), markup=False)


def register(app: typer.Typer) -> None:
    # `wa analyze` and `wa model` join wa_app from their own modules (charz.cli lists them
    # after this one): they use this module's helpers, so this module does not import them.
    app.add_typer(wa_app, name="wa")

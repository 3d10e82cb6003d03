"""WA in ``charz report``: a WA archive's figures as report sections, or a profile's WA table alone.

``charz report`` draws these three ways: on a WA archive (``DIR/wa.json``) the page is
the WA report; ``--wa DIR`` adds an archive's figures to a characterization report; a
profile holding a ``write_amplification`` section (``charz wa profile --into``) gets
its per-step WA drawn even without the archive.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from charz.analysis import greedy_wa_sf, held_spare_factor
from charz.archive import ftl_label, write_atomic
from charz.report._fig_wa import benchmarks_figure, histogram_figure, models_figure, volume_figure
from charz.report._model import Report, Section
from charz.report._style import DOTS, MEASURED, figure_png, new_figure
from charz.wa import WaRecord, WaSettings, closed_form_of, steady_series, wa_section

__all__ = ["wa_sections", "wa_report", "profile_wa_section", "steady_results", "wa_figure_plan", "write_wa_pngs"]

_CAPTIONS = {
    "wa-1-histogram": ("R/B low-pulse widths and the windows",
                       "Every low pulse of the counted die's Ready/Busy pin, all steps together, in 10 µs bins, with "
                       "the windows that classify them (000 Table 2): programs must form modes well inside the "
                       "program window, reads and erases their own; a mode piled against an edge means a wrong "
                       "window."),
    "wa-2-benchmarks": ("WA per micro-benchmark",
                        "Eq. 7's WA of each 000 Table 3 micro-benchmark with its standard error (counting and "
                        "volume); squares are the drive's own write counters over the same step (SMART; a page "
                        "counter leaves out sub-page read-modify-write), crosses the simulator's true WA on the "
                        "mock."),
    "wa-3-volume": ("WA against the volume written",
                    "000 Fig. 10 (WALVD): the repeated random-write sub-tests, WA of each against the logical "
                    "volume written so far, one line per over-provisioning of the sweep (000 Table 4). The first "
                    "sub-test carries the initial fill, so it is the highest."),
    "wa-4-models": ("Measured WA against the closed forms",
                    "The steady WA of each random-write series (sub-tests 2 on) at its spare factor S_f = "
                    "spare/physical, R/B and the drive's counters, against Desnoyers' LRW and greedy (Lambert W), "
                    "Dayan's δ form (002 Eq. 3; the same curve as LRW) and Agarwal's (1 + ρ)/(2ρ) with ρ = "
                    "spare/user. The horizontal bar is the spare the garbage collector really has: the nominal "
                    "S_f (grey line) less the 1–2 units per pool it keeps free — the closed form's own "
                    "uncertainty on a drive this small. `charz wa model` prints the numbers."),
}


def _png(fig) -> bytes:
    return figure_png(fig)


def _no_models_why(bench: Mapping[str, Any], series) -> str:
    """Why the closed-form figure has nothing to place — said for the archive (its bench) at hand."""
    ftl = bench.get("ftl")
    if ftl and series and closed_form_of(bench) is None:
        return (f"the simulated drive runs {ftl_label(ftl).split(';')[0]}: the uniform closed forms describe a plain "
                "greedy one (charz wa model --op draws them for any spare factor)")
    return ("no steady sub-test series whose spare factor charz knows (a mock run with --subtests ≥ 2; on a "
            "bench, charz wa model --op gives the curves)")


def wa_figure_plan(settings: WaSettings, records: Mapping[int, WaRecord], series=None):
    """``{key: (draw, why)}`` for the four WA figures: ``draw`` makes the figure, or is None when the
    archive has nothing for it to show, and ``why`` then says so (no empty placeholder is drawn)."""
    records = dict(records)
    series = steady_series(records, closed_form_of(settings.bench)) if series is None else series
    has = {
        "wa-1-histogram": (bool(records), "the archive has no committed step"),
        "wa-2-benchmarks": (any(r.step.kind == "benchmark" and r.estimate for r in records.values()),
                            "no Table 3 micro-benchmark with a WA in the archive"),
        "wa-3-volume": (any(r.step.kind == "subtest" and r.estimate for r in records.values()),
                        "no sub-tests in the archive (charz wa run --subtests N)"),
        "wa-4-models": (any(s.spare_factor is not None for s in series), _no_models_why(settings.bench, series)),
    }
    draw = {"wa-1-histogram": lambda: histogram_figure(settings, records),
            "wa-2-benchmarks": lambda: benchmarks_figure(records),
            "wa-3-volume": lambda: volume_figure(records),
            "wa-4-models": lambda: models_figure(series)}
    return {key: ((draw[key], "") if has[key][0] else (None, has[key][1])) for key in _CAPTIONS}


def write_wa_pngs(settings: WaSettings, records: Mapping[int, WaRecord], folder) -> tuple[list, list]:
    """Write the WA figures that have something to show as PNGs (``charz wa report``).

    Returns (the paths written, [(file name, why it was not drawn)]).
    """

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written, skipped = [], []
    for key, (draw, why) in wa_figure_plan(settings, records).items():
        name = key.replace("wa-", "", 1).split("-", 1)[1]
        path = folder / f"wa-{name}.png"
        if draw is None:
            skipped.append((path.name, why))
            continue
        png = _png(draw())
        write_atomic(path, lambda f: f.write(png))
        written.append(path)
    return written, skipped


def wa_sections(settings: WaSettings, records: Mapping[int, WaRecord]) -> tuple[Section, ...]:
    """The WA archive's four figures as report sections (a figure with nothing to show says why)."""
    records = dict(records)
    series = steady_series(records, closed_form_of(settings.bench))
    plan = wa_figure_plan(settings, records, series)
    out = []
    for key, (title, caption) in _CAPTIONS.items():
        draw, why = plan[key]
        ok = draw is not None
        evidence = "\n".join(f"{s.label}: R/B {s.rb[0]:.3f} ± {s.rb[1]:.3f}" +
                             (f", counters {s.smart[0]:.3f} ± {s.smart[1]:.3f}" if s.smart else "")
                             for s in series if s.rb) if key == "wa-4-models" else ""
        out.append(Section(key, title, caption, (), _png(draw()) if ok else None, None if ok else why,
                           evidence))
    return tuple(out)


def wa_report(settings: WaSettings, records: Mapping[int, WaRecord], *, session: str = "") -> Report:
    """A page for a WA archive alone: its figures and, as the 'profile', its write_amplification section."""
    bench = settings.bench
    drive = bench.get("drive") or {}
    device = {"model": drive.get("model") or ("charz simulated FTL" if bench.get("kind") == "mock" else None),
              "serial": drive.get("serial")}
    profile = {"results": steady_results(settings, records), "device": {k: v for k, v in device.items() if v},
               "provenance": {"bench_kind": bench.get("kind", "?"), "captures_used": len(records),
                              "captures_total": len(settings.plan)},
               "write_amplification": wa_section(settings, records)}
    return Report(profile, wa_sections(settings, records), session, "the WA archive's steps (charz wa)")


def steady_results(settings: WaSettings, records: Mapping[int, WaRecord]) -> dict[str, dict]:
    """The page's results: each steady series' WA by R/B and by the drive's counters, and the
    greedy closed form over the held-block range where the spare factor is known."""
    out: dict[str, dict] = {}
    for s in steady_series(records, closed_form_of(settings.bench)):
        tag = "own_op" if s.op_percent is None else f"op_{s.op_percent:g}".replace(".", "_")
        for key, m, how in (("rb", s.rb, "Eq. 7 from die 0's R/B program pulses"),
                            ("smart", s.smart, "the drive's own write counters (smartctl JSON)")):
            if m:
                out[f"wa_steady_{key}_{tag}"] = {
                    "value": round(m[0], 4), "uncertainty": round(m[1], 4), "unit": "", "origin": "inferred",
                    "confidence": "high",
                    "evidence": f"{s.label}: {how}; {m[0]:.3f} ± {m[1]:.3f} (mean ± standard error)"}
        if s.spare_factor is not None:
            lo, hi = (greedy_wa_sf(held_spare_factor(s.spare_factor, h, s.units_per_pool), s.pages_per_unit)
                      for h in s.held_units)
            out[f"wa_greedy_model_{tag}"] = {
                "value": round((lo + hi) / 2, 4), "uncertainty": round((hi - lo) / 2, 4), "unit": "",
                "origin": "inferred", "confidence": "medium",
                "evidence": f"Desnoyers Eq. 12 at S_f {s.spare_factor:.4f} less {s.held_units[0]:g}–"
                            f"{s.held_units[1]:g} free units of {s.units_per_pool} per pool "
                            f"({s.pages_per_unit} pages per unit): {lo:.3f}–{hi:.3f}"}
    return out


def profile_wa_section(profile: Mapping[str, Any]) -> Section | None:
    """A profile's ``write_amplification`` table drawn: WA per step with its standard error.
    None when the profile has no such section."""
    wa = profile.get("write_amplification")
    if not isinstance(wa, Mapping):
        return None
    steps = [s for s in wa.get("steps") or [] if isinstance(s, Mapping)]
    rows = [s for s in steps if isinstance(s.get("wa"), Mapping) and s["wa"].get("value") is not None]
    title, caption = ("Write amplification per step (from the profile)",
                      "The profile's write_amplification section (charz wa profile --into): WA of each step by "
                      "RB-Explorer's Eq. 7 from one die's R/B program pulses, with its standard error; hollow "
                      "circles are steps the checks did not trust, squares the drive's own counters where "
                      "read. `charz report --wa DIR` adds the archive's pulse-width histogram and the "
                      "closed-form comparison.")
    if not rows:
        return Section("8-write-amplification", title, caption, (), None, "the profile's write_amplification "
                       "section has no step with a WA")
    fig = new_figure(10, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(rows))
    for trusted in (True, False):
        idx = [i for i, s in enumerate(rows) if bool(s.get("trusted")) == trusted]
        if idx:
            ax.errorbar(x[idx], [rows[i]["wa"]["value"] for i in idx],
                        yerr=[rows[i]["wa"].get("uncertainty") or 0.0 for i in idx], fmt="o", ms=4,
                        color=MEASURED, mfc=MEASURED if trusted else "none",
                        label="trusted" if trusted else "not trusted")
    ctr = [(i, s["counter_wa"]) for i, s in enumerate(rows) if isinstance(s.get("counter_wa"), Mapping)]
    if ctr:
        ax.errorbar([i + 0.25 for i, _ in ctr], [c["value"] for _, c in ctr],
                    yerr=[c.get("uncertainty") or 0.0 for _, c in ctr], fmt="s", mfc="none", ms=4,
                    color=DOTS, label="drive's own counters (SMART)")
    ax.set_xticks(x, [str(s.get("label", "")) for s in rows], rotation=90, fontsize=6)
    ax.set_ylabel("write amplification (Eq. 7)")
    ax.set_title(f"{wa.get('method', 'RB-Explorer')}")
    ax.legend(fontsize=8)
    return Section("8-write-amplification", title, caption, (), figure_png(fig), None,
                   f"{len(rows)} of {len(steps)} steps with a WA")

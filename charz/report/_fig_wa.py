"""WA figures: the R/B low-pulse width histogram with the windows, WA per benchmark, WA vs volume.

Inputs are a WA archive's settings and step records (``charz.wa.read_wa``); outputs
PNG files.  The histogram is what tells a wrong window: programs should form modes
well inside (a, b), reads and erases their own, nothing piled against an edge.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from charz.analysis import agarwal_wa_rho, greedy_wa_sf, lrw_wa_sf, rho_from_sf
from charz.report._style import DOTS, FIT, MEASURED, new_figure
from charz.wa import WaRecord, WaSettings

__all__ = ["histogram_figure", "benchmarks_figure", "volume_figure", "models_figure"]


def histogram_figure(settings: WaSettings, records: Mapping[int, WaRecord]):
    w = settings.windows
    total = None
    for r in records.values():
        h = np.asarray(r.counts.histogram, dtype=np.int64)
        total = h if total is None else total + h
    fig = new_figure(8, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    if total is None:
        ax.text(0.5, 0.5, "no steps recorded", ha="center", transform=ax.transAxes)
        return fig
    edges = np.arange(total.size + 1) * w.bin_us
    keep = total > 0
    ax.bar(edges[:-1][keep], total[keep], width=w.bin_us, align="edge", color=DOTS, label="low pulses")
    for (lo, hi), name, colour in ((w.program_us, "program window", FIT), (w.read_us, "read", "#55a868"),
                                   (w.erase_us, "erase", "#8172b2")):
        ax.axvspan(lo, hi, alpha=0.12, color=colour, label=f"{name} ({lo:g}, {hi:g}) µs")
    ax.set_xscale("symlog", linthresh=100)
    ax.set_yscale("log")
    ax.set_xlabel("R/B low-pulse width (µs)")
    ax.set_ylabel("pulses (all steps)")
    ax.set_title("R/B low-pulse widths and the windows (000 Table 2)")
    ax.legend(fontsize=8)
    return fig


def benchmarks_figure(records: Mapping[int, WaRecord]):
    rows = [r for _, r in sorted(records.items()) if r.step.kind == "benchmark" and r.estimate]
    fig = new_figure(10, 5)
    ax = fig.add_subplot(1, 1, 1)
    if not rows:
        ax.text(0.5, 0.5, "no benchmark with a WA", ha="center", transform=ax.transAxes)
        return fig
    x = np.arange(len(rows))
    wa = [r.estimate.wa.value for r in rows]
    u = [r.estimate.wa.uncertainty for r in rows]
    ax.errorbar(x, wa, yerr=u, fmt="o", color=MEASURED, label="measured (Eq. 7)", ms=4)
    truth = [(i, r.truth["true_wa"]) for i, r in enumerate(rows) if r.truth]
    if truth:
        ax.plot([i for i, _ in truth], [t for _, t in truth], "x", color=FIT, label="simulator's true WA")
    smart = [(i, ((r.counters or {}).get("wa") or {})) for i, r in enumerate(rows)]
    smart = [(i, c["value"], c.get("uncertainty") or 0.0) for i, c in smart if c.get("value")]
    if smart:
        ax.errorbar([i + 0.25 for i, _, _ in smart], [v for _, v, _ in smart], yerr=[u for _, _, u in smart],
                    fmt="s", mfc="none", color=DOTS, ms=4, label="drive's own counters (SMART)")
    ax.set_xticks(x, [r.label for r in rows], rotation=90, fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("write amplification")
    ax.set_title("WA per 000 Table 3 micro-benchmark")
    ax.legend(fontsize=8)
    return fig


def volume_figure(records: Mapping[int, WaRecord]):
    series: dict[str, list[tuple[float, float, float]]] = {}
    for _, r in sorted(records.items()):
        if r.step.kind != "subtest" or not r.estimate:
            continue
        op = r.step.op_percent
        key = f"OP {op:g} %" if op is not None else "drive's OP"
        series.setdefault(key, []).append((r.logical_bytes, r.estimate.wa.value, r.estimate.wa.uncertainty))
    fig = new_figure(8, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    if not series:
        ax.text(0.5, 0.5, "no sub-tests", ha="center", transform=ax.transAxes)
        return fig
    for key, pts in series.items():
        vol = np.cumsum([p[0] for p in pts]) / 2**20
        ax.errorbar(vol, [p[1] for p in pts], yerr=[p[2] for p in pts], fmt="o-", ms=4, label=key)
    ax.set_xlabel("logical volume written so far (MiB)")
    ax.set_ylabel("WA of the sub-test")
    ax.set_title("WA vs logical volume (000 Fig. 10, WALVD)")
    ax.legend(fontsize=8)
    return fig


def models_figure(series):
    """Closed forms against S_f (spare/physical), the measured steady WA of each OP series at
    its own S_f; the horizontal bar is the spare the GC really has (S_f less the units it
    keeps free), the range the closed form is read over."""
    placed = [s for s in series if s.spare_factor is not None]
    fig = new_figure(8, 5)
    ax = fig.add_subplot(1, 1, 1)
    if not placed:
        ax.text(0.5, 0.5, "no steady sub-test series with a known spare factor", ha="center",
                transform=ax.transAxes)
        return fig
    sfs = [s.spare_factor for s in placed]
    lo_sf = max(0.02, min(s.spare_factor - s.held_units[1] / s.units_per_pool for s in placed) * 0.8)
    grid = np.linspace(lo_sf, min(0.6, max(sfs) * 1.5 + 0.05), 200)
    n_p = placed[0].pages_per_unit
    ax.plot(grid, [lrw_wa_sf(x) for x in grid], color="0.4", lw=1,
            label="LRW / FIFO = Dayan δ (Desnoyers Eq. 4, 002 Eq. 3)")
    ax.plot(grid, [greedy_wa_sf(x, n_p) for x in grid], color=FIT, lw=1.5, label=f"greedy, {n_p} pages/block (Eq. 12)")
    ax.plot(grid, [agarwal_wa_rho(rho_from_sf(x)) for x in grid], color="0.4", ls=":", lw=1,
            label="Agarwal (1 + ρ)/(2ρ), ρ = S_f/(1 − S_f)")
    for k, s in enumerate(placed):
        lo, hi = (s.spare_factor - h / s.units_per_pool for h in reversed(s.held_units))
        for m, fmt, name, colour in ((s.rb, "o", "R/B pin (Eq. 7)", MEASURED),
                                     (s.smart, "s", "drive's counters (SMART)", DOTS)):
            if not m:
                continue
            x = (lo + hi) / 2
            ax.errorbar([x], [m[0]], yerr=[m[1]], xerr=[[x - lo], [hi - x]], fmt=fmt, color=colour,
                        mfc="none" if fmt == "s" else colour, ms=5, capsize=2, label=name if k == 0 else None)
        ax.axvline(s.spare_factor, color="0.8", lw=0.8, zorder=0)
    ax.set_ylim(bottom=1.0)
    ax.set_xlabel("spare factor S_f = spare / physical (grey lines: nominal; bars: less the GC's free units)")
    ax.set_ylabel("write amplification, steady state")
    ax.set_title("Uniform random 4 KiB writes: measured WA against the closed forms")
    ax.legend(fontsize=7)
    return fig

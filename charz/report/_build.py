"""Profile + measured captures → the report's sections (figures as PNG bytes, or why one is missing).

No files: the archive has been read and measured by the caller; figures are
rendered to bytes in memory.  A section whose profile table is missing or
inconsistent becomes a note, so one bad table never costs the whole page.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np
from matplotlib.figure import Figure

from charz.analysis import W_PATTERN, W_PEAK
from charz.archive import Capture
from charz.report._evidence import (
    Measured,
    representative_captures,
    select_read_sizes,
    select_write_pages,
    smoothed_curve,
    time_span_s,
    write_peaks,
)
from charz.report._curve import Curve
from charz.report._fig_allocation import allocation_figure
from charz.report._fig_rise import rise_figure
from charz.report._fig_power import power_figure
from charz.report._fig_reads import read_bursts_figure
from charz.report._fig_rmw import rmw_figure
from charz.report._fig_steps import staircase_figure
from charz.report._fig_validation import validation_figure
from charz.report._fig_waveforms import overlay_figure
from charz.report._model import Report, Section
from charz.report._wa_report import profile_wa_section, wa_sections
from charz.report._numbers import format_quantity, size_label
from charz.report._style import figure_png

__all__ = ["build_report", "validation_rows"]

Drawn = tuple[Optional[Figure], Optional[str]]  # the figure, or None and why


def _reason(profile: Mapping[str, Any], table: str) -> str:
    section = profile.get(table)
    return str(section.get("reason", "")) if isinstance(section, Mapping) else ""


def _validation_summary(profile: Mapping[str, Any]) -> str:
    """003 Table 4's line for this drive, and the validation's notes, if ``charz validate`` wrote them."""
    section = profile.get("validation")
    if not isinstance(section, Mapping):
        return ""
    parts = []
    vs = section.get("aligned_vs_4k")
    if isinstance(vs, Mapping):
        base, top = vs.get("baseline_record_size_bytes"), vs.get("aligned_record_size_bytes")
        speed, energy = vs.get("mb_per_s_change_pct"), vs.get("energy_change_pct")
        if isinstance(speed, (int, float)) and isinstance(energy, (int, float)) and base and top:
            parts.append(f"{size_label(top)} records against {size_label(base)}: {speed:+.0f} % MB/s, "
                         f"{energy:+.0f} % energy (003 Table 4 reports this ratio)")
        elif vs.get("reason"):
            parts.append(f"no aligned-vs-4 KiB ratio: {vs['reason']}")
    if section.get("source"):
        parts.append(f"source: {section['source']}")
    parts += [str(n) for n in section.get("notes", []) or []]
    return "\n".join(parts)


def _value(profile: Mapping[str, Any], key: str) -> Any:
    return ((profile.get("results") or {}).get(key) or {}).get("value")


def _page_size(profile: Mapping[str, Any]) -> int | None:
    page = (profile.get("given") or {}).get("page_size_bytes")
    return int(page) if isinstance(page, (int, float)) and page > 0 else None


def _time_reference(captures: Sequence[Capture]) -> str:
    return captures[0].time_reference if captures else "request"


def _staircase(profile, measured: Measured, captures) -> Drawn:
    steps = profile.get("steps")
    if not steps:
        return None, "the profile has no steps table (the analysis stopped before the staircase: see the warnings)"
    page = _page_size(profile)
    if page is None:
        return None, "the page size is not given, so write sizes cannot be counted in pages"
    pages, peaks = write_peaks(measured, page)
    results = profile.get("results") or {}
    d_step = format_quantity(results.get("step_pages"), with_evidence=False)
    if isinstance(_value(profile, "step_pages"), int):
        d_step += f" ({size_label(_value(profile, 'step_pages') * page)})"
    annotations = {
        "N_step": format_quantity(results.get("n_step"), with_evidence=False),
        "D_step": d_step,
        "N_die": format_quantity(results.get("dies_per_package"), with_evidence=False),
        "I/O unit": format_quantity(results.get("write_io_unit_bytes"), with_evidence=False),
    }
    if results.get("idle_a"):  # the dots are above idle, m_peak and M_peak include it: say by how much
        annotations["idle"] = format_quantity(results["idle_a"], with_evidence=False) + " (subtracted)"
    accepted = _value(profile, "n_step") is not None
    return staircase_figure(pages, peaks, steps, annotations=annotations, page_size_bytes=page, accepted=accepted), None


def _overlay(profile, measured: Measured, captures) -> Drawn:
    page = _page_size(profile)
    writes = measured.usable & (measured.op == "write")
    if not writes.any():
        return None, "the session has no usable write captures"
    rises = (profile.get("steps") or {}).get("rises_after_pages") or []
    if page:
        whole = measured.size_bytes[writes] % page == 0
        sizes = [p * page for p in select_write_pages(measured.size_bytes[writes][whole] // page, rises)]
    else:
        sizes = select_write_pages(measured.size_bytes[writes], [])
    chosen = representative_captures(measured, "write", sizes)
    by_index = {c.index: c for c in captures}
    curves = [smoothed_curve(by_index[i], W_PEAK) for i in chosen.values() if i in by_index]
    if not curves:
        return None, "the chosen write captures are not in the archive"
    return overlay_figure(curves, window_samples=W_PEAK, t_range_s=time_span_s(measured, chosen.values()),
                          time_reference=_time_reference(captures),
                          title="write waveforms, one capture per size"), None


def _allocation(profile, measured, captures) -> Drawn:
    alloc = profile.get("allocation")
    if not alloc or not alloc.get("candidates"):
        scheme = (profile.get("results") or {}).get("allocation_scheme")
        why = format_quantity(scheme) if scheme else "no allocation_scheme result"
        return None, f"the profile has no allocation candidates ({why})"
    return allocation_figure(alloc, chosen_scheme=_value(profile, "allocation_scheme")), None


def _rise(profile, measured, captures) -> Drawn:
    rise = profile.get("rise")
    if not rise or not rise.get("t_s"):
        return None, "the rise of a one-unit write was not fitted (needs channels, packages, tPROG and page transfer time)"
    return rise_figure(rise, time_reference=_time_reference(captures)), None


def _reads(profile, measured: Measured, captures) -> Drawn:
    reads = measured.usable & (measured.op == "read")
    if not reads.any():
        return None, "the session has no usable read captures (simulate or characterize with read sizes)"
    read_unit = _value(profile, "read_io_unit_bytes")
    guide = read_unit or _value(profile, "write_io_unit_bytes")  # 003 Fig. 15 picks MXP's reads around its write unit
    sizes = select_read_sizes(measured.size_bytes[reads], unit_bytes=guide, page_bytes=_page_size(profile))
    chosen = representative_captures(measured, "read", sizes)
    by_index = {c.index: c for c in captures}
    picked = [by_index[i] for i in chosen.values() if i in by_index]
    if not picked:
        return None, "the chosen read captures are not in the archive"
    counted = profile.get("reads") if isinstance(profile.get("reads"), Mapping) else None
    return read_bursts_figure(
        [smoothed_curve(c, W_PATTERN) for c in picked],
        window_samples=W_PATTERN,
        detail=[smoothed_curve(c, W_PEAK) for c in picked],
        detail_window_samples=W_PEAK,
        bursts=counted if counted and counted.get("bursts") else None,
        read_unit_bytes=read_unit,
        t_range_s=time_span_s(measured, chosen.values()),
        time_reference=_time_reference(captures),
    ), None


def validation_rows(profile: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The validation rows of a profile: a list, or a table holding one under ``rows``; None if absent.

    Examples
    --------
    >>> validation_rows({"validation": {"rows": [{"record_size_bytes": 4096}]}})
    [{'record_size_bytes': 4096}]
    >>> validation_rows({}) is None
    True
    """
    section = profile.get("validation")
    if isinstance(section, Mapping):
        section = section.get("rows")
    return list(section) if isinstance(section, (list, tuple)) and section else None


def _validation(profile, measured, captures) -> Drawn:
    rows = validation_rows(profile)
    if rows is None:
        return None, "the profile has no validation section (charz validate adds one)"
    return validation_figure(rows), None


def _rmw(profile, measured: Measured, captures) -> Drawn:
    rmw = profile.get("rmw")
    if not isinstance(rmw, Mapping):
        return None, "the profile has no read-modify-write table (it needs writes and reads of one unit)"
    unit = _value(profile, "write_io_unit_bytes")
    page = _page_size(profile)
    writes = np.unique(measured.size_bytes[measured.usable & (measured.op == "write")])
    reads = np.unique(measured.size_bytes[measured.usable & (measured.op == "read")])
    picks: list[tuple[str, str, int]] = []
    if unit and reads.size:
        read_size = int(reads[np.argmin(np.abs(reads - unit))])
        picks.append(("read", f"read {size_label(read_size)}", read_size))
    small = int(page) if page and page in writes else (int(writes.min()) if writes.size else None)
    if small is not None:
        picks.append(("write", f"write {size_label(small)}", small))
    if unit and unit in writes and unit != small:
        picks.append(("write", f"write {size_label(unit)} (one unit)", int(unit)))
    by_index = {c.index: c for c in captures}
    curves, indices = [], []
    for op, label, size in picks:
        hit = representative_captures(measured, op, [size])
        if size in hit and hit[size] in by_index:
            c = smoothed_curve(by_index[hit[size]], W_PEAK)
            curves.append(Curve(label, c.t_s, c.current_a, size_bytes=size))
            indices.append(hit[size])
    span = time_span_s(measured, indices[:1]) if indices else None
    verdict = {True: "yes", False: "no", None: "undetermined"}[rmw.get("detected")]
    return rmw_figure(curves, rmw, unit_bytes=unit, t_range_s=span, time_reference=_time_reference(captures),
                      verdict=f"{verdict} ({rmw.get('confidence', '?')})"), None


def _power(profile, measured: Measured, captures) -> Drawn:
    power = profile.get("power")
    if not isinstance(power, Mapping) or not (power.get("rail_v") or {}).get("value"):
        return None, "the profile has no power table (the rail voltage is unknown)"
    rail = power["rail_v"]
    writes = measured.usable & (measured.op == "write")
    return power_figure(power.get("energy") or [], write_sizes_bytes=measured.size_bytes[writes],
                        write_peaks_a=measured.peak_a[writes], rail_v=float(rail["value"]),
                        rail_origin=str(rail.get("origin", "?")), m_peak_a=_value(profile, "M_peak_a")), None


# key, title, what the figure shows and how to hold it against 003, the results it is evidence for,
# the drawer, and where the profile explains the table drawn
_SECTIONS: tuple[tuple[str, str, str, tuple[str, ...], Callable[..., Drawn], Callable[..., str]], ...] = (
    ("1-peak-staircase", "Peak current vs write size",
     "Each dot is one write capture: the highest w = 20 moving average of its current, above the idle level "
     "just before the request. Black points are the per-size medians with their standard errors; the red "
     "treads are the staircase levels charz fitted, the dotted lines its step boundaries. Count the treads "
     "(N_step) and their width in pages (D_step), as in 003 Fig. 3; Eq. 1 turns them and the package count "
     "into dies per package, Eq. 2 into the write I/O unit.",
     ("n_step", "step_pages", "dies_per_package", "packages_per_unit", "write_io_unit_bytes", "m_peak_a", "M_peak_a"),
     _staircase, lambda p: _reason(p, "steps")),
    ("2-write-waveforms", "Write waveforms by size",
     "One capture per selected size (one page, the last size of each step, the first size with every package "
     "busy, the largest), smoothed with the w = 20 moving average, time from the {t0}. As in 003 Fig. 8, "
     "10, 12 and 14, the peak only climbs when a write crosses a step boundary, while the duration grows with "
     "every I/O unit.",
     ("n_step", "step_pages", "idle_a", "m_peak_a", "M_peak_a"),
     _overlay, lambda p: ""),
    ("3-allocation", "Predicted vs measured durations per allocation candidate",
     "Measured request durations (white points: median ± standard error) at every full-I/O-unit size, "
     "against the durations each allocation scheme predicts with the latency recurrence of 003 §4.2 "
     "(register transfer, channel switch, program time). The chosen scheme is the bold red curve; the "
     "lower panel shows the residuals, where close candidates separate.",
     ("allocation_scheme", "t_xfer_page_s", "t_switch_s", "t_prog_s", "packages_per_unit"),
     _allocation, lambda p: _reason(p, "allocation")),
    ("3b-rise", "The rise of a one-unit write",
     "The mean current of the writes of exactly one I/O unit, averaged over 22 µs (one ISPP period), against "
     "the best fit of every package count and walk: each package of the unit starts programming a channel "
     "switch after the previous one on another channel, a page transfer later on the same channel, and each "
     "start is a step up. The step count is the packages per unit (dies = unit / packages); the spacing "
     "tells the walk where durations alone cannot. The results' decided_by says which view decided.",
     ("packages_per_unit", "dies_per_package", "allocation_scheme"),
     _rise, lambda p: str((p.get("rise") or {}).get("reason", ""))),
    ("4-read-bursts", "Read bursts",
     "Read captures of a few sizes, one panel each: the w = 100 moving average 003 uses for patterns (bold) "
     "over the w = 20 average (thin), time from the {t0}. 003 Fig. 9, 11, 13 and 15 read the read I/O unit from how often the "
     "waveform of one unit repeats; when the profile counts bursts, the right panel shows the count per "
     "read size against one burst per read unit.",
     ("read_io_unit_bytes", "write_io_unit_bytes"),
     _reads, lambda p: _reason(p, "reads")),
    ("5-validation", "Throughput and energy, aligned vs not",
     "Sequential O_DIRECT writes per record size: throughput (MB/s) and energy per megabyte (J/MB), bars "
     "grouped by whether the record size is a multiple of the measured write I/O unit, as in 003 Fig. 18 "
     "and Table 4.",
     ("write_io_unit_bytes",),
     _validation, _validation_summary),
    ("6-read-modify-write", "Read-modify-write",
     "Left, as 003 Fig. 16: the start of a one-page write, a one-unit write and a read of about one unit, "
     "w = 20 moving average, time from the {t0}. A drive that writes whole units reads the rest of the unit "
     "before a smaller write, so that write starts like the read; a whole-unit write does not. Right: the rms "
     "distance between each write size's first samples and the read's, which the analysis decided on; red "
     "sizes start like the read.",
     ("write_io_unit_bytes",),
     _rmw, lambda p: str((p.get("rmw") or {}).get("reason", ""))),
    ("7-power-budget", "Energy per request and Power Budget",
     "Left: the energy of one request, rail voltage × current integrated over the request, per size. "
     "Right: the peak power of every write capture (rail voltage × its w = 20 peak current); the line is "
     "M_peak × rail voltage, the Power Budget (003 §7) a supply must allow when every package programs at once.",
     ("M_peak_a", "m_peak_a", "idle_a"),
     _power, lambda p: str(((p.get("power") or {}).get("rail_v") or {}).get("note", ""))),
)


def _section(key, title, caption, result_keys, draw, explain, profile, measured, captures) -> Section:
    try:
        fig, note = draw(profile, measured, captures)
    except ValueError as exc:  # a profile table that contradicts itself: say so, draw the rest
        fig, note = None, f"could not be drawn: {exc}"
    png = figure_png(fig) if fig is not None else None
    # One time reference for every figure and caption: the archive's own t = 0.
    caption = caption.replace("{t0}", _time_reference(captures))
    return Section(key, title, caption, result_keys, png, note, explain(profile))


def build_report(
    profile: Mapping[str, Any],
    measured: Measured,
    captures: Sequence[Capture],
    *,
    session: str = "",
    profile_source: str = "",
    damaged: Sequence[str] = (),
    wa: tuple[Mapping[str, Any], Mapping[int, dict]] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Draw every figure the profile and the captures allow.

    Parameters
    ----------
    profile : mapping
        A ``charz.profile/1`` profile (read or just computed).
    measured : Measured
        Per-capture measurements of ``captures`` (``Measured.from_table(measure_traces(...))``).
    captures : sequence of Capture
        The archive's captures; only the few drawn as waveforms are touched.
    session, profile_source : str
        Where the captures and the profile came from, in words, for the page's header.
    damaged : sequence of str
        Damaged files a tolerant read skipped, one line each.
    wa : (settings, records), optional
        A WA archive (``charz wa``) whose figures join the page; without one, a profile's
        ``write_amplification`` section is drawn on its own.
    progress : callable, optional
        Called as ``progress(key, i, n)`` before the i-th of n figures is drawn (the CLI's
        progress line: drawing takes seconds).

    Returns
    -------
    Report

    Examples
    --------
    A profile with nothing to draw still gives every section, each saying why it is empty:

    >>> r = build_report({"results": {}}, Measured.of(op=[]), [])
    >>> [(s.key, s.drawn) for s in r.sections][:2]
    [('1-peak-staircase', False), ('2-write-waveforms', False)]
    """
    sections = []
    for i, spec in enumerate(_SECTIONS):
        if progress is not None:
            progress(spec[0], i, len(_SECTIONS) + (1 if wa is not None else 0))
        sections.append(_section(*spec, profile, measured, captures))
    sections = tuple(sections)
    if wa is not None:
        if progress is not None:
            progress("wa figures", len(_SECTIONS), len(_SECTIONS) + 1)
        sections += wa_sections(*wa)
    elif (own := profile_wa_section(profile)) is not None:
        sections += (own,)
    return Report(dict(profile), sections, session, profile_source, tuple(damaged),
                  _time_reference(captures) if captures else "")

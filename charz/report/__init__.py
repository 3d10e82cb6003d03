"""Report: the evidence behind a profile's numbers, as PNG figures and one self-contained HTML page.

Figures are pure functions (arrays and dicts in, a matplotlib ``Figure`` out, drawn
by Agg, no files); a thin layer renders them to PNG bytes, another writes files.

Catalogue
=========

Figures (``_fig_*``)
    staircase_figure    peak current vs write size, medians, fitted levels and boundaries (003 Fig. 3)
    overlay_figure      w = 20 waveforms of a few write sizes on one axis (003 Fig. 8/10/12/14)
    allocation_figure   measured durations vs each allocation candidate, residuals (003 §4.2)
    read_bursts_figure  w = 100 read waveforms stacked; bursts per size if counted (003 Fig. 9/11/13/15)
    validation_figure   MB/s and J/MB per record size, aligned vs not (003 Fig. 18)
    rmw_figure          heads of a small write, a unit write and a unit read; head distances (003 Fig. 16)
    power_figure        energy per request; peak power per write vs M_peak × rail (003 §7 Power Budget)
    capture_figure      one capture, samples and w = 20 average (charz show)

Evidence (``_evidence``, ``_curve``)
    Measured            the per-capture columns the report draws
    Curve               one smoothed capture on its time axis
    write_peaks, select_write_pages, select_read_sizes, representative_captures,
    smoothed_curve, time_span_s

Assembly (``_build``, ``_model``, ``_html``, ``_numbers``, ``_style``)
    build_report        profile + measurements + captures → Report (sections with PNG bytes or a note)
    render_html         Report → one HTML page, images as data URIs, nothing fetched
    format_quantity     one profile result as text ("undetermined — <evidence>" when it is)
    figure_png          Figure → PNG bytes

Files (``_inputs``, ``_write``)
    load_inputs         session directory (+ profile) → Inputs
    write_report        Report → report.html and the PNGs

Example
-------
>>> from charz.report import build_report, Measured
>>> report = build_report({"results": {}}, Measured.of(op=[]), [])
>>> [s.drawn for s in report.sections]
[False, False, False, False, False, False, False, False]
"""

from charz.report._build import build_report, validation_rows
from charz.report._curve import Curve
from charz.report._evidence import (
    Measured,
    representative_captures,
    select_read_sizes,
    select_write_pages,
    smoothed_curve,
    time_span_s,
    write_peaks,
)
from charz.report._fig_allocation import allocation_figure, distinct_candidates
from charz.report._fig_reads import read_bursts_figure
from charz.report._fig_steps import staircase_figure
from charz.report._fig_validation import validation_figure
from charz.report._fig_waveforms import overlay_figure
from charz.report._html import render_html
from charz.report._inputs import Inputs, load_inputs
from charz.report._model import Report, Section
from charz.report._numbers import format_quantity, size_label
from charz.report._style import figure_png
from charz.report._write import HTML_NAME, Written, write_report
from charz.report._fig_capture import capture_figure, capture_summary
from charz.report._wa_report import wa_report, write_wa_pngs

__all__ = [
    "HTML_NAME", "Curve", "Inputs", "Measured", "Report", "Section", "Written", "allocation_figure",
    "build_report", "distinct_candidates", "figure_png", "format_quantity", "load_inputs", "overlay_figure",
    "read_bursts_figure", "render_html", "representative_captures", "select_read_sizes", "select_write_pages",
    "size_label", "smoothed_curve", "staircase_figure", "time_span_s", "validation_figure", "validation_rows",
    "write_peaks", "write_report",
    "capture_figure", "capture_summary", "wa_report", "write_wa_pngs",
]

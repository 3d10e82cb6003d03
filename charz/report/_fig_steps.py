"""Figure 1: peak current over write size, with the staircase charz found (003 Fig. 3)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from matplotlib.figure import Figure

from charz._text import count
from charz.report._numbers import size_label
from charz.report._style import DOTS, FIT, MEASURED, new_figure

__all__ = ["staircase_figure"]

_MAX_LABELLED_BOUNDARIES = 8  # beyond this (X-25M: 19) the labels would overlap; the lines stay


def _arg_steps(steps: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float], list[int]]:
    sizes = np.asarray(steps.get("sizes_pages", []), dtype=float)
    median = np.asarray(steps.get("median_peak_a", []), dtype=float)
    stderr = np.asarray(steps.get("stderr_a", np.zeros_like(median)), dtype=float)
    if not (sizes.shape == median.shape == stderr.shape):
        raise ValueError(f"steps: sizes_pages, median_peak_a and stderr_a differ in length "
                         f"({sizes.size}, {median.size}, {stderr.size})")
    levels = [float(v) for v in steps.get("levels_a", [])]
    rises = sorted(int(r) for r in steps.get("rises_after_pages", []))
    if levels and len(levels) != len(rises) + 1:
        raise ValueError(f"steps: {len(levels)} levels need {len(levels) - 1} rises, got {len(rises)}")
    return sizes, median, stderr, levels, rises


def _level_segments(levels: list[float], rises: list[int], first_page: float, last_page: float):
    """(x0, x1, level) for each tread; a rise after page r sits half-way between r and r + 1."""
    edges = [first_page - 0.5] + [r + 0.5 for r in rises] + [last_page + 0.5]
    return [(edges[i], edges[i + 1], level) for i, level in enumerate(levels)]


def staircase_figure(
    capture_pages: np.ndarray,
    capture_peak_a: np.ndarray,
    steps: Mapping[str, Any],
    *,
    annotations: Mapping[str, str] | None = None,
    page_size_bytes: int | None = None,
    title: str = "",
    accepted: bool = True,
) -> Figure:
    """Peak current of every capture over its write size, the per-size medians and the fitted staircase.

    Parameters
    ----------
    capture_pages, capture_peak_a : array_like
        One entry per usable write capture: its size in pages and its peak (max of the
        w = 20 moving average) above the idle level just before the request, in A.
    steps : mapping
        The profile's ``steps`` table: ``sizes_pages``, ``median_peak_a``, ``stderr_a``,
        ``levels_a`` (may be empty: no staircase fitted), ``rises_after_pages``, ``reason``.
    annotations : mapping of str to str, optional
        Lines for the result box, e.g. ``{"N_step": "4 steps", "D_step": "8 pages"}``.
    page_size_bytes : int, optional
        Adds a top axis in KiB.
    title : str, optional
        Replaces the default title; "no staircase fitted" and why is appended when it is so.
    accepted : bool
        False when the analysis left N_step undetermined: the levels are then its closest
        candidate, drawn dashed and labelled "not accepted".

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> steps = {"sizes_pages": [1, 2, 3, 4], "median_peak_a": [0.1, 0.1, 0.2, 0.2],
    ...          "stderr_a": [0.001] * 4, "levels_a": [0.1, 0.2], "rises_after_pages": [2]}
    >>> fig = staircase_figure([1, 2, 3, 4], [0.1, 0.1, 0.2, 0.2], steps, annotations={"N_step": "2 steps"})
    >>> fig.axes[0].get_xlabel()
    'write size (pages)'
    """
    pages = np.asarray(capture_pages, dtype=float)
    peaks = np.asarray(capture_peak_a, dtype=float)
    if pages.shape != peaks.shape:
        raise ValueError(f"capture_pages and capture_peak_a differ in shape: {pages.shape} vs {peaks.shape}")
    sizes, median, stderr, levels, rises = _arg_steps(steps)

    fig = new_figure(10.5, 5.2)
    ax = fig.add_subplot()
    ax.scatter(pages, peaks * 1e3, s=9, color=DOTS, alpha=0.35, linewidths=0, label=f"each capture ({pages.size})", zorder=2)
    if sizes.size:
        ax.errorbar(sizes, median * 1e3, yerr=stderr * 1e3, fmt="o", ms=3.5, color=MEASURED, capsize=2.5, lw=1,
                    label="median per size ± standard error", zorder=3)
    all_pages = np.concatenate([pages, sizes]) if (pages.size or sizes.size) else np.array([1.0])
    first, last = float(all_pages.min()), float(all_pages.max())
    if levels:
        # A staircase the analysis rejected is still worth seeing (it shows where the data leave it),
        # but dashed and named for what it is.
        label = (f"fitted staircase ({len(levels)} levels)" if accepted
                 else f"closest staircase, not accepted ({len(levels)} levels)")
        for i, (x0, x1, level) in enumerate(_level_segments(levels, rises, first, last)):
            ax.hlines(level * 1e3, x0, x1, color=FIT, lw=2.2, alpha=0.85, zorder=4, gid="staircase-level",
                      linestyles="solid" if accepted else "dashed", label=label if i == 0 else None)
        for i, r in enumerate(rises):
            ax.axvline(r + 0.5, color=FIT, ls=":", lw=1.1, zorder=1, gid="step-boundary",
                       label="step boundary" if i == 0 else None)
            if len(rises) <= _MAX_LABELLED_BOUNDARIES:
                # Top left of the boundary: above the lower tread, which a rising staircase leaves empty.
                text = f"after {count(r, 'pages')}" + (f" ({size_label(r * page_size_bytes)})" if page_size_bytes else "")
                ax.annotate(text, (r + 0.5, 1.0), xycoords=("data", "axes fraction"), xytext=(-2, -4),
                            textcoords="offset points", rotation=90, ha="right", va="top", fontsize=7.5, color=FIT)
    title = title or "peak current vs write size"
    if not levels:
        title += f" — no staircase fitted: {steps.get('reason') or 'no reason recorded'}"
    ax.set_title(title, fontsize=10, loc="left")

    ax.set_xlim(first - 1, last + 1)
    ax.set_xlabel("write size (pages)")
    ax.set_ylabel("peak current above idle, w = 20 average (mA)")
    ax.grid(True, alpha=0.25)
    if page_size_bytes:
        kib = page_size_bytes / 1024
        top = ax.secondary_xaxis("top", functions=(lambda p: p * kib, lambda k: k / kib))
        top.set_xlabel("write size (KiB)")
    # The results and the legend sit beside the plot, where they can never hide a capture.
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, framealpha=0.9, borderaxespad=0)
    if annotations:
        box = "\n".join(f"{name} = {text}" for name, text in annotations.items())
        ax.text(1.02, 0.0, box, transform=ax.transAxes, va="bottom", ha="left", fontsize=9,
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "white", "edgecolor": "0.7"})
    legend.set_in_layout(True)
    return fig

"""Figure 3: measured request durations against each allocation candidate's prediction (003 §4.2, §5.3)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from charz._text import layout_words
from charz.report._style import CHOSEN, MEASURED, new_figure

__all__ = ["allocation_figure", "distinct_candidates"]

_OTHER_COLOURS = ("#4c72b0", "#55a868", "#8172b2", "#ccb974", "#64b5cd", "#937860")


def distinct_candidates(candidates: Sequence[Mapping[str, Any]], *, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Candidates in the profile's order (best first), those predicting the same curve merged.

    Two layouts of one scheme often predict identical durations (X-25M's 1×1 and 5×2
    channel-priority walks); drawn twice they would hide each other.  Returns the
    first ``limit`` distinct curves and how many more were left out.

    Examples
    --------
    >>> a = {"scheme": "way-priority", "layouts": ["2×2"], "predicted_s": [1e-3, 2e-3]}
    >>> b = {"scheme": "way-priority", "layouts": ["4×1"], "predicted_s": [1e-3, 2e-3]}
    >>> merged, more = distinct_candidates([a, b], limit=5)
    >>> merged[0]["layouts"], more
    (['2×2', '4×1'], 0)
    """
    merged: dict[tuple, dict[str, Any]] = {}
    for c in candidates:
        key = (c.get("scheme"), tuple(np.round(np.asarray(c.get("predicted_s", []), dtype=float) * 1e7).astype(np.int64)))
        if key in merged:
            merged[key]["layouts"] = list(merged[key]["layouts"]) + list(c.get("layouts", []))
        else:
            merged[key] = {**c, "layouts": list(c.get("layouts", []))}
    distinct = list(merged.values())
    return distinct[:limit], max(0, len(distinct) - limit)


def _label(c: Mapping[str, Any], chosen: bool) -> str:
    layouts = ", ".join(layout_words(name) for name in c["layouts"][:2]) + (" …" if len(c["layouts"]) > 2 else "")
    rms = c.get("rms_residual_s")
    rms_text = f", rms {rms * 1e6:.0f} µs" if isinstance(rms, (int, float)) else ""
    return f"{'chosen: ' if chosen else ''}{c['scheme']}{rms_text}" + (f" ({layouts})" if layouts else "")


def allocation_figure(
    allocation: Mapping[str, Any],
    *,
    chosen_scheme: str | None = None,
    max_candidates: int = 6,
) -> Figure:
    """Durations measured at every full-unit size, each candidate's predicted curve, and the residuals.

    The top panel is what 003 compares by hand (§5.3: 33 µs per page, 1.4 ms at the
    21st); the bottom panel shows measured − predicted, where a few microseconds of
    difference between close candidates becomes visible.

    Parameters
    ----------
    allocation : mapping
        The profile's ``allocation`` table: ``sizes_pages``, ``measured_s``,
        ``measured_se_s`` and ``candidates`` (best first) with ``scheme``, ``layouts``,
        ``predicted_s``, ``rms_residual_s``.
    chosen_scheme : str, optional
        The profile's ``allocation_scheme`` value; its best candidate is drawn bold.
        ``None`` (undetermined) highlights nothing.
    max_candidates : int
        Distinct candidate curves to draw.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> alloc = {"sizes_pages": [8, 16], "measured_s": [1.22e-3, 1.35e-3], "measured_se_s": [2e-6, 2e-6],
    ...          "candidates": [{"scheme": "channel-only", "layouts": ["4×1"], "predicted_s": [1.217e-3, 1.352e-3],
    ...                          "rms_residual_s": 3e-6}]}
    >>> fig = allocation_figure(alloc, chosen_scheme="channel-only")
    >>> fig.axes[1].get_ylabel().splitlines()[0]
    'measured − predicted (µs)'
    """
    sizes = np.asarray(allocation.get("sizes_pages", []), dtype=float)
    measured = np.asarray(allocation.get("measured_s", []), dtype=float)
    se = np.asarray(allocation.get("measured_se_s", np.zeros_like(measured)), dtype=float)
    if not (sizes.shape == measured.shape == se.shape):
        raise ValueError(f"allocation: sizes_pages, measured_s and measured_se_s differ in length "
                         f"({sizes.size}, {measured.size}, {se.size})")
    candidates, left_out = distinct_candidates(allocation.get("candidates", []), limit=max_candidates)
    for c in candidates:
        if len(c.get("predicted_s", [])) != sizes.size:
            raise ValueError(f"allocation candidate {c.get('scheme')!r} predicts {len(c.get('predicted_s', []))} "
                             f"durations for {sizes.size} sizes")
    chosen_at = next((i for i, c in enumerate(candidates) if c.get("scheme") == chosen_scheme), None)

    fig = new_figure(8.5, 6.4)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
    others = iter(_OTHER_COLOURS * 2)
    # Losers first, the chosen one last, so it is drawn on top.
    order = [i for i in range(len(candidates)) if i != chosen_at] + ([chosen_at] if chosen_at is not None else [])
    for i in order:
        c = candidates[i]
        chosen = i == chosen_at
        colour = CHOSEN if chosen else next(others)
        style = {"lw": 2.6, "zorder": 4, "alpha": 1.0} if chosen else {"lw": 1.1, "ls": "--", "zorder": 3, "alpha": 0.85}
        predicted = np.asarray(c["predicted_s"], dtype=float)
        top.plot(sizes, predicted * 1e6, marker=".", ms=4, color=colour, label=_label(c, chosen), **style)
        bottom.plot(sizes, (measured - predicted) * 1e6, marker=".", ms=4, color=colour, **style)
    top.errorbar(sizes, measured * 1e6, yerr=se * 1e6, fmt="o", ms=4.5, mfc="white", mec=MEASURED, ecolor=MEASURED,
                 capsize=2.5, lw=1, zorder=5, label="measured (median ± standard error)")
    bottom.axhline(0.0, color=MEASURED, lw=0.8)
    bottom.fill_between(sizes, -se * 1e6, se * 1e6, color="0.6", alpha=0.3, lw=0, label="± standard error of the measurement")

    # Close candidates differ by microseconds, poor ones by milliseconds: a symmetric log scale
    # keeps both readable, linear within a few standard errors of zero.
    linear_us = max(5.0, 3.0 * float(se.max(initial=0.0)) * 1e6)
    bottom.set_yscale("symlog", linthresh=linear_us, linscale=1.0)
    bottom.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # "-100", not "−10²"
    top.set_ylabel("request duration (µs)")
    bottom.set_ylabel(f"measured − predicted (µs)\nlinear within ±{linear_us:.0f} µs, log beyond", fontsize=9)
    bottom.set_xlabel("write size (pages; full I/O units only)")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.25)
    if left_out:
        top.plot([], [], " ", label=f"({left_out} more candidate curve(s) not drawn)")
    top.legend(fontsize=7.5, loc="upper left", framealpha=0.9)
    bottom.legend(fontsize=7.5, loc="lower left", framealpha=0.9)
    title = "request duration: measured vs each allocation candidate"
    if chosen_scheme is None:
        title += " — scheme undetermined, none highlighted"
    top.set_title(title, fontsize=10, loc="left")
    return fig

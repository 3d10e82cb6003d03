"""Figure 2: write waveforms of a few sizes laid over each other (003 Fig. 8, 10, 12, 14)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from charz.report._curve import Curve
from charz.report._style import new_figure, note_axes, time_axis

__all__ = ["overlay_figure"]


def overlay_figure(
    curves: Sequence[Curve],
    *,
    window_samples: int,
    t_range_s: tuple[float, float] | None = None,
    title: str = "",
    time_reference: str = "request",
) -> Figure:
    """Smoothed current of one capture per size on one time axis, coloured from small to large.

    A larger write lasts longer and, until every package is busy, climbs higher: the
    overlay shows both at once, as 003's write figures do.

    Parameters
    ----------
    curves : sequence of Curve
        Already smoothed (``window_samples`` says how), in the order of the legend.
    window_samples : int
        The moving-average window, for the axis label.
    t_range_s : (float, float), optional
        Time span to show; default the whole record.
    title : str
    time_reference : str
        What t = 0 is (the archive's ``time_reference``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> t = np.arange(100) * 2e-6
    >>> fig = overlay_figure([Curve("4 KiB", t, np.full(100, 0.1)), Curve("8 KiB", t, np.full(100, 0.2))],
    ...                      window_samples=20)
    >>> [line.get_label() for line in fig.axes[0].get_lines()][:2]
    ['4 KiB', '8 KiB']
    """
    fig = new_figure(8.5, 5.0)
    ax = fig.add_subplot()
    if not curves:
        note_axes(ax, "no captures to draw")
        return fig
    colours = colormaps["viridis"](np.linspace(0.0, 0.9, len(curves)))
    for curve, colour in zip(curves, colours):
        ax.plot(curve.t_s * 1e6, curve.current_a * 1e3, color=colour, lw=1.2, label=curve.label)
    time_axis(ax, time_reference, mark=True)
    if t_range_s is not None:
        ax.set_xlim(t_range_s[0] * 1e6, t_range_s[1] * 1e6)
    ax.set_ylabel(f"current, w = {window_samples} moving average (mA)")
    ax.grid(True, alpha=0.25)
    ax.legend(title="write size", fontsize=8, title_fontsize=8, loc="upper right", ncols=2 if len(curves) > 6 else 1)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig

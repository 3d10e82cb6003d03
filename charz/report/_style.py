"""What every report figure shares: an Agg canvas, the colours, PNG bytes.

Figures are built with :class:`matplotlib.figure.Figure` and an explicit
``FigureCanvasAgg`` rather than ``pyplot``: no global backend switch, no figure
registry to leak into, nothing that needs a display — and rcParams are never
touched, so importing the report does not restyle anyone else's plots.
"""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["CHOSEN", "DOTS", "FIT", "MEASURED", "TIME_ZERO", "figure_png", "new_figure", "note_axes", "time_axis"]

MEASURED = "#1b1b1b"  # medians and measured durations: the data a reader checks first
DOTS = "#4c72b0"  # individual captures
FIT = "#c44e52"  # what charz fitted to the data (staircase levels, chosen scheme)
CHOSEN = FIT
DPI = 110


def new_figure(width_in: float = 8.0, height_in: float = 5.0) -> Figure:
    """An empty figure drawn by Agg, laid out so labels never overlap.

    Examples
    --------
    >>> fig = new_figure(4, 3)
    >>> type(fig.canvas).__name__, fig.get_size_inches().tolist()
    ('FigureCanvasAgg', [4.0, 3.0])
    """
    fig = Figure(figsize=(width_in, height_in), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


#: What t = 0 is, for each ``time_reference`` an archive can hold; the page says it once.
TIME_ZERO = {
    "trigger": "the scope's trigger: the supply current rising through the trigger level as the request starts",
    "request": "the moment the request was issued (the simulator knows it exactly)",
}


def time_axis(ax, time_reference: str, *, label: bool = True, mark: bool = False) -> None:
    """One time axis for every figure: a dashed line at t = 0 and ``time from the <reference> (µs)``.

    ``mark`` writes "t = 0: <reference>" beside the line (on one panel per figure).

    Examples
    --------
    >>> ax = new_figure(3, 2).subplots()
    >>> time_axis(ax, "trigger", mark=True)
    >>> ax.get_xlabel(), [t.get_text() for t in ax.texts]
    ('time from the trigger (µs)', ['t = 0: trigger'])
    """
    ax.axvline(0.0, color="0.5", ls="--", lw=0.8)
    if mark:
        ax.annotate(f"t = 0: {time_reference}", (0.0, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -4),
                    textcoords="offset points", ha="left", va="top", fontsize=8, color="0.4")
    if label:
        ax.set_xlabel(f"time from the {time_reference} (µs)")


def note_axes(ax, text: str) -> None:
    """Say inside an empty panel why it is empty, instead of leaving a blank box."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", wrap=True, color="0.35")
    ax.set_xticks([])
    ax.set_yticks([])


def figure_png(fig: Figure, *, dpi: int = DPI) -> bytes:
    """The figure as PNG bytes.

    Matplotlib's "Software" text chunk is dropped: it carries a web address, and
    without it the same data gives byte-identical files.

    Examples
    --------
    >>> png = figure_png(new_figure(2, 2), dpi=50)
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", b"http" in png
    (True, False)
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()

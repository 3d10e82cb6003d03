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

__all__ = ["CHOSEN", "DOTS", "FIT", "MEASURED", "figure_png", "new_figure", "note_axes"]

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

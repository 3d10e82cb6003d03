"""Figure 4: read waveforms, one panel per size, and bursts per size (003 Fig. 9, 11, 13, 15; §4.1).

003 reads the read I/O unit by counting the bursts a read draws: the waveform of
one unit repeats once per unit read.  Stacked panels on a shared time axis make
the count easy; the optional right-hand panel is the count charz made.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from charz.report._curve import Curve
from charz.report._numbers import size_label
from charz.report._style import DOTS, FIT, MEASURED, new_figure, note_axes, time_axis

__all__ = ["read_bursts_figure"]


def _arg_bursts(bursts: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray] | None:
    if not bursts:
        return None
    sizes = np.asarray(bursts.get("sizes_bytes", []), dtype=float)
    counts = np.asarray(bursts.get("bursts", []), dtype=float)
    if sizes.shape != counts.shape:
        raise ValueError(f"reads: sizes_bytes and bursts differ in length ({sizes.size}, {counts.size})")
    return (sizes, counts) if sizes.size else None


def read_bursts_figure(
    curves: Sequence[Curve],
    *,
    window_samples: int,
    detail: Sequence[Curve] | None = None,
    detail_window_samples: int | None = None,
    bursts: Mapping[str, Any] | None = None,
    read_unit_bytes: int | None = None,
    t_range_s: tuple[float, float] | None = None,
    time_reference: str = "request",
) -> Figure:
    """Read captures of a few sizes, stacked, and (when given) the burst count per read size.

    Parameters
    ----------
    curves : sequence of Curve
        One smoothed read capture per panel (003's w = 100 pattern average).
    window_samples : int
        Window of ``curves``, for the legend.
    detail : sequence of Curve, optional
        The same captures with a shorter window, drawn thin behind: a burst shorter than
        the pattern window is averaged away in ``curves`` but still countable here.
    detail_window_samples : int, optional
        Window of ``detail``.
    bursts : mapping, optional
        The profile's ``reads`` table (``sizes_bytes``, ``bursts``); adds the count panel.
    read_unit_bytes : int, optional
        Marks where a read of one more unit adds one more burst.
    t_range_s : (float, float), optional
    time_reference : str

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> t = np.arange(50) * 4e-6
    >>> fig = read_bursts_figure([Curve("4 KiB", t, np.zeros(50))], window_samples=100,
    ...                          bursts={"sizes_bytes": [4096, 8192], "bursts": [1, 2]})
    >>> fig.axes[-1].get_ylabel()
    'bursts per read'
    """
    counted = _arg_bursts(bursts)
    n = max(1, len(curves))
    fig = new_figure(9.0 if counted else 8.5, max(3.2, 1.5 * n + 1.2))
    grid = fig.add_gridspec(n, 2 if counted else 1, width_ratios=[3, 2] if counted else [1])
    panels = [fig.add_subplot(grid[i, 0]) for i in range(n)]
    for ax in panels[1:]:
        ax.sharex(panels[0])
        ax.sharey(panels[0])
    if not curves:
        note_axes(panels[0], "no read captures in this session")
    detail = list(detail or [])
    for i, (ax, curve) in enumerate(zip(panels, curves)):
        if i < len(detail):
            ax.plot(detail[i].t_s * 1e6, detail[i].current_a * 1e3, color=DOTS, lw=0.7, alpha=0.55,
                    label=f"w = {detail_window_samples}" if detail_window_samples else "detail")
        ax.plot(curve.t_s * 1e6, curve.current_a * 1e3, color=MEASURED, lw=1.5, label=f"w = {window_samples}")
        time_axis(ax, time_reference, label=ax is panels[-1])  # t = 0 is named on the axis label
        ax.text(0.99, 0.93, f"read {curve.label}", transform=ax.transAxes, ha="right", va="top", fontsize=9,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8})
        ax.grid(True, alpha=0.25)
        if ax is not panels[-1]:
            ax.tick_params(labelbottom=False)
    if curves:
        panels[0].legend(fontsize=7.5, loc="upper left", framealpha=0.9, ncols=2)
        panels[0].set_title("current, moving averages of the read captures", fontsize=9, loc="left")
    if t_range_s is not None:
        panels[0].set_xlim(t_range_s[0] * 1e6, t_range_s[1] * 1e6)
    fig.supylabel("current (mA)", fontsize=10)

    if counted:
        sizes, counts = counted
        ax = fig.add_subplot(grid[:, 1])
        if read_unit_bytes:
            # Drawn on a fine grid so the steps sit where the unit puts them, not between sweep sizes.
            grid_bytes = np.linspace(sizes.min(), sizes.max(), 2048)
            ax.plot(grid_bytes / 1024, np.ceil(grid_bytes / read_unit_bytes), color=FIT, lw=1.2, ls="--",
                    label=f"one burst per {size_label(read_unit_bytes)} read unit")
        ax.plot(sizes / 1024, counts, "o", color=MEASURED, ms=4.5, label="bursts counted (median per size)")
        # Sweeps add a far point (003: 512 KB) to a dense run; a log axis shows both.
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("read size (KiB, log scale)")
        ax.set_ylabel("bursts per read")
        # Counts are whole numbers: integer ticks from 0, never a 0.96-1.04 axis around one value.
        top = float(np.nanmax(counts)) if np.size(counts) else 1.0
        if read_unit_bytes:
            top = max(top, float(np.ceil(sizes.max() / read_unit_bytes)))
        ax.set_ylim(0, max(2.0, top) * 1.1 + 0.2)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=8, loc="upper left")
    return fig

"""Figure 6: the evidence for read-modify-write (003 §5.5, Fig. 16).

Left: the start of a small write, a whole-unit write and a one-unit read laid over each
other: under read-modify-write the small write starts exactly like the read.  Right: how
far each write size's head is from the read's (the distance the analysis decided on).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from charz.report._curve import Curve
from charz.report._numbers import size_label
from charz.report._style import DOTS, FIT, MEASURED, new_figure, note_axes, time_axis

__all__ = ["rmw_figure"]


def rmw_figure(curves: Sequence[Curve], rmw: Mapping[str, Any], *, unit_bytes: int | None,
               t_range_s: tuple[float, float] | None, time_reference: str, verdict: str) -> Figure:
    """Waveform heads (left) and head distance to a one-unit read per write size (right).

    Examples
    --------
    >>> t = np.arange(50) * 4e-6
    >>> fig = rmw_figure([Curve("read 32 KiB", t, np.ones(50))], {"sizes_bytes": [4096, 32768],
    ...                  "head_distance_a": [0.001, 0.05], "affected_sizes_bytes": [4096]}, unit_bytes=32768,
    ...                  t_range_s=None, time_reference="request", verdict="yes (high)")
    >>> fig.axes[1].get_ylabel()
    'head distance to the read (mA rms)'
    """
    fig = new_figure(10.0, 4.6)
    left, right = fig.subplots(1, 2, width_ratios=(3, 2))
    styles = ((MEASURED, "-", 2.0), (FIT, "-", 1.2), (DOTS, "--", 1.2), ("0.5", ":", 1.2))
    if curves:
        for curve, (colour, ls, lw) in zip(curves, styles):
            left.plot(curve.t_s * 1e6, curve.current_a * 1e3, color=colour, ls=ls, lw=lw, label=curve.label)
        time_axis(left, time_reference, mark=True)
        if t_range_s is not None:
            left.set_xlim(t_range_s[0] * 1e6, t_range_s[1] * 1e6)
        left.set_ylabel("current, w = 20 moving average (mA)")
        left.legend(fontsize=8, loc="upper right")
        left.grid(True, alpha=0.25)
        left.set_title("the first microseconds of each capture", fontsize=9, loc="left")
    else:
        note_axes(left, "no read of one unit and no small write to compare")
    sizes = np.asarray(rmw.get("sizes_bytes") or [], dtype=float)
    dist = np.asarray(rmw.get("head_distance_a") or [], dtype=float)
    if sizes.size and sizes.size == dist.size:
        affected = np.isin(sizes, np.asarray(rmw.get("affected_sizes_bytes") or [], dtype=float))
        kib = sizes / 1024
        right.plot(kib, dist * 1e3, color="0.6", lw=0.8)
        right.scatter(kib[~affected], dist[~affected] * 1e3, color=DOTS, zorder=3, label="starts unlike the read")
        if affected.any():
            right.scatter(kib[affected], dist[affected] * 1e3, color=FIT, zorder=3, label="starts like the read (RMW)")
        multiples = int(kib.max() * 1024 // unit_bytes) if unit_bytes else 0
        if 0 < multiples <= 12:   # more lines than that hide the points (a one-page unit)
            for k in range(1, multiples + 1):
                right.axvline(k * unit_bytes / 1024, color="0.5", ls=":", lw=0.8)
        right.set_xlabel("write size (KiB)" + ("; dotted: multiples of the write unit" if 0 < multiples <= 12 else ""))
        right.set_ylabel("head distance to the read (mA rms)")
        right.set_ylim(bottom=0)
        right.legend(fontsize=8, loc="lower right")
        right.grid(True, alpha=0.25)
    else:
        note_axes(right, "the profile has no head distances")
    unit = f", write unit {size_label(unit_bytes)}" if unit_bytes else ""
    fig.suptitle(f"read-modify-write: {verdict}{unit}", fontsize=10, x=0.01, ha="left")
    return fig

"""Figure 7: energy per request and the peak power a Power Budget must allow (003 §7).

Left: energy of one request (rail voltage × current, over the request) per size, writes
and reads.  Right: peak power of each write capture (rail voltage × its peak current),
with the drive's peak (M_peak × rail): the budget the drive needs at full parallelism.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from charz.report._style import DOTS, FIT, MEASURED, new_figure, note_axes

__all__ = ["power_figure"]


def power_figure(energy: Sequence[Mapping[str, Any]], *, write_sizes_bytes: np.ndarray, write_peaks_a: np.ndarray,
                 rail_v: float, rail_origin: str, m_peak_a: float | None) -> Figure:
    """Energy per request (mJ) by size and op; peak power (W) per write size with M_peak × rail.

    Examples
    --------
    >>> fig = power_figure([{"op": "write", "size_bytes": 4096, "energy_j": 1e-3}], write_sizes_bytes=np.array([4096]),
    ...                    write_peaks_a=np.array([0.2]), rail_v=5.0, rail_origin="assumed", m_peak_a=0.2)
    >>> fig.axes[1].get_ylabel()
    'peak power (W)'
    """
    fig = new_figure(10.0, 4.6)
    left, right = fig.subplots(1, 2)
    drawn = False
    for op, colour, marker in (("write", FIT, "o"), ("read", DOTS, "s")):
        rows = sorted((r for r in energy if r.get("op") == op and r.get("energy_j") is not None),
                      key=lambda r: r["size_bytes"])
        if rows:
            drawn = True
            kib = [r["size_bytes"] / 1024 for r in rows]
            left.plot(kib, [r["energy_j"] * 1e3 for r in rows], color=colour, marker=marker, ms=4, lw=1.0, label=op)
    if drawn:
        left.set_xlabel("request size (KiB)")
        left.set_ylabel("energy per request (mJ)")
        left.set_ylim(bottom=0)
        left.grid(True, alpha=0.25)
        left.legend(fontsize=8)
        left.set_title(f"energy = {rail_v:g} V ({rail_origin}) × ∫ current dt", fontsize=9, loc="left")
    else:
        note_axes(left, "the profile has no energy table")
    ok = np.isfinite(write_peaks_a)
    if ok.any():
        right.scatter(write_sizes_bytes[ok] / 1024, write_peaks_a[ok] * rail_v, s=12, color=DOTS, alpha=0.7,
                      label="one write capture")
        if m_peak_a is not None:
            right.axhline(m_peak_a * rail_v, color=MEASURED, lw=1.2,
                          label=f"M_peak × {rail_v:g} V = {m_peak_a * rail_v:.3g} W")
        right.set_xlabel("write size (KiB)")
        right.set_ylabel("peak power (W)")
        right.set_ylim(bottom=0)
        right.xaxis.set_major_locator(MaxNLocator(integer=True))
        right.grid(True, alpha=0.25)
        right.legend(fontsize=8, loc="lower right")
        right.set_title("Power Budget: the peak the supply must allow", fontsize=9, loc="left")
    else:
        note_axes(right, "no usable write captures")
    return fig

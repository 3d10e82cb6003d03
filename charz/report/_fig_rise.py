"""The rise of a one-unit write against the package count and walk that explain it."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from matplotlib.figure import Figure

from charz.report._style import FIT, MEASURED, new_figure

__all__ = ["rise_figure"]


def rise_figure(rise: Mapping[str, Any], *, time_reference: str = "request") -> Figure:
    """Mean current of the one-unit writes (22 µs average) with the fitted package starts.

    Each dotted line is a program start of the best hypothesis; the legend gives every
    package count's score (lower is better), so a reader sees how far the runner-up was.
    """
    fig = new_figure(8.0, 4.2)
    ax = fig.add_subplot(1, 1, 1)
    t = np.asarray(rise.get("t_s", []), dtype=float) * 1e6
    mean = np.asarray(rise.get("mean_a", []), dtype=float) * 1e3
    fit = np.asarray(rise.get("fitted_a", []), dtype=float) * 1e3
    ax.plot(t, mean, color=MEASURED, lw=1.2, label="measured, mean of repeats")
    if fit.size == t.size and fit.size:
        best = (rise.get("hypotheses") or [{}])[0]
        ax.plot(t, fit, color=FIT, lw=1.0, label=f"fit: {best.get('packages_per_unit', '?')} package(s)")
    for i, p in enumerate(rise.get("program_starts_s") or []):
        ax.axvline(p * 1e6, color=FIT, ls=":", lw=0.8, label="program starts" if i == 0 else None)
    for h in (rise.get("hypotheses") or [])[1:4]:
        ax.plot([], [], " ", label=f"{h['packages_per_unit']} package(s): score {h['score']:+.0f}")
    ax.set_xlabel(f"time from the {time_reference} (µs)")
    ax.set_ylabel("current above idle (mA)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("one-unit write: each package's program start is a step", fontsize=10)
    return fig

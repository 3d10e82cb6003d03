"""Can a pulse count be trusted?  Checks on the width histogram and the stream's end (pure).

* no pulse in the program window although the host wrote: wrong pin, wrong window,
  or the analyser saw nothing — untrustworthy;
* a population of pulses just outside a window edge (within 10 % of the edge) while
  the window holds programs: the window cuts a mode, so some programs fall outside
  it — untrustworthy;
* two or more separate modes inside the program window: expected for MLC (lower and
  upper pages program at different speeds, 000 §4.3), but also what a window wide
  enough to take in another kind of operation looks like — a warning naming them;
* R/B not high for the settle time at the end (000 §4.2): programs may still have
  been queued — untrustworthy; an open or cut pulse is noted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.analysis._pulses import PulseCounts

__all__ = ["CountCheck", "check_counts", "program_modes"]


@dataclass(frozen=True)
class CountCheck:
    trusted: bool
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    modes_us: tuple[float, ...]


def program_modes(counts: PulseCounts, *, min_gap_bins: int = 3) -> list[tuple[float, float, int]]:
    """Clusters of non-empty histogram bins inside the program window: (from µs, to µs, pulses)."""
    w = counts.windows
    edges = counts.bin_edges_us
    lo = int(np.searchsorted(edges, w.program_us[0], side="right")) - 1
    hi = int(np.searchsorted(edges, w.program_us[1], side="left"))
    h = counts.histogram[max(lo, 0):hi]
    nz = np.flatnonzero(h)
    if nz.size == 0:
        return []
    splits = np.flatnonzero(np.diff(nz) > min_gap_bins) + 1
    out = []
    for grp in np.split(nz, splits):
        a, b = grp[0] + max(lo, 0), grp[-1] + max(lo, 0)
        out.append((float(edges[a]), float(edges[b + 1]), int(h[grp].sum())))
    return out


def check_counts(counts: PulseCounts, *, settled: bool, settle_s: float, host_wrote: bool = True,
                 edge_margin: float = 0.1, edge_fraction: float = 0.01) -> CountCheck:
    errors: list[str] = []
    warnings: list[str] = []
    w = counts.windows
    a, b = w.program_us
    if host_wrote and counts.programs == 0:
        errors.append(f"no R/B low pulse in the program window ({a:g}, {b:g}) µs although the host wrote: "
                      f"{counts.pulses} pulses seen ({counts.reads} reads, {counts.erases} erases, "
                      f"{counts.other} other); check the pin, the channel and the window against the histogram")
    edges = counts.bin_edges_us
    centres = (edges[:-1] + edges[1:]) / 2
    for edge, side in ((a, -1), (b, +1)):
        band = (centres > edge - edge_margin * edge) & (centres < edge) if side < 0 else \
               (centres > edge) & (centres < edge + edge_margin * edge)
        near = int(counts.histogram[band].sum())
        if counts.programs and near > edge_fraction * counts.programs:
            errors.append(f"{near} pulses lie just {'below' if side < 0 else 'above'} the program window's "
                          f"{'lower' if side < 0 else 'upper'} edge {edge:g} µs: the window cuts a mode; "
                          "widen it (--program-window) after looking at the histogram")
    modes = program_modes(counts)
    if len(modes) > 1:
        txt = ", ".join(f"{lo:g}–{hi:g} µs ({n} pulses)" for lo, hi, n in modes)
        warnings.append(f"{len(modes)} program modes: {txt}; MLC lower and upper pages do that (000 §4.3), "
                        "but check no other operation sits in the window")
    if not settled:
        errors.append(f"R/B was not high for the settle time ({settle_s:g} s) when the stream ended: "
                      "programs may still have been queued (000 §4.2)")
    if counts.open_us:
        warnings.append(f"a pulse {counts.open_us:.0f} µs long was still low at the end (not counted)")
    if counts.partial:
        warnings.append("the stream began inside a pulse (not counted)")
    if counts.glitches:
        warnings.append(f"{counts.glitches} glitches shorter than {w.glitch_us:g} µs ignored")
    return CountCheck(not errors, tuple(errors), tuple(warnings),
                      tuple((lo + hi) / 2 for lo, hi, _ in modes))

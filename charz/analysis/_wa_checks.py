"""Can a pulse count be trusted?  Checks on the width histogram, the samplerate and the stream's end (pure).

* no pulse in the program window although the host wrote: wrong pin, wrong window,
  or the analyser saw nothing — untrustworthy;
* the samplerate cannot tell a glitch from a real high gap between two operations
  (:func:`resolution`): operations may merge — untrustworthy, with the samplerate
  that would;
* erases (000 §4.3: tBERS ≈ 2 ms lies inside MLC's 200–2200 µs program window):
  a separate mode at the top of the window, fewer than one pulse per
  ``MAX_ERASE_SHARE⁻¹`` programs (a block holds ≥ 32 pages, so a drive erases at most
  one block per 32 programs; with ``pages_per_block`` given, one per half a block), is
  taken as erases and counted apart (:attr:`CountCheck.erases_in_window`); such a
  mode up to 1/8 of the programs cannot be told from programs — untrustworthy, naming
  erases; erases that begin just above the upper edge
  are tested for an excess of pulses just inside it — none: they are erases outside
  the window, fine; some: untrustworthy, naming the erases (never a hint to widen the
  window onto them).  Erases that overlap the programs' widths cannot be told by
  width; ``charz.wa._run`` flags a count with GC (WA > 1) but no erase anywhere;
* a few erase-like pulses just above the upper edge (too few for that excess test): the
  block rule bounds the erases that may lie inside; room for 1 % of the programs or more
  is untrustworthy, naming erases;
* pulses beyond the program window that began with a program-wide stretch ended by a high
  blip, beyond what ringing explains: a program joined to the next operation across a gap
  under the glitch time, lost; 1 % of the programs or more is untrustworthy;
* a population just outside a window edge that is not erase-like (within 10 % of the
  edge, ≥ 1 % of the programs): the window cuts a program mode — untrustworthy;
* a small mode inside the window that is not at its top: a warning naming it (modes
  of comparable size — MLC's lower and upper pages, 000 §4.3 — say nothing);
* R/B not high for the settle time at the end (000 §4.2): programs may still have
  been queued — untrustworthy; an open or cut pulse is noted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from charz.analysis._pulses import PulseCounts, glitch_samples

__all__ = ["CountCheck", "check_counts", "program_modes", "resolution", "STANDARD_RATES", "MAX_ERASE_SHARE"]

# Samplerates logic analysers offer (fx2lafw's list up to its 24 MHz), for "record at ≥ R".
STANDARD_RATES = (20e3, 25e3, 50e3, 100e3, 200e3, 250e3, 500e3, 1e6, 2e6, 3e6, 4e6, 6e6, 8e6, 12e6, 16e6, 24e6)
# Erases per program pulse at most: one block per 32 pages (SLC 64, MLC 128-256, TLC more).
MAX_ERASE_SHARE = 1 / 32
# A small mode is one under this share of the largest mode.
SMALL_MODE = 1 / 8


@dataclass(frozen=True)
class CountCheck:
    trusted: bool
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    modes_us: tuple[float, ...]
    erases_in_window: int = 0          # pulses of the program window taken as erases (counted apart)
    erase_mode_us: tuple[float, float] | None = None


def resolution(samplerate_hz: float, glitch_us: float, min_gap_us: float) -> tuple[bool, float | None]:
    """Can ``samplerate_hz`` tell a glitch (< ``glitch_us``) from the shortest real high gap?

    A glitch covers at most ``ceil(glitch·rate)`` samples and is dropped; a real gap of
    ``min_gap_us`` covers at least ``floor(gap·rate)``.  Resolved when the second is
    larger.  Returns (resolved, the lowest standard samplerate that resolves, or None).

    >>> resolution(250e3, 2, 10), resolution(100e3, 2, 10), resolution(1e6, 2, 5)
    ((True, 200000.0), (False, 200000.0), (True, 500000.0))
    """
    def ok(r: float) -> bool:
        gap = math.floor(min_gap_us * r / 1e6 + 1e-9)
        return gap >= max(glitch_samples(glitch_us, r) + 1, 1)

    need = next((r for r in STANDARD_RATES if ok(r)), None)
    if need is None and min_gap_us > glitch_us:
        need = float(math.ceil(2e6 / (min_gap_us - glitch_us)))
    return ok(samplerate_hz), need


def program_modes(counts: PulseCounts, *, min_gap_us: float = 100.0) -> list[tuple[float, float, int]]:
    """Clusters of non-empty histogram bins inside the program window: (from µs, to µs, pulses).

    Two clusters are apart when at least ``min_gap_us`` of empty bins lie between them —
    wide enough that a few hundred programs spread over 1000 µs never leave such a hole
    by chance (a sparse population may still split: the erase test takes whole groups)."""
    min_gap_bins = max(int(round(min_gap_us / counts.windows.bin_us)), 1)
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


def _band(counts: PulseCounts, lo_us: float, hi_us: float) -> int:
    edges = counts.bin_edges_us
    centres = (edges[:-1] + edges[1:]) / 2
    return int(counts.histogram[(centres > lo_us) & (centres < hi_us)].sum())


def check_counts(counts: PulseCounts, *, settled: bool, settle_s: float, host_wrote: bool = True,
                 edge_margin: float = 0.1, edge_fraction: float = 0.01,
                 min_gap_us: float | None = None, pages_per_block: int | None = None) -> CountCheck:
    """The checks of the module docstring.  ``min_gap_us``: the shortest high gap expected
    between two operations (None: the samplerate is not checked).  ``pages_per_block``
    (given): erases come one per that many program pulses, so a top group of up to twice
    that share is counted apart as erases; without it, up to ``MAX_ERASE_SHARE``."""
    errors: list[str] = []
    warnings: list[str] = []
    w = counts.windows
    a, b = w.program_us
    rate = counts.samplerate_hz
    if min_gap_us is not None:
        ok, need = resolution(rate, w.glitch_us, min_gap_us)
        if not ok:
            better = f"record at {need / 1e3:g} kS/s or more" if need else "no samplerate can: lower --glitch"
            errors.append(f"at {rate / 1e3:g} kS/s a glitch (< {w.glitch_us:g} µs, up to "
                          f"{glitch_samples(w.glitch_us, rate)} sample) and the shortest high gap between two "
                          f"operations ({min_gap_us:g} µs, --min-gap) look alike: operations may merge into one "
                          f"pulse; {better}")
    if host_wrote and counts.programs == 0:
        errors.append(f"no R/B low pulse in the program window ({a:g}, {b:g}) µs although the host wrote: "
                      f"{counts.pulses} pulses seen ({counts.reads} reads, {counts.erases} erases, "
                      f"{counts.other} other); check the pin, the channel and the window against the histogram")
    modes = program_modes(counts)
    erase_mode = None
    # erases: at most one pulse per 32 programs (or two per given block)
    share = min(2.0 / pages_per_block, SMALL_MODE) if pages_per_block else MAX_ERASE_SHARE
    groups = [(sum(n for _, _, n in modes[i:]), sum(n for _, _, n in modes[:i]), modes[i][0], modes[-1][1], i)
              for i in range(1, len(modes))]
    # the largest group of modes at the top that is small beside the rest (decided whole: a
    # sparse erase population splits into several modes): erases, or not to be told
    cand = next((g for g in groups if g[0] <= SMALL_MODE * g[1]), None)
    if cand is not None:
        top, rest, lo_us, hi_us, i = cand
        if top <= share * rest:
            erase_mode = (lo_us, hi_us, top)
            warnings.append(f"{top} pulse{'s' if top != 1 else ''} at {lo_us:g}–{hi_us:g} µs, "
                            f"apart above the programs and 1/{rest / top:.0f} of their number (erases: one per "
                            "block's programs, 000 §4.3), counted apart as erases (inferred)")
            modes = modes[:i]
        else:
            errors.append(f"erases? {top} pulses at {lo_us:g}–{hi_us:g} µs sit apart above the programs, "
                          f"1/{rest / top:.0f} of their number: erases of blocks of about {rest / top:.0f} "
                          "pages, or programs — counted as programs, the count is too high by them if they "
                          "are erases (000 §4.3); give --pages-per-block to count such erases apart")
            modes = modes[:i]
    if len(modes) > 1:
        biggest = max(n for _, _, n in modes)
        for lo, hi, n in modes:
            if n < SMALL_MODE * biggest and n >= max(5, 0.005 * counts.programs):
                warnings.append(f"a small mode of {n} pulses at {lo:g}–{hi:g} µs inside the program window, "
                                "counted as programs: check it is not another operation")
    programs = counts.programs - (erase_mode[2] if erase_mode else 0)
    # below the lower edge: reads reach up; a program mode cut there is an error
    near = _band(counts, a - edge_margin * a, a)
    if programs and near > edge_fraction * programs:
        errors.append(f"{near} pulses lie just below the program window's lower edge {a:g} µs: the window "
                      "cuts a mode; look at the width histogram and move the edge (--program-window)")
    above = _band(counts, b, b + edge_margin * b)
    # Erase-like pulses right above the upper edge, too few for the excess test below to see
    # anything: their width distribution may go on below the edge, and those erases are
    # counted as programs.  How many cannot be told by width; the block rule bounds them
    # (one erase per block's programs, or at most one per 32): what that allows beyond the
    # erases seen elsewhere is what the count may be too high by.
    erases_seen = counts.erases + (erase_mode[2] if erase_mode else 0)
    cap = programs / pages_per_block if pages_per_block else MAX_ERASE_SHARE * programs
    hidden = cap - erases_seen
    if programs and 0 < above <= edge_fraction * programs and hidden >= edge_fraction * programs:
        errors.append(f"erases may reach into the program window: {above} erase-like pulse"
                      f"{'s' if above != 1 else ''} just above its upper edge {b:g} µs, {erases_seen} erase"
                      f"{'s' if erases_seen != 1 else ''} seen in all; with one erase per "
                      f"{pages_per_block or round(1 / MAX_ERASE_SHARE)} programs up to {hidden:.0f} more may be "
                      f"inside, counted as programs (000 §4.3) — the count may be up to {100 * hidden / programs:.1f} % "
                      "high" + ("" if pages_per_block else "; give --pages-per-block to bound them"))
    if programs and above > edge_fraction * programs:
        width = edge_margin * b
        inside = _band(counts, b - width, b)
        ref = _band(counts, b - 3 * width, b - width) / 2
        excess = inside - ref
        if above <= MAX_ERASE_SHARE * 4 * programs and excess <= 2 * math.sqrt(ref + 1):
            # few (erase-like) and nothing piles up just inside: erases starting above the window
            warnings.append(f"{above} pulses lie just above the program window's upper edge {b:g} µs, "
                            f"1/{programs / above:.0f} of the programs and none in excess just inside "
                            f"({inside} vs {ref:.0f} expected): taken as erases outside the window (inferred)")
        elif above <= MAX_ERASE_SHARE * 4 * programs:
            errors.append(f"erases reach into the program window: {above} erase-like pulses just above its "
                          f"upper edge {b:g} µs and about {excess:.0f} more than expected just inside it, "
                          "counted as programs (000 §4.3); the count is an upper bound — lower the edge below "
                          "the erases (--program-window) only if no programs are that long")
        else:
            errors.append(f"{above} pulses lie just above the program window's upper edge {b:g} µs, too many "
                          "for erases: the window cuts a mode of programs; look at the width histogram and move "
                          "the edge (--program-window)")
    # A program and the next operation (an erase needs only its command cycles) may be apart
    # by less than the glitch time: the high gap is taken for a blip, the two are one long
    # pulse, and the program is lost.  Such a pulse begins with a program-wide stretch.
    # Ringing strikes long pulses too: as often as it strikes programs (their blipped share),
    # it explains that share of the long pulses; only the excess beyond it is taken for joins.
    long_pulses = counts.erases + counts.other
    ringing = long_pulses * counts.programs_blipped / counts.programs if counts.programs else 0.0
    joins = counts.merged - ringing - 2 * math.sqrt(ringing) if ringing else counts.merged
    if counts.merged:
        text = (f"{counts.merged} pulse{'s' if counts.merged != 1 else ''} wider than the program window "
                f"began with a program-wide stretch ended by a high blip (< {w.glitch_us:g} µs): a program and "
                "the next operation may have joined, the program not counted"
                + (f" (ringing, striking {counts.programs_blipped} of the {counts.programs} programs, explains "
                   f"about {ringing:.0f})" if ringing else ""))
        if programs and joins >= edge_fraction * programs:
            errors.append(text + f"; the count may be {100 * joins / programs:.1f} % low — record at a "
                          "higher samplerate with a shorter --glitch")
        else:
            warnings.append(text)
    if not settled:
        errors.append(f"R/B was not high for the settle time ({settle_s:g} s) when the stream ended: "
                      "programs may still have been queued (000 §4.2)")
    if counts.open_us:
        warnings.append(f"a pulse {counts.open_us:.0f} µs long was still low at the end (not counted)")
    if counts.partial:
        warnings.append("the stream began inside a pulse (not counted)")
    if counts.glitches:
        warnings.append(f"{counts.glitches} glitches (up to {glitch_samples(w.glitch_us, rate)} sample"
                        f"{'s' if glitch_samples(w.glitch_us, rate) != 1 else ''}, < {w.glitch_us:g} µs) ignored, "
                        f"{counts.high_glitches} of them high blips inside a pulse")
    return CountCheck(not errors, tuple(errors), tuple(warnings),
                      tuple((lo + hi) / 2 for lo, hi, _ in modes), erase_mode[2] if erase_mode else 0,
                      (erase_mode[0], erase_mode[1]) if erase_mode else None)

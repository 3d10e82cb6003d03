"""Is the top of the peak staircase every package busy, or only as many as overlap?

Eq. 1 reads ``N_step × D_step`` as the pages a drive programs at once, which holds
when the staircase stops rising because every package is busy.  It also stops when
units simply stop overlapping: a controller that waits for one unit's transfers
before the next (or a walk whose packages share a channel) starts each unit later,
and once a unit starts after the first one has finished programming, the peak no
longer grows although idle packages remain.  Then ``N_step`` is too small and
Eq. 1 gives too few dies, with every step clean.

The two tops differ in time, not in current.  When every package is busy, the unit
after the top lands on a package that is still programming and must wait for it:
the request takes markedly longer than the units below the top added (003 §5.3: the
X-25M's 84 KB write took 1.4 ms more, where each 4 KB below had added 33 µs).  When
units merely stop overlapping, the unit after the top adds what every unit added.
The staircase's steps must also be alike: every unit adds its packages' program
current, so a step far smaller or larger than the others is a unit that overlapped
only in part, or two units merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

# Per-package program current varies (003 Table 2's drives differ by ±15 % between
# packages); a unit of one package can rise 0.7× or 1.3× the median step, so only
# steps outside half to twice the median are taken as a different kind of step.
EVEN_LOW, EVEN_HIGH = 0.5, 2.0
# A wrap waits for a program: a large fraction of the request's whole time, never the
# few µs of a channel switch or the transfer every unit adds.
WRAP_SHARE = 0.25
WRAP_SIGMAS = 6.0
# A unit that follows another over a shared channel ends its transfers later only where
# every page programs equally long.  A request ends with its slowest program, and page types
# (lower/upper pages, up to ±45 % of tPROG) can put the slowest page last in one unit and
# first in the next: then the next unit ends only one page transfer later (datasheet seed
# 429: 4-page units of 37 µs transfers added 67 µs, not 149).  Units that finish together
# must therefore add less than half of ONE page's transfer.
SHARED_SHARE = 0.5


@dataclass(frozen=True)
class TopCheck:
    all_busy: bool | None  # None: the sweep cannot tell
    even: bool
    reason: str
    jump_us: float | None = None
    typical_us: float | None = None


def steps_even(levels: np.ndarray) -> tuple[bool, str]:
    """Are the rises between the staircase's levels alike (within half to twice their median)?

    Example
    -------
    >>> steps_even(np.array([0.10, 0.15, 0.20, 0.25]))[0], steps_even(np.array([0.10, 0.15, 0.16, 0.25]))[0]
    (True, False)
    """
    rises = np.diff(np.asarray(levels, dtype=np.float64))
    if rises.size < 2:
        return True, "one rise: nothing to compare"
    med = float(np.median(rises))
    lo, hi = float(rises.min()), float(rises.max())
    if med <= 0 or lo < EVEN_LOW * med or hi > EVEN_HIGH * med:
        return False, (f"the steps differ too much ({lo * 1e3:.0f}–{hi * 1e3:.0f} mA around a median of {med * 1e3:.0f} mA): "
                       "units overlap only in part or steps merged")
    return True, f"steps alike ({lo * 1e3:.0f}–{hi * 1e3:.0f} mA)"


def _small_then_large(levels: np.ndarray) -> tuple[float | None, float | None]:
    """(smaller, larger) of the first pair of rises where a rise exceeds
    :data:`EVEN_HIGH` times an earlier one, or (None, None).

    Example
    -------
    >>> _small_then_large(np.array([0.10, 0.108, 0.132, 0.140]))    # host link, then packages
    (0.008, 0.024)
    >>> _small_then_large(np.array([0.08, 0.106, 0.138, 0.166, 0.184, 0.197]))[0] is None    # overlap fades
    True
    """
    rises = np.diff(np.asarray(levels, dtype=np.float64))
    for j in range(1, rises.size):
        i = int(np.argmin(rises[:j]))
        if rises[i] > 0 and rises[j] > EVEN_HIGH * rises[i]:
            return round(float(rises[i]), 6), round(float(rises[j]), 6)
    return None, None


def check_top(
    size_pages: np.ndarray,
    duration_s: np.ndarray,
    n_step: int,
    step_pages: int,
    n_package: int | None,
    levels: np.ndarray,
) -> TopCheck:
    """Decide whether ``n_step`` steps of ``step_pages`` mean every package busy at the top.

    Example
    -------
    Four one-page units, then a wrap that waits 900 µs for a program:

    >>> s = np.repeat(np.arange(1, 7), 3)
    >>> d = np.where(s <= 4, 1000 + 30 * s, 1000 + 30 * s + 900) * 1e-6
    >>> check_top(s, d, 4, 1, 8, np.array([0.1, 0.2, 0.3, 0.4])).all_busy
    True
    >>> d = (1000 + 300 * s) * 1e-6                    # every unit adds the same: no wrap
    >>> check_top(s, d, 4, 1, 8, np.array([0.1, 0.2, 0.3, 0.4])).all_busy
    False
    """
    even, even_why = steps_even(levels)
    if n_package is not None and n_step == n_package:
        # A step per package: none merged, none missing, and the top is every package
        # whatever the overlap did to the heights (a unit that overlapped in part still rose) —
        # if every rise can be a package starting.  Overlap only shrinks the later rises (a
        # package that starts late finds early ones finished), so rises that fall off are
        # packages; but a rise more than twice an earlier one is two kinds of rise: a
        # channel's transfer current or the host link's (a slow host still sending while a
        # unit's first packages program) lifts the peak by a fraction of a package's program
        # current, and such a count of steps is no count of packages, however well it matches.
        # (Both tests: with many levels, noise alone spreads rises by ±30 %, and a noisy
        # low one followed by a noisy high one is no second kind of rise; rises that stay
        # within half to twice their median are taken as packages.)
        small, large = _small_then_large(levels)
        if small is not None and not even:
            return TopCheck(None, False, f"{n_step} steps for {n_package} packages, yet a rise of {large * 1e3:.0f} mA "
                            f"follows one of {small * 1e3:.0f} mA: packages alike cannot rise so differently (overlap "
                            "only shrinks later rises), so some rise is no package's — a channel's transfer or the "
                            "host link still sending")
        return TopCheck(True, True, f"{n_step} steps for {n_package} packages: every package has its own step")
    if n_package is not None and n_step > n_package:
        return TopCheck(False, False, f"{n_step} steps for only {n_package} packages: some rises are not packages")
    if n_step < 2:
        return TopCheck(None, even, "a flat staircase fits a unit over every package (003 Fig. 3c) and units that never "
                        "overlap alike")
    bands = _unit_durations(size_pages, duration_s, step_pages, n_step + 1)
    if bands.median_us is None:
        return TopCheck(None, even, bands.missing + ": the sweep must reach one unit past the top to show whether "
                        "the next unit waits for a busy package")
    med, need = bands.median_us, bands.need_us
    incs = np.diff(med)
    typical, jump = float(np.median(incs[:-1])), float(incs[-1])
    about = f"the unit past the top added {jump:.0f} µs, each unit below it {typical:.0f} µs"
    if jump - typical >= need:
        return TopCheck(True, even, about + ": it waited for a busy package, so every package was busy at the top; " + even_why,
                        jump, typical)
    return TopCheck(False, even, about + ": no wait for a busy package, so units stopped overlapping before every "
                    "package was busy", jump, typical)


class _Bands(NamedTuple):
    """Request durations per unit (:func:`_unit_durations`), or which band holds no write."""

    median_us: np.ndarray | None  # each unit's band's median duration; None when a band is empty
    need_us: float | None = None  # the extra time a wait for a busy package must add to stand out
    missing: str = ""  # the empty band, as a sentence, when median_us is None


def _unit_durations(size_pages, duration_s, step_pages: int, units: int) -> _Bands:
    """Median duration of each unit's band of sizes, (k−1)·D < size ≤ k·D for k = 1 … units,
    pooled over repeats (a median over a band shrugs off the odd capture whose end was
    misjudged: hum, a spike in the tail), and the extra time a wait for a busy package must
    add to stand out (:data:`WRAP_SHARE` of one unit's request, and 6 σ of a difference of
    two band medians).  No medians, and the empty band named, when a band holds no write."""
    size_pages = np.asarray(size_pages)
    d_us = np.asarray(duration_s, dtype=np.float64) * 1e6
    med, spread = [], []
    for k in range(1, units + 1):
        sel = (size_pages > (k - 1) * step_pages) & (size_pages <= k * step_pages) & np.isfinite(d_us)
        if not sel.any():
            return _Bands(None, missing=f"no write between {(k - 1) * step_pages} and {k * step_pages} pages")
        x = d_us[sel]
        med.append(float(np.median(x)))
        spread.append(float(1.4826 * np.median(np.abs(x - np.median(x)))) / np.sqrt(x.size) if x.size > 1 else np.nan)
    se = np.array(spread)
    se_med = float(np.nanmedian(se)) if np.isfinite(se).any() else 0.0
    return _Bands(np.array(med), max(WRAP_SHARE * med[0], WRAP_SIGMAS * np.sqrt(2.0) * se_med))


# Same physics as _units.durations_top (the first request that waits for a busy package), but
# not the same function, and one cannot serve both without changing answers: this one knows the
# unit, so it pools each unit's band of sizes and asks how far one unit's increment exceeds the
# median of those below (one odd band cannot hide the wait); durations_top runs before any unit
# is known, per page, where durations that climb by a unit's transfers every few pages are no
# wait, so it asks for 3× the largest earlier per-page rise.  The rules part on plain inputs
# (one page a unit): rises of 40, 40, 270 µs are a wait there and not here (230 µs over the
# median < 250 µs, a quarter of the request); rises of 0, 0, 100, 290 µs one here, not there.
def first_wait(size_pages: np.ndarray, duration_s: np.ndarray, step_pages: int, n_step: int) -> tuple[int | None, str]:
    """Units before the first unit that waits for a busy package, when that is fewer than the
    staircase's ``n_step`` levels (and at least two); else None.

    A unit waits for a busy package only when the walk has come back to a package still
    programming, i.e. once every package was taken by the units before it (003 §5.3).  So a
    wait at unit k + 1 says every package was busy after k units: the top is level k, and
    whatever the peaks rose after it is no package's program current — cache program moves
    the waiting unit's pages over the channels while the packages still program, and that
    transfer current lifts the peak by a step that can be three quarters of a unit's.
    Abstains (None) with fewer than two units before the wait (a single unit before it leaves
    no unit below to compare against) and when no unit before the staircase's top waits.

    Example
    -------
    Units of 2 pages that each add 60 µs, then the third waits 900 µs for a program:

    >>> s = np.repeat(np.arange(1, 9), 3)
    >>> units = (s + 1) // 2
    >>> d = (1000 + 60 * (units - 1) + 900 * (units >= 3)) * 1e-6
    >>> first_wait(s, d, 2, 3)[0]
    2
    """
    if n_step < 3:
        return None, "too few levels for a wait below the top"
    bands = _unit_durations(size_pages, duration_s, step_pages, n_step)
    if bands.median_us is None:
        return None, bands.missing
    med, need = bands.median_us, bands.need_us
    incs = np.diff(med)  # incs[j]: what unit j + 2 added
    for k in range(2, n_step):
        typical, jump = float(np.median(incs[:k - 1])), float(incs[k - 1])
        if jump - typical >= need:
            return k, (f"unit {k + 1} added {jump:.0f} µs, each unit below it {typical:.0f} µs: it waited for a busy "
                       f"package, so every package was busy after {k} units; the peaks' rise past level {k} is the "
                       "waiting unit's transfers (cache program), not more packages")
    return None, "no unit below the staircase's top waited for a busy package"


def units_share_channels_without_time(size_pages: np.ndarray, duration_s: np.ndarray, step_pages: int, paired: int,
                                      channels: int, t_xfer_us: float) -> tuple[bool, str]:
    """Can ``paired`` units of ``step_pages`` pages finish together, as durations that step
    only every ``paired`` units say?  On channels of their own, yes: each next unit adds only
    the controller's move to it (003 §5.3: the X-25M's 4 KB units add 33 µs each on ten
    channels).  On **one** channel, each next unit's pages cross it after the last unit's:
    D page transfers, and its programs end that much later where every page programs
    equally long; page types can move the slowest page from a unit's last place to the
    next unit's first, leaving one page transfer.  So only durations that add less than
    half of one page's transfer say the peaks' tread is no unit (True).  With more channels
    the walk may put the next unit on another one, and nothing is claimed (False).

    Example
    -------
    One channel, 4-page "units" of 46 µs a page that add nothing to the request:

    >>> s = np.repeat(np.arange(1, 13), 3)
    >>> d = (1380 + 420 * (s > 8)) * 1e-6
    >>> units_share_channels_without_time(s, d, 4, 2, 1, 46.0)[0]
    True
    >>> d = (1380 + 190 * ((s > 4) & (s <= 8)) + 420 * (s > 8)) * 1e-6   # each adds its transfers
    >>> units_share_channels_without_time(s, d, 4, 2, 1, 46.0)[0]
    False
    """
    if channels != 1:
        return False, f"on {channels} channels the next unit may cross another one"
    bands = _unit_durations(size_pages, duration_s, step_pages, paired)
    if bands.median_us is None:
        return False, bands.missing
    med = bands.median_us
    added = float(np.median(np.diff(med)))
    least = step_pages * t_xfer_us
    if added >= SHARED_SHARE * t_xfer_us:
        # Page types can hide all but one page's transfer (SHARED_SHARE's note): the time the
        # durations show is no proof that the units finished together.
        return False, (f"{paired} units of {step_pages} pages on one channel: each added {added:.0f} µs to the "
                       f"request, more than half a page transfer ({t_xfer_us:.0f} µs), so they may not finish "
                       "together (page types can hide all but one page's transfer of the next unit)")
    why = (f"{paired} units of {step_pages} pages on one channel cross it one after another, {least:.0f} µs of "
           f"transfers each, yet each added {added:.0f} µs to the request (under half of one page's)")
    return True, why


__all__ = ["NO_OVERLAP_SHARE", "TopCheck", "check_top", "first_wait", "steps_even", "tread_is_a_wait",
           "units_share_channels_without_time"]


# of a one-unit write: a tread that adds this much is a wait, not overlapped units (not
# _units.WAIT_SHARE, the least a first wait adds beside the smallest request)
NO_OVERLAP_SHARE = 0.9


def tread_is_a_wait(size_pages: np.ndarray, duration_s: np.ndarray, step_pages: int,
                    per_tread_us: float | None, t_prog: tuple[float, float] | None = None) -> tuple[bool, float]:
    """Whether each duration tread of ``step_pages`` holds a wait for a busy package, and the
    median duration of the writes of one tread or less (µs).

    Units that overlap add their transfers per unit; a tread that adds more is a wait for a
    busy package, so the units before it did not overlap: a staircase of two or more levels
    on the same tread is then no staircase of units (cache program moves the waiting unit's
    pages while the packages program, and that transfer current lifts the peak), and the
    tread marks where every package is busy (N_step x D_step), not the unit.  Two bounds:

    * without a program time, a tread that adds ``NO_OVERLAP_SHARE`` of a whole one-unit
      write or more;
    * with one (``t_prog`` = tPROG and its spread, µs, given or measured): a tread that adds
      at least the shortest program time and more than the whole one-unit write's span
      outside its shortest program.  That span bounds the unit's transfers, host data and
      status — all a unit on free packages can add — so only a wait can add more.  A
      one-unit write of one page holds host data and status beside its program, which the
      first bound counts as overlap (datasheet seed 616: 1-page units on 2 packages, the tread
      adds 339 µs of a 503 µs write, tPROG 331 ± 66 µs).  A program time measured too long
      only makes a tread look like a wait where it is not (an answer lost), never the reverse.

    Example
    -------
    One-page units on 2 packages, tPROG 2300 µs: every third page waits a whole program.

    >>> s = np.repeat(np.arange(1, 7), 3)
    >>> d = (2400 + 40 * ((s - 1) % 2) + 2300 * ((s - 1) // 2)) * 1e-6
    >>> tread_is_a_wait(s, d, 2, 2300.0)[0]
    True

    tPROG 330 µs behind 150 µs of host data and transfer: every third page waits a program,
    which is under 0.9 of a write but more than all its span outside the program.

    >>> d = (480 + 55 * ((s - 1) % 2) + 340 * ((s - 1) // 2)) * 1e-6
    >>> tread_is_a_wait(s, d, 2, 340.0)[0], tread_is_a_wait(s, d, 2, 340.0, (330.0, 66.0))[0]
    (False, True)
    """
    size_pages, d_us = np.asarray(size_pages), np.asarray(duration_s) * 1e6
    one_us = float(np.median(d_us[size_pages <= step_pages]))
    if per_tread_us is None:
        return False, one_us
    if per_tread_us >= NO_OVERLAP_SHARE * one_us:
        return True, one_us
    if t_prog is None:
        return False, one_us
    # Whole units only: a partial one moves less host data than a unit adds, and on a drive
    # that reads and rewrites the rest of a unit it takes longer than the whole one.
    medians = []
    for k in range(step_pages, int(size_pages.max()) + 1, step_pages):
        if not (size_pages == k).any():
            break
        medians.append(float(np.median(d_us[size_pages == k])))
    if len(medians) < 2:
        return False, one_us
    shortest, unit_us, per_unit_us = t_prog[0] - t_prog[1], medians[0], float(np.median(np.diff(medians)))
    return shortest > 0 and per_unit_us >= shortest and per_unit_us > unit_us - shortest, one_us

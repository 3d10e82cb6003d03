"""Sub-unit writes' read-modify-write read-out tells walks apart where full units tie.

Durations written down in closed form (003 §4.2's recurrence worked by hand, plus the
read-out of 003 Fig. 16: a write smaller than the unit first reads the unit's missing pages).
Drive: 4 channels × 2 ways, one die, a unit of four packages, page transfer T_x = 100 µs,
program time T_prog = 600 µs (both given), the switch delay not given.

* channel-only (the unit's packages on channels 0-3), switch s = 50 µs ≥ T_x / 4: visit i
  starts at i·s, so unit U (1, 2) ends at (4U − 1)·s + T_x + T_prog = 850, 1050 µs; unit 3
  takes the first packages again, free T_x + T_prog after their first visit: 1550 µs;
* way-priority walk (packages c0w0, c0w1, c1w0, c1w1 — two per channel), s = 0: the second
  package of a channel waits for its transfer: units end at 900, 1100, 1600 µs.
The two lists differ by a constant 50 µs: with the switch delay free, the full-unit
durations cannot tell them apart.

A write of r pages into the last unit first reads the 4 − r missing pages: an array read
t_R = 40 µs, then the pages over their channels, one channel's pages one after another,
channels at once: t_R + T_x × (missing pages on the busiest channel).  Nothing waits on
anything before it, so the whole request shifts by that read-out.  Missing pages per busiest
channel for r = 1, 2, 3: channel-only 1, 1, 1; the way-priority walk 2, 2, 1; a controller
reading them one after another over one bus 3, 2, 1 whatever the walk.
Nothing here comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._allocation import Timing, infer_allocation
from charz.analysis._allocation_subunit import NO_READ, ONE_BUS, PACKAGE_MAJOR, SubunitFit, decide_subunit

pytestmark = pytest.mark.unit

T_X, T_PROG, T_R, OVERHEAD = 100.0, 600.0, 40.0, 30.0
UNIT = 4
FULL_ENDS = {"channel-only": [850.0, 1050.0, 1550.0], "way-priority": [900.0, 1100.0, 1600.0]}
BUSIEST = {"channel-only": [1, 1, 1], "way-priority": [2, 2, 1], "one bus": [3, 2, 1]}


def durations(walk: str, readout: str | None):
    """(size in pages, duration in s) for 1 … 12 pages, three repeats at −1, 0, +1 µs."""
    sizes, out = [], []
    for pages in range(1, 3 * UNIT + 1):
        units, present = -(-pages // UNIT), pages - (-(-pages // UNIT) - 1) * UNIT
        end = FULL_ENDS[walk][units - 1] + OVERHEAD
        if present < UNIT and readout is not None:
            end += T_R + T_X * BUSIEST[readout][present - 1]
        for jitter in (-1.0, 0.0, 1.0):
            sizes.append(pages)
            out.append((end + jitter) * 1e-6)
    return np.array(sizes), np.array(out)


def infer(sizes, durs, full_only=False):
    if full_only:
        keep = sizes % UNIT == 0
        sizes, durs = sizes[keep], durs[keep]
    return infer_allocation(sizes, durs, channels=4, packages=8, dies_per_package=1, unit_pages=UNIT,
                            page_size_bytes=8192, timing=Timing(T_X, None, T_PROG))


def test_full_units_alone_tie():
    for walk in FULL_ENDS:
        r = infer(*durations(walk, walk), full_only=True)
        assert r.scheme is None and "not decisive" in r.reason


def test_read_out_over_separate_channels_names_channel_only():
    r = infer(*durations("channel-only", "channel-only"))
    assert (r.scheme, r.confidence) == ("channel-only", "medium")
    assert "read-out" in r.reason


def test_read_out_of_pairs_on_a_channel_names_the_shared_walk():
    # 2, 2, 1 pages on the busiest channel: no one-bus read-out (3, 2, 1) and no walk on
    # separate channels (1, 1, 1) gives it
    r = infer(*durations("way-priority", "way-priority"))
    assert (r.scheme, r.confidence) == ("way-priority", "medium")


def test_one_bus_read_out_decides_nothing():
    # a read-out growing by T_x per missing page could be any walk read one page at a time
    for walk in FULL_ENDS:
        r = infer(*durations(walk, "one bus"))
        assert r.scheme is None


def test_padded_units_decide_nothing():
    # no read-modify-write: a sub-unit write is a padded full unit, no channel shows
    for walk in FULL_ENDS:
        r = infer(*durations(walk, None))
        assert r.scheme is None


def test_without_the_transfer_time_the_sub_units_are_not_used():
    sizes, durs = durations("channel-only", "channel-only")
    r = infer_allocation(sizes, durs, channels=4, packages=8, dies_per_package=1, unit_pages=UNIT,
                         page_size_bytes=8192, timing=Timing(None, None, T_PROG))
    assert r.scheme is None


def test_a_best_fit_that_explains_nothing_decides_nothing():
    # reduced χ² 31 over 100 degrees of freedom: no walk explains the sizes, however far the
    # runner-up falls behind; at 29 the same margins name the best walk
    def fits(best_chi2):
        return [SubunitFit("channel-only", "4×1", PACKAGE_MAJOR, best_chi2, 60.0, 40.0, 20.0),
                SubunitFit("way-priority", "1×2", ONE_BUS, 90_000.0, 400.0, 40.0, 20.0)]
    assert decide_subunit(fits(3100.0), 100, 12.0, 1.5, 3.0, 200.0)[0] is None
    assert decide_subunit(fits(2900.0), 100, 12.0, 1.5, 3.0, 200.0)[0] == "channel-only"


def test_a_fit_without_a_channel_wise_read_out_names_nothing():
    # a padded unit (or a one-bus read-out) fitting best shows no channels, whatever the margin
    for readout in (NO_READ, ONE_BUS):
        fits = [SubunitFit("way-priority", "1×4", readout, 20.0, 5.0, 0.0, 28.0),
                SubunitFit("channel-only", "1×1", NO_READ, 400.0, 40.0, 0.0, 51.0)]
        assert decide_subunit(fits, 30, 12.0, 1.5, 3.0, 200.0)[0] is None



def test_a_fit_looser_than_half_a_page_transfer_counts_no_pages():
    # 46 µs rms on the sub-unit sizes with a 46 µs page transfer (TLC program times spread
    # 0.68-1.32 × tPROG): which channel a page crossed is below what the fit resolves
    fits = [SubunitFit("channel-only", "1×1", PACKAGE_MAJOR, 143.0, 46.0, 0.0, 205.0),
            SubunitFit("way-priority", "1×2", PACKAGE_MAJOR, 367.0, 74.0, 76.0, 170.0)]
    assert decide_subunit(fits, 40, 12.0, 1.5, 3.0, 46.0)[0] is None
    assert decide_subunit(fits, 40, 12.0, 1.5, 3.0, 100.0)[0] == "channel-only"

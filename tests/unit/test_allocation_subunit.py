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


def test_a_one_bus_read_out_names_nothing():
    # a read-out one page after another fitting best shows no channels, whatever the margin
    fits = [SubunitFit("way-priority", "1×4", ONE_BUS, 20.0, 5.0, 0.0, 28.0),
            SubunitFit("channel-only", "1×1", NO_READ, 400.0, 40.0, 0.0, 51.0)]
    assert decide_subunit(fits, 30, 12.0, 1.5, 3.0, 200.0)[0] is None


def test_a_padded_fit_needs_the_ruled_out_margin():
    # a padded unit fitting best: the host timing's model error is what is left between
    # walks, so the rival must miss by twice the best's rms (datasheet 485: 5.5 against
    # 8.7 µs rms, the wrong walk best, Δχ² 16 — named nothing), not the read-out's 1.5×
    def fits(rival_rms):
        return [SubunitFit("way-priority", "1×4", NO_READ, 20.0, 5.5, 0.0, 28.0),
                SubunitFit("channel-only", "1×1", NO_READ, 36.0, rival_rms, 0.0, 51.0)]
    assert decide_subunit(fits(8.7), 23, 12.0, 1.5, 3.0, 59.0, as_full_rms_us=60.0)[0] is None
    assert decide_subunit(fits(11.0), 23, 12.0, 1.5, 3.0, 59.0, as_full_rms_us=60.0)[0] == "way-priority"
    # sub-unit sizes that last as long as the full units they pad (within 2× the best's rms):
    # padding sent at the host's pace, which shows no channels
    assert decide_subunit(fits(11.0), 23, 12.0, 1.5, 3.0, 59.0, as_full_rms_us=10.0)[0] is None


# A padded drive whose host is slower than its switch delay (durations worked by hand from 003
# §4.2's recurrence; nothing from charz's simulator).  4 channels × 2 ways, one die, units of
# four packages, T_x = 100, T_prog = 600 µs (given), a page in the buffer every h = 40 µs
# (given host rate), switch 20 µs (not given), overhead 30 µs.  A visit starts at
# max(cursor, its channel free, its package free, its page in); padding pages need no host
# data: in with the last page written.
#   channel-only (channels 0-1-2-3, then the second way, then the first again): every page
#   waits for the host: starts 40, 80, 120, 160 → units end 860, 1020; unit 3 waits for its
#   packages (free 740, 780, 820, 860): 1560.
#   a 2 × 2 block, channel-first (channels 0-1-0-1, then 2-3-2-3): the third page waits for
#   channel 0 (free at 140), the fourth for channel 1 (180): 880, 1040, 1580 — 20 µs later at
#   every size, a constant the overhead absorbs: the full units tie.
# A write of r pages into a unit: its 4 − r padding pages are in with page r, so they go at
# the switch's pace.  channel-only, r = 1, 2, 3 of unit 1: starts 40-60-80-100 → 800;
# 40-80-100-120 → 820; 40-80-120-140 → 840; of unit 2: 960, 980, 1000.  The block: the
# padding pages still wait for the shared channels: 840 + s, 880, 880; 1000 + s, 1040, 1040
# — 20-40 µs off channel-only's once the 20 µs of overhead is taken back, at any switch s.
PADDED_FULL = [860.0, 1020.0, 1560.0]
PADDED_SUB = {1: 800.0, 2: 820.0, 3: 840.0, 5: 960.0, 6: 980.0, 7: 1000.0}
HOST_PAGE_US = 40.0


def test_padded_sub_units_show_the_channels_a_slow_host_hides():
    sizes, out = [], []
    for pages in range(1, 3 * UNIT + 1):
        end = PADDED_FULL[pages // UNIT - 1] if pages % UNIT == 0 else PADDED_SUB.get(pages)
        if end is None:
            continue  # sizes in the third unit: its packages are taken again
        for jitter in (-1.0, 0.0, 1.0):
            sizes.append(pages)
            out.append((end + OVERHEAD + jitter) * 1e-6)
    sizes, durs = np.array(sizes), np.array(out)
    timing = Timing(T_X, None, T_PROG, host_rate_bytes_per_s=8192 / (HOST_PAGE_US * 1e-6))

    def infer_it(s, d):
        return infer_allocation(s, d, channels=4, packages=8, dies_per_package=1, unit_pages=UNIT,
                                page_size_bytes=8192, timing=timing)
    full = sizes % UNIT == 0
    assert infer_it(sizes[full], durs[full]).scheme is None  # the full units tie
    r = infer_it(sizes, durs)
    assert (r.scheme, r.confidence) == ("channel-only", "medium")
    assert "padded" in r.reason
    # a controller that sends the padding at the host's pace: each sub-unit write lasts as long
    # as the full unit it pads, for every walk alike — nothing to name
    paced = durs.copy()
    for pages in np.unique(sizes[~full]):
        paced[sizes == pages] = (PADDED_FULL[-(-pages // UNIT) - 1] + OVERHEAD) * 1e-6
    assert infer_it(sizes, paced).scheme is None



def test_a_fit_looser_than_half_a_page_transfer_counts_no_pages():
    # 46 µs rms on the sub-unit sizes with a 46 µs page transfer (TLC program times spread
    # 0.68-1.32 × tPROG): which channel a page crossed is below what the fit resolves
    fits = [SubunitFit("channel-only", "1×1", PACKAGE_MAJOR, 143.0, 46.0, 0.0, 205.0),
            SubunitFit("way-priority", "1×2", PACKAGE_MAJOR, 367.0, 74.0, 76.0, 170.0)]
    assert decide_subunit(fits, 40, 12.0, 1.5, 3.0, 46.0)[0] is None
    assert decide_subunit(fits, 40, 12.0, 1.5, 3.0, 100.0)[0] == "channel-only"

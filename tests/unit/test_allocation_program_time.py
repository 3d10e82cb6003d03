"""The program time on the critical path is not the datasheet's typical tPROG.

MLC/TLC upper pages program slower than the typical (up to its max, ~2×), and where a walk
keeps the same packages on the slow page every unit's end waits for it; with cache program
a reused package takes its next page while the previous one programs.  Either way the
durations see one effective program time that the datasheet does not give.

Durations worked by hand from 003 §4.2's recurrence (a visit starts at max(cursor, its
channel free, its package free); the cursor moves a switch delay s; a channel is busy T_x,
a package T_x + P).  Drive: 4 channels × 2 ways, one die, units of four packages on four
channels (channel-only: way 0, then way 1, then way 0 again), T_x = 100 µs, s = 20 µs,
overhead 30 µs, every program P = 840 µs — 1.4 × the datasheet's typical 600 µs.

* unit 1: starts 0, 20, 40, 60 → ends 60 + T_x + P = 160 + P;
* unit 2 (way 1): each waits for its channel (free at 100, 120, 140, 160) → 260 + P;
* unit 3 (way 0 again): each waits for its package (free at 100 + P, …, 160 + P) → 260 + 2P;
* and so on, each unit waiting for the packages the unit two before left: units 4-8 end
  360 + 2P, 360 + 3P, 460 + 3P, 460 + 4P, 560 + 4P.

Nothing here comes from charz's simulator or its latency code.
"""

import numpy as np
import pytest

from charz.analysis._allocation import Timing, infer_allocation

pytestmark = pytest.mark.unit

T_X, TYPICAL, P, OVERHEAD = 100.0, 600.0, 840.0, 30.0
ENDS = [160 + P, 260 + P, 260 + 2 * P, 360 + 2 * P, 360 + 3 * P, 460 + 3 * P, 460 + 4 * P, 560 + 4 * P]


def sweep(ends):
    sizes, out = [], []
    for unit, end in enumerate(ends, 1):
        for jitter in (-1.0, 0.0, 1.0):
            sizes.append(4 * unit)
            out.append((end + OVERHEAD + jitter) * 1e-6)
    return np.array(sizes), np.array(out)


def infer(sizes, durs, t_prog):
    return infer_allocation(sizes, durs, channels=4, packages=8, dies_per_package=1, unit_pages=4,
                            page_size_bytes=8192, timing=Timing(T_X, None, t_prog))


def test_the_typical_misfits_and_the_critical_path_time_names_the_walk():
    r = infer(*sweep(ENDS), TYPICAL)
    assert (r.scheme, r.confidence) == ("channel-only", "medium")  # never high: the typical was set aside
    assert "no allocation explains" in r.reason and "840 µs" in r.reason


def test_a_program_time_outside_what_pages_explain_is_not_refitted():
    # the same durations against a "typical" of 300 µs: 840 µs would be 2.8× it, beyond what
    # upper pages or cache program explain, so nothing is named
    r = infer(*sweep(ENDS), 300.0)
    assert r.scheme is None and "no allocation explains" in r.reason


def test_too_few_sizes_for_the_refit_decide_nothing():
    # four sizes for three fitted parameters: the two to spare a free program time needs are not there
    r = infer(*sweep(ENDS[:4]), TYPICAL)
    assert r.scheme is None


# Read-modify-write on top (003 Fig. 16), as in test_allocation_subunit: the same drive with a
# 50 µs switch, every program P; channel-only units end at 250 + P, 450 + P, 350 + 2P,
# 550 + 2P, 450 + 3P (worked as above: unit 3 waits for unit 1's packages, free at 100 + P, …).
# A write of r pages into unit 1 or 2 first reads the 4 − r missing pages: t_R = 40 µs, then
# one page on each of the unit's separate channels, T_x: the request ends 140 µs after the
# full unit.  The way-priority walk (two packages a channel) ties the full units at another
# switch delay; its read-out of 2, 2, 1 pages on the busiest channel does not.
RMW_ENDS = [250 + P, 450 + P, 350 + 2 * P, 550 + 2 * P, 450 + 3 * P]


def test_the_read_out_decides_at_the_critical_path_time_where_full_units_tie():
    sizes, out = [], []
    for pages in range(1, 5 * 4 + 1):
        units = -(-pages // 4)
        if pages % 4 and units > 2:
            continue  # sizes whose units take packages again
        end = RMW_ENDS[units - 1] + (0.0 if pages % 4 == 0 else 40.0 + T_X)
        for jitter in (-1.0, 0.0, 1.0):
            sizes.append(pages)
            out.append((end + OVERHEAD + jitter) * 1e-6)
    r = infer(np.array(sizes), np.array(out), TYPICAL)
    assert (r.scheme, r.confidence) == ("channel-only", "medium")
    assert "read-out" in r.reason and "critical path" in r.reason

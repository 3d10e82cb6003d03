"""A fit with a free transfer or program time needs two sizes to spare before it decides.

The durations are built here by hand from stated timings with a page-by-page schedule
written for this test (nothing from charz's recurrence): per page, command cycles, a
select delay when the controller moves to another package, the page over the channel,
and a program whose length depends on the page type (TLC: 0.75 / 1 / 1.25 × tPROG,
by page number).  No walk of 003's recurrence (one program time) reproduces those exactly;
the true walk misses by ~19 µs.  With the page transfer and program times free, five
sizes leave one degree of freedom, and a walk on the wrong channels matched all five to
0 µs by stretching the transfer 4× and shortening tPROG: "channel-only" at high before,
for a drive whose units share a channel.
"""

from __future__ import annotations

import numpy as np

from charz.analysis._allocation import Timing, infer_allocation

T_X, T_SEL, T_CMD, T_PROG, TYPES, OVERHEAD = 31.3, 10.8, 3.7, 1394.0, (0.75, 1.0, 1.25), 80.0
SHARED_CHANNEL = [0, 0, 1, 1, 2, 2, 3, 3]  # ways first: a unit's two packages share a channel


def _ends(channel_of_package: list[int], dies: int, ppu: int, units: int) -> np.ndarray:
    chan_free: dict[int, float] = {}
    die_free: dict[tuple[int, int], float] = {}
    cursor, last, page, ends, out = 0.0, None, 0, [], []
    for u in range(units):
        for i in range(ppu):
            p = (u * ppu + i) % len(channel_of_package)
            c = channel_of_package[p]
            for d in range(dies):  # package-major: all of this package's dies, then the next package
                if last is not None and p != last:
                    cursor += T_SEL
                last = p
                start = max(cursor + T_CMD, chan_free.get(c, 0.0), die_free.get((p, d), 0.0))
                cursor = start
                chan_free[c] = start + T_X
                die_free[(p, d)] = start + T_X + T_PROG * TYPES[page % len(TYPES)]
                ends.append(die_free[(p, d)])
                page += 1
        out.append(max(ends))
    return OVERHEAD + np.array(out)


def _infer(units: int, timing: Timing):
    truth = _ends(SHARED_CHANNEL, 2, 2, units)
    sizes = np.repeat(np.arange(1, units + 1) * 4, 3)
    return infer_allocation(sizes, np.repeat(truth, 3) * 1e-6, channels=4, packages=8, dies_per_package=2,
                            unit_pages=4, page_size_bytes=16384, timing=timing)


def test_five_sizes_with_transfer_and_program_time_free_do_not_name_a_walk():
    r = _infer(5, Timing())  # 4 parameters fitted (transfer, switch, program, overhead)
    assert r.scheme is None, r.reason
    assert "stretching" in r.reason and "give the timing" in r.reason


def test_with_the_datasheet_timing_the_same_five_sizes_never_name_the_other_channels():
    r = _infer(5, Timing(T_X, None, T_PROG))  # only the switch delay and overhead fitted
    assert r.scheme in (None, "way-priority"), r.reason
    assert "stretching" not in r.reason

"""A one-way drive's scheme from the durations when its dies are not known.

With one package per channel the scheme is the packages per unit: a unit filling one
package's dies sends all its pages over one channel (way priority, 003 §5.2), a unit over
several packages sends them over several (channel-only).  Durations worked by hand from 003's
recurrence: 4 channels × 1 way, a 4-page unit, page transfer T_x = 100 µs, tPROG = 600 µs
(given), overhead 40 µs; every unit m = 1 … 5:

* channel-only, four one-die packages, switch s = 20 µs: a unit's visits start s apart; the
  next unit takes the same four packages again once the first is free (T_x + tPROG after it
  started), so unit m ends at 3·s + T_x + tPROG + (m − 1)·(T_x + tPROG) = 700·m + 60 µs;
* way priority, one four-die package per unit, s = 30 µs: unit m sends 4 pages (400 µs) to
  package m − 1 on its own channel, starting (m − 1)·s in: it ends at 1000 + (m − 1)·30 µs for
  m ≤ 4; unit 5 takes package 0 again when it is free, at 1000 µs: 2000 µs.
Nothing here comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._allocation import Timing, one_way_scheme

pytestmark = pytest.mark.unit

T_X, T_PROG, OVERHEAD = 100.0, 600.0, 40.0
M = np.arange(1, 6)
ENDS = {"channel-only": 700.0 * M + 60.0, "way-priority": np.array([1000.0, 1030.0, 1060.0, 1090.0, 2000.0])}


def sweep(scheme, units=M):
    ends = ENDS[scheme][units - 1] + OVERHEAD
    sizes = np.repeat(units * 4, 3)
    return sizes, (np.repeat(ends, 3) + np.tile([-1.0, 0.0, 1.0], units.size)) * 1e-6


@pytest.mark.parametrize("scheme", sorted(ENDS))
def test_the_split_of_the_unit_names_the_scheme(scheme):
    r = one_way_scheme(*sweep(scheme), channels=4, unit_pages=4, page_size_bytes=4096, timing=Timing(T_X, None, T_PROG))
    assert (r.scheme, r.confidence) == (scheme, "medium")
    assert "one package per channel" in r.reason


def test_fitted_transfer_and_program_times_need_two_sizes_to_spare():
    # four free parameters (transfer, switch, program, overhead) and five sizes: one to spare
    r = one_way_scheme(*sweep("channel-only"), channels=4, unit_pages=4, page_size_bytes=4096, timing=Timing())
    assert r.scheme is None and "give the timing" in r.reason


def test_a_unit_of_one_page_has_no_split():
    r = one_way_scheme(*sweep("channel-only"), channels=4, unit_pages=1, page_size_bytes=4096,
                       timing=Timing(T_X, None, T_PROG))
    assert r.scheme is None

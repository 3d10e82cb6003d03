"""The durations view on a controller that deals a unit's pages die-major (issue 22).

A datasheet-style controller sends one page at a time and, die-major, gives each of the
unit's packages one page in turn, round after round.  Worked by hand for 4 channels × 2
ways, a unit of two packages of two dies (4 pages), channel-first walk (a unit's two
packages on two channels: channel-only), page transfer t = 50 µs, a select delay
s = 30 µs between pages, T_prog = 600 µs:

* every page waits only for the controller (each channel gets a page every 2 s = 60 µs
  ≥ t), so page i starts at i·s and unit m (1 … 4, no die taken twice) ends when its
  last page (4m − 1) has crossed and programmed:  (4m − 1)·s + t + T_prog;
* units 5 and 6 come back to the dies of units 1 and 2, which are free t + T_prog after
  their first page started — later than the controller arrives (16 s < t + T_prog) — so
  the second round is the first shifted by t + T_prog.

003's package-major recurrence (T_reg = 2 t per package) reproduces the first round at a
60 µs switch delay up to a constant, but shifts the second round by 2 t + T_prog: it
misses units 5 and 6 by one page transfer, which is what the durations see of die-major
dispatch.  Nothing here comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._allocation import Timing, die_major_walks, enumerate_walks, infer_allocation

pytestmark = pytest.mark.unit

T, S, T_PROG = 50.0, 30.0, 600.0
UNITS = np.arange(1, 7)


def channel_only_die_major_ends(m):
    first_round = (4 * ((m - 1) % 4 + 1) - 1) * S + T + T_PROG
    return first_round + np.where(m > 4, T + T_PROG, 0.0)


def fit(durations_us, timing=Timing(T, None, T_PROG)):
    sizes = np.repeat(UNITS * 4, 3)
    return infer_allocation(sizes, np.repeat(durations_us, 3) * 1e-6, channels=4, packages=8, dies_per_package=2,
                            unit_pages=4, page_size_bytes=4096, timing=timing)


def test_the_closed_form():
    assert channel_only_die_major_ends(UNITS).tolist() == [740.0, 860.0, 980.0, 1100.0, 1390.0, 1510.0]


def test_die_major_visits_deal_one_page_to_each_package_in_turn():
    walks = enumerate_walks(4, 2, 2, 4, 2)
    dm = die_major_walks(walks, 2, 2, 2)
    for (_, _, ch, pkg), (_, names, dch, slot) in zip(walks, dm):
        assert all(n.endswith("die-major") for n in names)
        # unit u: package visits 2u, 2u+1; pages to (pkg 2u, die 0), (2u+1, 0), (2u, 1), (2u+1, 1)
        for u in range(2):
            p0, p1 = pkg[2 * u], pkg[2 * u + 1]
            assert slot[4 * u: 4 * u + 4].tolist() == [2 * p0, 2 * p1, 2 * p0 + 1, 2 * p1 + 1]
            assert dch[4 * u: 4 * u + 4].tolist() == [ch[2 * u], ch[2 * u + 1]] * 2


def test_die_major_durations_name_the_separate_channels():
    r = fit(40.0 + channel_only_die_major_ends(UNITS))
    assert r.scheme == "channel-only", r.reason
    assert "die-major" in r.candidates[0].layouts[0]
    assert abs(r.candidates[0].params_us["t_switch_us"] - S) < 2.0
    assert r.candidates[0].rms_residual_us < 1.0


def test_package_major_alone_misses_the_second_round_by_a_page_transfer():
    # the premise: the best package-major walk cannot place both rounds
    r = fit(40.0 + channel_only_die_major_ends(UNITS))
    package_major = [c for c in r.candidates if not c.layouts[0].endswith("die-major")]
    assert min(c.rms_residual_us for c in package_major) > 10.0


def test_a_package_major_shared_channel_is_not_taken_for_a_die_major_walk():
    # test_allocation_closed_forms' way-priority drive with two dies per package: package-major,
    # T_reg = 2 t = 100 µs, T_sw = 30 µs given; unit m (1 … 4) ends at 2·T_reg + T_prog +
    # (m − 1)(T_reg + T_sw), the second round one T_reg + T_prog later.  Dealt die-major, separate
    # channels end units 120 µs apart (4 pages × 30 µs), not 130: the die-major rivals miss.
    t_reg, t_sw, t_prog = 100.0, 30.0, 900.0
    ends = 2 * t_reg + t_prog + ((UNITS - 1) % 4) * (t_reg + t_sw) + np.where(UNITS > 4, t_reg + t_prog, 0.0)
    r = fit(40.0 + ends, Timing(t_reg / 2, t_sw, t_prog))
    assert r.scheme == "way-priority", r.reason
    assert not r.candidates[0].layouts[0].endswith("die-major")

"""The allocation's durations view on durations written down in closed form (003 §4.2).

003's recurrence, worked by hand for a drive of 4 channels × 2 ways, a unit of two
one-die packages, a register transfer T_reg = 100 µs, switch delay T_sw = 30 µs and
program time T_prog = 900 µs:

* way priority (a unit's two packages on one channel): the second package waits for the
  channel, the next unit's first package for the cursor, so unit m (1 … 4, no package
  taken twice) ends at  2·T_reg + T_prog + (m − 1)·(T_reg + T_sw);  units 5 and 6 take
  the first packages again and wait one T_reg + T_prog more;
* channel only (a unit's packages on two channels) with a switch delay s ≥ T_reg/4: every
  visit starts at i·s, so unit m (1 … 4) ends at (2m − 1)·s + T_reg + T_prog.
In both, a package taken again (units 5, 6) is free T_reg + T_prog after its first visit,
later than the cursor arrives, so the second round is the first shifted by T_reg + T_prog.

With s = (T_reg + T_sw)/2 = 65 µs both lists differ by a constant 35 µs, at every size:
the durations alone cannot tell a shared channel from separate ones when the switch
delay is not known.  Knowing it (30 µs) leaves channel-only 70 µs per unit short.
Nothing here comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._allocation import Timing, infer_allocation, one_way_note

pytestmark = pytest.mark.unit

T_REG, T_SW, T_PROG = 100.0, 30.0, 900.0
UNITS = np.arange(1, 7)


def way_priority_ends(m):
    first_round = 2 * T_REG + T_PROG + ((m - 1) % 4) * (T_REG + T_SW)
    return first_round + np.where(m > 4, T_REG + T_PROG, 0.0)


def channel_only_ends(m, s):
    first_round = (2 * ((m - 1) % 4) + 1) * s + T_REG + T_PROG
    return first_round + np.where(m > 4, T_REG + T_PROG, 0.0)


def fit(durations_us, timing):
    sizes = np.repeat(UNITS * 2, 3)
    return infer_allocation(sizes, np.repeat(durations_us, 3) * 1e-6, channels=4, packages=8, dies_per_package=1,
                            unit_pages=2, page_size_bytes=4096, timing=timing)


def test_the_closed_forms_agree_with_each_other_up_to_a_constant():
    # the premise of the test below, checked on the formulas themselves
    wp = way_priority_ends(UNITS)
    assert wp.tolist() == [1100.0, 1230.0, 1360.0, 1490.0, 2100.0, 2230.0]
    co = channel_only_ends(UNITS, (T_REG + T_SW) / 2)
    assert np.allclose(wp - co, 35.0)


def test_without_the_switch_delay_durations_do_not_tell_a_shared_channel_from_separate_ones():
    r = fit(40.0 + way_priority_ends(UNITS), Timing(T_REG, None, T_PROG))
    assert r.scheme is None, r.reason
    best = {c.scheme: min(f.rms_residual_us for f in r.candidates if f.scheme == c.scheme) for c in r.candidates}
    assert best["way-priority"] < 1.0 and best["channel-only"] < 1.0
    co = min((c for c in r.candidates if c.scheme == "channel-only"), key=lambda c: c.chi2)
    assert abs(co.params_us["t_switch_us"] - (T_REG + T_SW) / 2) < 1.0
    assert "not decisive" in r.reason


def test_with_the_switch_delay_given_the_durations_name_the_shared_channel():
    r = fit(40.0 + way_priority_ends(UNITS), Timing(T_REG, T_SW, T_PROG))
    assert r.scheme == "way-priority", r.reason
    co = min((c for c in r.candidates if c.scheme == "channel-only"), key=lambda c: c.chi2)
    assert co.rms_residual_us > 20.0  # 70 µs per unit short, less what the offset takes up


def test_a_one_way_drive_names_what_its_scheme_can_only_be():
    # 003 §5.2: a unit filling one package's dies on a one-way drive is way priority (Q Pro);
    # over several packages every package has its own channel
    note = one_way_note(4, 4, 4)
    assert "channel-only" in note and "way-priority" in note and "packages per unit" in note
    assert one_way_note(4, 8, 4) is None and one_way_note(None, 4, 4) is None
    sizes = np.repeat([4, 8, 12], 3)
    durations = np.repeat([1200.0, 1400.0, 2300.0], 3) * 1e-6
    spread = infer_allocation(sizes, durations, channels=4, packages=4, dies_per_package=2, unit_pages=4,
                              page_size_bytes=4096, timing=Timing())
    assert (spread.scheme, spread.confidence) == ("channel-only", "high")
    one = infer_allocation(sizes, durations, channels=4, packages=4, dies_per_package=4, unit_pages=4,
                           page_size_bytes=4096, timing=Timing())
    assert one.scheme == "way-priority"

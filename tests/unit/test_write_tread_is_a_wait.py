"""Two views agreeing on a tread that is a wait for a busy package, not the unit (issue 22).

Durations and peaks drawn here from stated timings and currents (not from charz): one-page
(8 KiB) units on 2 packages of one die each, tPROG 2300 µs, a page 37 µs over its channel
and 27 µs over the host link, cache program.  A write of 1 or 2 pages programs at once on
both packages; the third page waits a whole program — so the durations rise by a program
time every 2 pages.  Cache program moves the waiting pages over the channels while the
packages program, so the peak of 3–4 pages sits a transfer step above 1–2 pages', and the
peak staircase reads 2 levels of 2 pages: both views say "2 pages", and the unit is 1.
"""

import numpy as np
import pytest

from charz.analysis._saturation import tread_is_a_wait
from charz.analysis._units import unit_from_durations

pytestmark = pytest.mark.unit

T_PROG, T_XFER, T_HOST, REPEATS = 2300.0, 37.0, 27.0, 3
JITTER = np.array([6.0, -2.0, -4.0])


def _durations_us(sizes: np.ndarray, overlapped: bool) -> np.ndarray:
    if overlapped:
        # Two-page units, 4 packages, units overlap: each unit adds its two pages' transfers,
        # the fifth unit waits a program.
        units = (sizes + 1) // 2
        return T_HOST + 2 * T_XFER * units + T_PROG + T_PROG * (units > 4) + np.tile(JITTER, sizes.size // 3)
    waits = (sizes - 1) // 2  # one-page units on 2 packages: every third page waits
    return T_HOST * sizes + T_XFER + T_PROG * (1 + waits) + T_XFER * ((sizes - 1) % 2) + np.tile(JITTER, sizes.size // 3)


def test_a_tread_that_adds_a_whole_program_is_a_wait_not_a_unit():
    sizes = np.repeat(np.arange(1, 9), REPEATS)
    d = _durations_us(sizes, overlapped=False) * 1e-6
    by_time = unit_from_durations(sizes, d)
    assert by_time.unit_pages == 2  # the durations' tread is the drive's 2 pages in flight
    waits, one_us = tread_is_a_wait(sizes, d, 2, by_time.per_unit_us)
    assert waits
    assert 2300 < one_us < 2500


def test_overlapping_units_adding_their_transfers_are_units():
    sizes = np.repeat(np.arange(1, 9), REPEATS)
    d = _durations_us(sizes, overlapped=True) * 1e-6
    by_time = unit_from_durations(sizes, d)
    assert by_time.unit_pages == 2
    waits, _ = tread_is_a_wait(sizes, d, 2, by_time.per_unit_us)
    assert not waits

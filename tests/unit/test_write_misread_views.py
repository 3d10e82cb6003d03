"""Two views that read another current or another delay as the write unit (issue 22).

Peaks and durations are drawn here from stated currents and timings, not from charz:

* Serial units that program whole (padding): a 32-page unit of 16 packages × 2 dies draws
  the same peak for every size up to 32 pages; the host link still sending (9 mA) lifts
  the peaks of the sizes whose data outlasts the first programs.  The durations jump at
  33 pages (the padding of the second unit), so the staircase up to that "top" shows two
  treads of 16 pages — a step of 9 mA where one more unit of packages would add ~200 mA.
* On one channel, a next unit that ends 67 µs (1.8 page transfers) after the previous one
  did not finish with it: its slowest program simply ended closer to the previous unit's
  (page types and die-to-die spread move a request's end by more than a unit's transfers).
* A package's program current is one pump's: P packages of 2 dies dealt die by die, each
  next die starting as the last program ends, draw what 2P one-die packages started as
  earlier ones end draw — read through the programs' ends, the rise cannot count them.
"""

import numpy as np
import pytest

from charz.analysis._rise import unit_rise
from charz.analysis._saturation import units_share_channels_without_time
from charz.analysis._steps import fit_steps_to_top

pytestmark = pytest.mark.unit

CTRL_A, PACKAGE_A, HOST_A = 0.066, 0.027, 0.009  # controller busy, one package programming, host link sending
REPEATS = 4


def test_a_host_link_step_inside_one_padded_unit_is_no_staircase():
    # 32 packages; every write up to 32 pages programs the same padded unit: 12 of its 16
    # packages program at once at the peak; past 16 pages the host link still sends then.
    sizes = np.repeat(np.arange(1, 49), REPEATS)
    busy = 12
    y = CTRL_A + busy * PACKAGE_A + HOST_A * (sizes > 16)
    y = y + np.tile([0.0015, -0.0005, 0.0005, -0.0015], 48)
    r = fit_steps_to_top(sizes, y, 32, n_package=32)
    assert r.n_step is None
    assert "unit of packages" in r.reason
    # A real second unit adds its packages' program current: that staircase still stands.
    real = CTRL_A + busy * PACKAGE_A * np.minimum((sizes + 15) // 16, 2) + np.tile([0.0015, -0.0005, 0.0005, -0.0015], 48)
    ok = fit_steps_to_top(sizes, real, 32, n_package=32)
    assert (ok.n_step, ok.step_pages) == (2, 16)


T_XFER_US = 37.0  # one page over the channel


def _one_channel_durations(added_us: float) -> tuple[np.ndarray, np.ndarray]:
    """Writes of 1–12 pages in 4-page units on one channel: the first unit's request takes
    3200 µs, the second ends ``added_us`` later, the third waits a whole program."""
    sizes = np.repeat(np.arange(1, 13), REPEATS)
    units = (sizes + 3) // 4
    d = 3200.0 + added_us * (units >= 2) + 3000.0 * (units >= 3)
    return sizes, (d + np.tile([12.0, -4.0, 4.0, -12.0], 12)) * 1e-6


def test_units_that_end_later_by_more_than_half_a_transfer_did_not_finish_together():
    sizes, d = _one_channel_durations(67.0)  # 1.8 page transfers: less than the unit's 4
    share, why = units_share_channels_without_time(sizes, d, 4, 2, 1, T_XFER_US)
    assert share is False
    assert "page types" in why


def test_units_that_add_no_time_on_one_channel_still_finish_together():
    sizes, d = _one_channel_durations(3.0)
    share, _ = units_share_channels_without_time(sizes, d, 4, 2, 1, T_XFER_US)
    assert share is True


def _coinciding_starts_and_ends(seed: int):
    """16 one-die packages on 4 channels, a page each, their pages 56 µs apart: from the ninth
    on, each program starts as one 8 packages earlier ends (8 × 56 = 448 µs ≈ tPROG 447 µs),
    so the current stays flat — as 8 packages of 2 dies dealt die by die would draw it."""
    t = np.arange(-100e-6, 1700e-6, 2e-6)
    tu = t * 1e6
    xfer, t_prog, gap, package_a = 32.5, 447.0, 56.0, 0.017
    w = 0.023 * ((tu > 10) & (tu < 1400))  # the controller, busy until the status read
    for k in range(16):
        x = 60 + k * gap  # the page crosses its channel, then the package programs
        w = w + 0.008 * ((tu >= x) & (tu < x + xfer)) + package_a * ((tu >= x + xfer) & (tu < x + xfer + t_prog))
    rng = np.random.default_rng(seed)
    return t, np.array([w + rng.normal(0.0, 0.006, tu.size) for _ in range(REPEATS)])


def test_die_rounds_that_start_as_programs_end_are_not_counted_through_the_ends():
    t, waves = _coinciding_starts_and_ends(0)
    r = unit_rise(waves, t, np.full(REPEATS, 1400e-6), unit_pages=16, page_size_bytes=4096, channels=4,
                  packages=32, t_xfer_page_us=32.5, t_prog_us=447.0, host_rate_bytes_per_s=550e6)
    assert r.packages_per_unit != 8  # 16 or undetermined; 8 × 2 would be a wrong die count
    if r.packages_per_unit is None:
        assert "cannot tell them apart" in r.reason

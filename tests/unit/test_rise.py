"""The rise of a one-unit write, on waveforms drawn here by hand from 003 §4.1–4.2.

Each package's program current switches on at its start and off a program time later;
the controller's busy current and the channel transfers sit under it; a sawtooth ripple,
noise and per-package spread are added.  Nothing comes from charz's simulator.
"""

import numpy as np
import pytest

from charz.analysis._rise import RiseHypothesis, RiseResult, _staggered_larger_count, unit_rise

pytestmark = pytest.mark.unit

DT = 2e-6


def draw(starts_us, *, prog_us=900.0, amps=None, busy=0.05, xfer=0.012, xfer_us=40.0, ripple=0.1, noise=0.002,
         repeats=5, seed=0, dies=1):
    """Program ``starts_us`` (the first die's page has crossed the channel; the others follow)."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 2.5e-3, DT)
    tu = t * 1e6
    amps = amps if amps is not None else [0.05] * len(starts_us)
    rows, ends = [], []
    for _ in range(repeats):
        jit = rng.uniform(-3, 3)
        u = tu - jit
        end = max(starts_us) + prog_us * rng.uniform(0.95, 1.1) + 10
        w = busy * ((u > min(starts_us) - xfer_us - 20) & (u < end))  # the controller wakes first
        for s, a in zip(starts_us, amps):
            w = w + xfer * ((u > s - xfer_us) & (u < s + (dies - 1) * xfer_us))
            on = (u > s) & (u < s + prog_us * rng.uniform(0.9, 1.1))
            w = w + a * on * (1 + ripple * (((u - s) / 22.0) % 1.0 - 0.5) * 2)
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((end + jit) * 1e-6)
    return np.array(rows), t, np.array(ends)


def test_four_packages_on_four_channels_are_four():
    starts = [60 + 25 * k for k in range(4)]
    w, t, e = draw(starts, amps=[0.05, 0.058, 0.044, 0.053])
    r = unit_rise(w, t, e, unit_pages=4, page_size_bytes=8192, channels=4, packages=8,
                  t_xfer_page_us=40.0, t_prog_us=900.0)
    assert r.packages_per_unit == 4, r.reason
    # 25 µs apart: a 2 × 2 block would reuse a channel only after 50 µs, when its 40 µs
    # transfer is over, so that walk predicts the same rise — undetermined, not a guess
    assert r.scheme in ("channel-only", None), r.scheme_reason


def test_starts_closer_than_a_transfer_mean_different_channels():
    w, t, e = draw([60.0, 78.0], amps=[0.05, 0.056], xfer_us=60.0)
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=8192, channels=2, packages=4,
                  t_xfer_page_us=60.0, t_prog_us=900.0)
    assert r.packages_per_unit == 2, r.reason
    assert r.scheme == "channel-only", r.scheme_reason
    w, t, e = draw([60.0, 120.0], amps=[0.05, 0.056], xfer_us=60.0)
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=8192, channels=2, packages=4,
                  t_xfer_page_us=60.0, t_prog_us=900.0)
    assert r.packages_per_unit == 2, r.reason
    assert r.scheme in ("way-priority", None), r.scheme_reason  # a switch delay of 60 µs would do as well


def test_one_package_is_not_read_as_several():
    w, t, e = draw([80.0], amps=[0.07], dies=2)
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=8192, channels=4, packages=8,
                  t_xfer_page_us=40.0, t_prog_us=900.0)
    assert r.packages_per_unit in (1, None), r.reason


def test_packages_that_start_together_are_not_counted_wrong():
    # two packages switching on at the same instant look like one larger package: the
    # rise must not claim a count it cannot see (2 is right, 1 would be wrong)
    w, t, e = draw([80.0, 80.0], amps=[0.05, 0.05])
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=8192, channels=2, packages=4,
                  t_xfer_page_us=40.0, t_prog_us=900.0)
    assert r.packages_per_unit in (2, None), r.reason


def test_serial_packages_on_one_channel_are_found_by_the_duration():
    # a slow channel: each package starts after the previous one finished programming
    starts = [60 + 330 * k for k in range(4)]
    w, t, e = draw(starts, prog_us=300.0, xfer_us=80.0, amps=[0.05, 0.055, 0.045, 0.05])
    r = unit_rise(w, t, e, unit_pages=4, page_size_bytes=16384, channels=2, packages=8,
                  t_xfer_page_us=80.0, t_prog_us=300.0)
    assert r.packages_per_unit in (4, None), r.reason


def test_needs_the_timing_it_compares_against():
    w, t, e = draw([60.0, 85.0])
    r = unit_rise(w, t, e, unit_pages=3, page_size_bytes=8192, channels=2, packages=4,
                  t_xfer_page_us=40.0, t_prog_us=900.0)
    # 3 pages over 2 or 4 packages: no count divides both; 1 package × 3 dies or 3 packages
    assert r.packages_per_unit in (1, None)


@pytest.mark.parametrize("share", [0.3, 0.6])
def test_transfer_current_is_not_read_as_program_starts(share):
    # Issue 22: a channel moving a page draws 30–60 % of a package's program current.  Four
    # packages of four dies each, 2 channels × 2 ways: each package's transfer (four pages, one per
    # die) is an edge of its own before and while the package programs.  Counting every edge
    # would give 8 packages of 2 dies; the transfers are the model's, so the count stays 4.
    w, t, e = draw([60.0, 85.0, 220.0, 245.0], amps=[0.05, 0.056, 0.046, 0.052], xfer=0.05 * share, dies=4, seed=3)
    r = unit_rise(w, t, e, unit_pages=16, page_size_bytes=4096, channels=2, packages=8,
                  t_xfer_page_us=40.0, t_prog_us=900.0)
    assert r.packages_per_unit == 4, r.reason


def test_pages_sent_as_they_arrive_from_a_slow_host():
    # A host link slower than a channel (16 KiB pages: 109 µs from the host, 33 µs over a
    # channel), and a controller that sends each page on as it arrives, a package's pages in a
    # row: package k gets pages 2k and 2k + 1 and starts programming after the first.  Each page
    # crossing the channel is a bump every 109 µs, but program steps come every 218 µs: 4
    # packages of 2 dies, not 8 of 1.
    rng = np.random.default_rng(9)
    host, xfer_us, prog_us = 109.0, 33.0, 1700.0
    t = np.arange(-200e-6, 3.0e-3, DT)
    rows, ends = [], []
    for _ in range(5):
        u = t * 1e6 - rng.uniform(-3, 3)
        last_end = 0.0
        w = np.zeros(u.size)
        for k in range(4):
            arrive = [host * (2 * k + d + 1) for d in range(2)]
            for a in arrive:
                w += 0.015 * ((u >= a) & (u < a + xfer_us))
            end = arrive[1] + xfer_us + prog_us * rng.uniform(0.9, 1.1)
            w += 0.03 * rng.uniform(0.9, 1.1) * ((u >= arrive[0] + xfer_us) & (u < end))
            last_end = max(last_end, end)
        w += 0.04 * ((u >= 20) & (u < last_end + 10))
        rows.append(w + rng.normal(0, 0.002, u.size))
        ends.append((last_end + 10) * 1e-6)
    r = unit_rise(np.array(rows), t, np.array(ends), unit_pages=8, page_size_bytes=16384, channels=2, packages=8,
                  t_xfer_page_us=xfer_us, t_prog_us=prog_us, host_rate_bytes_per_s=16384 / host * 1e6)
    assert r.packages_per_unit == 4, r.reason


def draw_die_major(packages, dies, channel_of, *, host_us, xfer_us, select_us, prog_us, prog_a, xfer_a,
                   busy=0.06, noise=0.003, repeats=4, seed=5, page_type=None):
    """A controller that deals one page to each package in turn (die-major): page q goes to
    package q mod P, die q div P, over its package's channel, once it is in from the host and
    a selection delay after the previous page.  A package draws one program current (its dies
    share a charge pump) from its first page's end to its last page's end plus tPROG."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 4.0e-3, DT)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-3, 3)
        w = np.zeros(u.size)
        free: dict[int, float] = {}
        cursor, first, last = 10.0, {}, {}
        for q in range(packages * dies):
            k = q % packages
            start = max(cursor, host_us * (q + 1), free.get(channel_of[k], 0.0))
            w += xfer_a * ((u >= start) & (u < start + xfer_us))
            free[channel_of[k]] = start + xfer_us
            cursor = start + select_us
            first.setdefault(k, start + xfer_us)
            last[k] = start + xfer_us
        end = 0.0
        for k in range(packages):
            kind = 1.0 if page_type is None else page_type[k]  # lower / upper page: × tPROG
            stop = last[k] + prog_us * kind * rng.uniform(0.97, 1.03)
            w += prog_a * rng.uniform(0.9, 1.1) * ((u >= first[k]) & (u < stop))
            end = max(end, stop)
        w += busy * ((u >= 5) & (u < end + 10))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((end + 10) * 1e-6)
    return np.array(rows), t, np.array(ends)


def test_die_major_pages_from_a_slow_host_are_two_packages_not_one():
    # Two packages on one channel, four dies each, pages dealt in turn as a slow host delivers
    # them (55 µs a page, 34 µs over the channel): the second package starts one host page
    # after the first, and every later page is a transfer bump while both program.  Modelled
    # as a package's pages in a row, this read as one package of 8 dies (datasheet seed 158).
    w, t, e = draw_die_major(2, 4, [0, 0], host_us=55.0, xfer_us=34.0, select_us=30.0, prog_us=1500.0,
                             prog_a=0.03, xfer_a=0.017)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=8192, channels=2, packages=16, t_xfer_page_us=34.0,
                  t_prog_us=1500.0, host_rate_bytes_per_s=8192 / 55.0 * 1e6)
    assert r.packages_per_unit == 2, r.reason


def test_die_major_on_separate_channels_counts_each_package_once():
    # Four packages on four channels, two dies each, a fast host: starts a selection delay
    # apart (35 µs), then a second round of transfers while all four program — four packages,
    # not eight.
    w, t, e = draw_die_major(4, 2, [0, 1, 2, 3], host_us=5.0, xfer_us=50.0, select_us=35.0, prog_us=900.0,
                             prog_a=0.035, xfer_a=0.02)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=8192, channels=4, packages=8, t_xfer_page_us=50.0,
                  t_prog_us=900.0, host_rate_bytes_per_s=8192 / 5.0 * 1e6)
    assert r.packages_per_unit == 4, r.reason


def test_a_long_die_major_unit_is_timed_to_its_end():
    # Four packages on four channels, eight dies each: 32 pages dealt one at a time, 52 µs
    # apart (a selection delay longer than a page transfer), MLC programs of 0.6 / 1.4 × tPROG.
    # A shorter delay fits the first starts about as well but would end the last program
    # ~700 µs before the write ends; only delays that reach the end compete.
    w, t, e = draw_die_major(4, 8, [0, 1, 2, 3], host_us=16.0, xfer_us=50.0, select_us=52.0, prog_us=1000.0,
                             prog_a=0.045, xfer_a=0.017, page_type=[0.6, 1.4, 0.6, 1.4])
    r = unit_rise(w, t, e, unit_pages=32, page_size_bytes=8192, channels=4, packages=8, t_xfer_page_us=50.0,
                  t_prog_us=1000.0, host_rate_bytes_per_s=8192 / 16.0 * 1e6)
    assert r.packages_per_unit == 4, r.reason



def test_lower_pages_that_end_early_are_not_read_as_more_packages():
    # Eight packages on eight channels, four dies each, dealt die-major 25 µs apart; packages
    # alternate lower pages (0.6 × tPROG) and upper pages (1.4 ×).  The lower-page packages
    # stop programming ~1.3 ms before the write ends, falls no hypothesis models; the fit
    # stops 0.6 tPROG after the current first reaches its top (every start lies before), and
    # the count stays 8 — 16 packages of 2 dies fitted the falls better.
    w, t, e = draw_die_major(8, 4, list(range(8)), host_us=4.0, xfer_us=32.0, select_us=25.0, prog_us=1350.0,
                             prog_a=0.021, xfer_a=0.009, busy=0.015, page_type=[0.6, 1.4] * 4)
    r = unit_rise(w, t, e, unit_pages=32, page_size_bytes=16384, channels=8, packages=16, t_xfer_page_us=32.0,
                  t_prog_us=1350.0, host_rate_bytes_per_s=16384 / 4.0 * 1e6)
    assert r.packages_per_unit == 8, r.reason


def draw_package_major(packages, dies, *, host_us, xfer_us, prog_us, prog_a, xfer_a, page_types, busy=0.05,
                       noise=0.0025, repeats=5, seed=11):
    """A controller that sends each page on as the host delivers it, a package's pages in a
    row (package-major), every package on its own channel: package k's die d gets page
    k·dies + d at host_us·(k·dies + d + 1).  Each die programs its page from the end of its
    transfer for tPROG × its page's type (TLC: lower, middle, upper pages in turn); the
    package draws one program current (its dies share a charge pump) while any die programs."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 4.5e-3, DT)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-2, 2)
        w = np.zeros(u.size)
        end = 0.0
        for k in range(packages):
            on = np.zeros(u.size, dtype=bool)
            for d in range(dies):
                q = k * dies + d
                a = host_us * (q + 1)
                w += xfer_a * ((u >= a) & (u < a + xfer_us))
                stop = a + xfer_us + prog_us * page_types[q % len(page_types)] * rng.uniform(0.97, 1.03)
                on |= (u >= a + xfer_us) & (u < stop)
                end = max(end, stop)
            w += prog_a * rng.uniform(0.97, 1.03) * on
        w += busy * ((u >= 20) & (u < end + 10))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((end + 10) * 1e-6)
    return np.array(rows), t, np.array(ends)


def test_a_package_programs_until_its_slowest_die_so_falls_do_not_double_the_count():
    # Eight packages of four dies (TLC: pages of 0.68, 1 and 1.32 × tPROG in turn), pages sent
    # as a 300 MB/s host delivers them (16 KiB: 55 µs; 46 µs over the channel, at 0.42 of a
    # package's program current): a package starts every 218 µs and programs until its
    # slowest die's upper page ends, ~400 µs after the fall a single tPROG would put there.
    # Fitted through those falls, sixteen packages of two dies starting every 109 µs fitted
    # better (datasheet seed 208); before any program can end, the starts are plainly eight.
    host, xfer_us, prog_us = 16384 / 300.0, 46.0, 1300.0
    w, t, e = draw_package_major(8, 4, host_us=host, xfer_us=xfer_us, prog_us=prog_us, prog_a=0.036,
                                 xfer_a=0.015, page_types=(0.68, 1.0, 1.32))
    r = unit_rise(w, t, e, unit_pages=32, page_size_bytes=16384, channels=8, packages=16, t_xfer_page_us=xfer_us,
                  t_prog_us=prog_us, host_rate_bytes_per_s=300e6)
    assert r.packages_per_unit == 8, r.reason


def test_three_packages_on_three_channels_are_not_one():
    # An 11-channel controller may stripe a unit over 3 packages: three program steps a
    # select delay (10 µs) apart.  Only counts dividing both the unit and the drive can be
    # the answer; with 3 among them the one-package fit cannot stand unopposed.
    w, t, e = draw([60.0, 70.0, 80.0], amps=[0.05, 0.055, 0.047], xfer_us=60.0)
    r = unit_rise(w, t, e, unit_pages=3, page_size_bytes=16384, channels=11, packages=33,
                  t_xfer_page_us=60.0, t_prog_us=900.0)
    assert r.packages_per_unit in (3, None), r.reason


def draw_host_link(dies, *, host_us, xfer_us, prog_us, prog_a, host_a, xfer_a, busy=0.06, t_cmd=40.0, noise=0.003,
                   repeats=4, seed=11):
    """One package of ``dies`` dies behind a host link: the controller wakes, then DMA draws
    ``host_a`` while the unit's pages come in from the host (``host_us`` each, from ``t_cmd``);
    each page crosses the package's channel once it is in; the package draws one program
    current (its dies share a charge pump) from its first page's end to its last page's end
    plus tPROG, with a 9 µs ISPP sawtooth."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 3.0e-3, DT)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-3, 3)
        w = host_a * ((u >= t_cmd) & (u < t_cmd + dies * host_us))
        x, stop, first = 0.0, 0.0, None
        for d in range(dies):
            x = max(x, t_cmd + (d + 1) * host_us)
            w = w + xfer_a * ((u >= x) & (u < x + xfer_us))
            x += xfer_us
            first = x if first is None else first
            stop = max(stop, x + prog_us * rng.uniform(0.97, 1.03))
        w = w + prog_a * ((u >= first) & (u < stop)) * (1 + 0.2 * (((u - first) / 9.0) % 1.0 - 0.5))
        w = w + busy * ((u >= 0.4 * t_cmd) & (u < stop + 15))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((stop + 15) * 1e-6)
    return np.array(rows), t, np.array(ends)


@pytest.mark.parametrize("seed", [1, 2])
def test_host_link_current_is_not_read_as_a_second_package(seed):
    # Issue 22, datasheet dev seeds 125 and 206: the host link's DMA draws current while the
    # unit's data comes in (here a third of the package's program current, 25 µs a 4 KiB page:
    # 200 µs for 8 pages, under the program's first half).  Without a column for it, its fall
    # and the program's rise read as two packages 25 µs apart — "2 at high" on this drive.
    w, t, e = draw_host_link(8, host_us=25.0, xfer_us=30.0, prog_us=400.0, prog_a=0.045, host_a=0.015,
                             xfer_a=0.008, seed=seed)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=4096, channels=2, packages=8, t_xfer_page_us=30.0,
                  t_prog_us=400.0, host_rate_bytes_per_s=4096 / 25.0 * 1e6)
    assert r.packages_per_unit == 1, r.reason


def draw_host_until_start(packages, *, host_us, xfer_us, prog_us, prog_a, host_a, xfer_a, busy=0.024,
                          t_cmd=55.0, gains=(1.0, 1.15), noise=0.003, repeats=4, seed=5):
    """One page per package, each package on its own channel: the host link draws ``host_a``
    from the command (half of ``t_cmd``) until the unit's last page is in (``host_us`` a page
    after ``t_cmd``); page q crosses its channel once it is in and its channel is free, and its
    package programs from the transfer's end for tPROG × (0.6, 1.0, ...) (lower page first)."""
    rng = np.random.default_rng(seed)
    t = np.arange(-100e-6, 2.2e-3, DT)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-3, 3)
        w = host_a * ((u >= 0.5 * t_cmd) & (u < t_cmd + packages * host_us))
        x, stop = 0.0, 0.0
        for k in range(packages):
            x = max(x, t_cmd + (k + 1) * host_us)
            w = w + xfer_a * ((u >= x) & (u < x + xfer_us))
            x += xfer_us
            end = x + prog_us * (0.6 if k % 2 == 0 else 1.0) * rng.uniform(0.97, 1.03)
            w = w + prog_a * gains[k % len(gains)] * ((u >= x) & (u < end))
            stop = max(stop, end)
        w = w + busy * ((u >= 0.4 * t_cmd) & (u < stop + 12))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((stop + 12) * 1e-6)
    return np.array(rows), t, np.array(ends)


@pytest.mark.parametrize("seed", [5, 6, 9])
def test_a_start_as_the_host_link_goes_quiet_is_not_ruled_out(seed):
    # Issue 22, datasheet dev seed 372: two packages of one die on two channels, 55 µs a
    # page over the host link and over a channel.  The host link draws 20 mA from the command
    # until the second page is in — the moment the first package, 17 mA, starts: the step
    # there is -3 mA.  One package of two dies, its program from the second page's end, fits
    # that as well with a small host current ending where its pages stop moving; it fitted
    # better by 22 ("1 package at high").  Two is right; one must not be claimed.
    host = 16384 / 300.0
    w, t, e = draw_host_until_start(2, host_us=host, xfer_us=55.0, prog_us=1000.0, prog_a=0.017, host_a=0.020,
                                    xfer_a=0.005, seed=seed)
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=16384, channels=8, packages=8, t_xfer_page_us=55.0,
                  t_prog_us=1000.0, host_rate_bytes_per_s=300e6)
    assert r.packages_per_unit in (2, None), r.reason


def test_a_start_well_clear_of_the_host_link_still_counts():
    # The same drive with a quick host link (10 µs a page, ending long before the first
    # program): both starts show, and the rise still says two packages.
    w, t, e = draw_host_until_start(2, host_us=10.0, xfer_us=55.0, prog_us=1000.0, prog_a=0.017, host_a=0.020,
                                    xfer_a=0.005, gains=(1.0, 1.0))
    r = unit_rise(w, t, e, unit_pages=2, page_size_bytes=16384, channels=8, packages=8, t_xfer_page_us=55.0,
                  t_prog_us=1000.0, host_rate_bytes_per_s=16384 / 10.0 * 1e6)
    assert r.packages_per_unit == 2, r.reason


def draw_streamed_one_channel(packages, dies, *, host_us, xfer_us, select_us, prog_us, busy_a, host_a, xfer_a,
                              prog_a, t_cmd=10.0, noise=0.005, repeats=5, seed=3):
    """Every package of the unit on one channel, a package's pages in a row (package-major),
    each page sent on as soon as the host has delivered it and the channel is free (the host
    faster than the channel, so the channel sets the pace; the next package is selected,
    ``select_us``, while the previous page still crosses).  The host link draws ``host_a``
    from the command until the unit's last page is in; the channel ``xfer_a`` while a page
    crosses it; each die programs its page from its transfer's end for tPROG, and a package
    draws one program current (its dies share a pump) while any die programs, with a 22 µs
    ISPP ripple of ±4 %."""
    rng = np.random.default_rng(seed)
    t = np.arange(-100e-6, 1.6e-3, 1e-6)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-2, 2)
        w = host_a * ((u >= 0.5 * t_cmd) & (u < t_cmd + packages * dies * host_us))
        chan_free, stop, prev = 0.0, 0.0, 0.0
        for k in range(packages):
            on = np.zeros(u.size, dtype=bool)
            for d in range(dies):
                q = k * dies + d
                x = max(t_cmd + (q + 1) * host_us, chan_free, prev + (select_us if d == 0 and k else 0.0))
                prev = x
                w = w + xfer_a * ((u >= x) & (u < x + xfer_us))
                chan_free = x + xfer_us
                end = chan_free + prog_us * rng.uniform(0.97, 1.03)
                on |= (u >= chan_free) & (u < end)
                stop = max(stop, end)
            ripple = 1 + 0.04 * np.sign(np.sin(2 * np.pi * u / 22.0))
            w = w + prog_a * rng.uniform(0.97, 1.03) * on * ripple
        w = w + busy_a * ((u >= 0.4 * t_cmd) & (u < stop + 15))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((stop + 15) * 1e-6)
    return np.array(rows), t, np.array(ends)


@pytest.mark.parametrize("seed", [3, 7, 8])
def test_streamed_packages_on_one_channel_are_not_read_as_two(seed):
    # Issue 22, datasheet seed 621: four packages of two dies on one channel, each page sent
    # on as it arrives (30 µs a page from the host, 70 µs over the channel), so a package
    # starts every 140 µs and programs 290 µs (first die's page in to last die's program end,
    # tPROG 220 µs): never more than two program at once.  A controller that waits for all of
    # a package's pages puts its first transfer a host page later than the host link's start
    # allows, and so fitted worse than two packages 208 µs apart on two channels ("2 at
    # high", dies 4 for 2).  Four is right; two must never be claimed.
    w, t, e = draw_streamed_one_channel(4, 2, host_us=30.0, xfer_us=70.0, select_us=7.0, prog_us=220.0,
                                        busy_a=0.100, host_a=0.014, xfer_a=0.020, prog_a=0.030, seed=seed)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=16384, channels=4, packages=16, t_xfer_page_us=70.0,
                  t_prog_us=220.0, host_rate_bytes_per_s=16384 / 30.0 * 1e6)
    assert r.packages_per_unit in (4, None), r.reason


def _hyp(ppu, dies, channels, lead, score, switch_us=0.5):
    return RiseHypothesis(ppu, dies, channels, ("x",), switch_us, 0.0, 0.0, (), (), score, True, "", lead)


@pytest.mark.parametrize("t_prog_us, abstains", [(220.0, True), (500.0, False)])
def test_a_smaller_count_abstains_only_where_the_level_cannot_show_the_larger(t_prog_us, abstains):
    # Four packages of two dies on one channel, their pages in a row at 70 µs a page: a
    # package starts every 140 µs and programs from its first page's end to its last die's
    # end (70 µs + tPROG).  At tPROG 220 µs no more than two program together for longer than
    # the 22 µs averaging (the third meets the first's end after 10 µs), the level of a
    # 2-package unit: a 2-package answer within 16 of it is not an answer.  At 500 µs all
    # four program together and the level would show them: the fit's margin stands.
    best = _hyp(2, 4, (0, 1), 4, -300.0, switch_us=210.0)
    rival = _hyp(4, 2, (0, 0, 0, 0), 2, -291.0)
    r = RiseResult(2, None, "medium", "undetermined", "", "", hypotheses=(best, rival))
    why = _staggered_larger_count(r, 70.0, t_prog_us, 0.0)
    assert bool(why) == abstains, why


def draw_dies_in_turn(packages, dies, *, host_us, xfer_us, prog_us, prog_a, xfer_a, busy=0.05, noise=0.003,
                      repeats=5, seed=7):
    """Die-major on one channel as a slow host delivers: page q (in from the host at
    (q + 1) × ``host_us``) crosses to package q mod P, die q div P, and that die programs
    tPROG from its transfer's end.  A package draws its one program current while any of its
    dies programs — and none between, where its dies take turns."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200e-6, 4.0e-3, DT)
    rows, ends = [], []
    for _ in range(repeats):
        u = t * 1e6 - rng.uniform(-3, 3)
        w = np.zeros(u.size)
        on = np.zeros((packages, u.size), dtype=bool)
        chan, end = 0.0, 0.0
        for q in range(packages * dies):
            x0 = max(host_us * (q + 1), chan)
            chan = x0 + xfer_us
            w += xfer_a * ((u >= x0) & (u < chan))
            stop = chan + prog_us * rng.uniform(0.97, 1.03)
            on[q % packages] |= (u >= chan) & (u < stop)
            end = max(end, stop)
        for k in range(packages):
            w += prog_a * rng.uniform(0.95, 1.05) * on[k]
        w += busy * ((u >= 5) & (u < end + 10))
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((end + 10) * 1e-6)
    return np.array(rows), t, np.array(ends)


def test_packages_whose_dies_take_turns_are_not_counted_as_one_die_packages():
    # Blind datasheet seed 718: 4 packages of 2 dies on one channel, dealt die by die as a
    # 150 MB/s host delivers 16 KiB pages (109 µs each), 42 µs over the channel, tPROG 307 µs:
    # each die's program ends before its package's next die starts, so the current is that of
    # 8 one-die packages started a host page apart.  It read "8 packages" at medium (dies 1
    # for 2); the current cannot tell the two, so the rise must not say 8.
    w, t, e = draw_dies_in_turn(4, 2, host_us=109.0, xfer_us=42.0, prog_us=307.0, prog_a=0.027, xfer_a=0.012)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=16384, channels=2, packages=16, t_xfer_page_us=42.0,
                  t_prog_us=307.0, host_rate_bytes_per_s=16384 / 109.0 * 1e6)
    assert r.packages_per_unit != 8, r.reason


def test_packages_whose_dies_program_together_still_count():
    # The same drive with tPROG 1500 µs: each package's second die starts while its first
    # still programs, so four packages stay on together and the rise reads them before any
    # program can end — the rule above does not reach it.
    w, t, e = draw_dies_in_turn(4, 2, host_us=109.0, xfer_us=42.0, prog_us=1500.0, prog_a=0.027, xfer_a=0.012)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=16384, channels=2, packages=16, t_xfer_page_us=42.0,
                  t_prog_us=1500.0, host_rate_bytes_per_s=16384 / 109.0 * 1e6)
    assert r.packages_per_unit == 4, r.reason

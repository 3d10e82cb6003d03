"""The read unit's rules, on reads drawn here from stated currents and timings (issue 22).

* a burst is one array read (tR); bursts that last longer the more is read are array reads
  run together (cache read) and are not counted as one unit; one burst at every size that
  lasts longer the more units are read is no bound "larger than every read";
* durations that rise no faster than the host link hide the array reads, so they are no
  evidence that the unit is larger than every read: such a bound is never "high";
* whole units moved to the host leave flat treads in the durations, a unit of R pages;
* a fixed part of every read (command latency, host tail, status) does not space the bursts;
* durations that wander more than their repeats do cannot decide between units alone;
* counting many reads at once counts each as if alone;
* the largest read's count is the burst rate over many units: a unit the small reads' counts
  fit but the largest read's does not is no reading of the bursts;
* host-bound durations hide the unit, the array reads do not: where every repeat of the
  largest read gives the same count and one unit only predicts it, that count decides;
* background work only lengthens a read: a slowed smallest read does not set the averaging.
"""

import numpy as np
import pytest

from charz.analysis._characterize import Trace, measure_traces
from charz.analysis._reads import busy_time_unit, count_bursts, count_bursts_many, fit_read_unit
from charz.analysis._stages import read_stage
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

PAGE = 8192
HOST = 300e6  # B/s
SIZES = np.repeat(np.r_[np.arange(1, 21) * PAGE, 64 * PAGE], 4)


def _oracle_count(x, window, noise, distance):
    """A burst count written from scipy alone: 5-sample median, moving average, floor at the
    5th percentile, peaks padded with the floor, prominence 35 % of the range."""
    from scipy.ndimage import median_filter
    from scipy.signal import find_peaks

    if x.size < 3 * window:
        return 1
    ma = np.convolve(median_filter(x, size=5, mode="nearest"), np.ones(window) / window, mode="valid")
    ma = np.round(ma, 9)
    lo = np.percentile(ma, 5)
    prom = max(0.35 * (ma.max() - lo), 6 * noise / np.sqrt(window))
    peaks, _ = find_peaks(np.r_[lo, ma, lo], prominence=prom, distance=max(1, window, distance))
    return max(1, peaks.size)


def test_many_windows_at_once_count_as_each_alone():
    rng = np.random.default_rng(3)
    windows, noise = [], []
    for _ in range(40):
        n_bursts = int(rng.integers(1, 9))
        period = int(rng.integers(30, 80))
        width = int(rng.integers(8, period - 10))
        x = np.full(n_bursts * period + int(rng.integers(10, 60)), 0.120)
        for k in range(n_bursts):
            x[k * period + 5: k * period + 5 + width] += rng.uniform(0.015, 0.030)
        sigma = rng.uniform(0.0005, 0.006)
        # an 8-bit screen of 4 mA steps: flat tops and ties, as a bench records them
        windows.append(np.round((x + rng.normal(0, sigma, x.size)) / 0.004).astype(np.int16))
        noise.append(sigma)
    scale = (np.full(40, 0.004), np.zeros(40), np.zeros(40))
    many = count_bursts_many(windows, 4, noise, 12, scale=scale)
    alone = [_oracle_count(w * 0.004, 4, s, 12) for w, s in zip(windows, noise)]
    # find_peaks breaks ties between equal neighbours within the distance in an order of its
    # own; a count may differ by one where two equal peaks tie, never more
    assert np.mean(many == np.array(alone)) >= 0.9
    assert np.max(np.abs(many - np.array(alone))) <= 1
    assert count_bursts(windows[0] * 0.004, 4, noise[0], 12) == _oracle_count(windows[0] * 0.004, 4, noise[0], 12)


def _durations(pages, per_unit_us, unit_pages, latency_us=40.0, host_whole_units=False, rng=None):
    units = np.ceil(pages / unit_pages)
    host = (units * unit_pages if host_whole_units else pages) * PAGE / HOST * 1e6
    d = latency_us + np.maximum(units * per_unit_us, host)
    if rng is not None:
        d = d + rng.normal(0, 1.0, d.size)
    return d * 1e-6


def test_bursts_that_last_longer_with_size_are_reads_run_together():
    # Cache read, one-page unit: each array read (tR 50 µs) starts as the last ends, so a read
    # of n pages is one long burst of n × 50 µs.  One burst per read at every size.
    rng = np.random.default_rng(1)
    pages = SIZES / PAGE
    d = _durations(pages, 52.0, 1, rng=rng)
    widths = pages * 50.0  # µs above half-way, one "burst"
    r = fit_read_unit(SIZES, d, np.ones(SIZES.size), PAGE, HOST, burst_width=widths)
    assert r.at_least_bytes is None, r.reason  # no bound from merged bursts
    assert "run together" in r.reason
    assert r.unit_bytes in (None, PAGE), r.reason  # the durations may decide a page, alone
    assert r.confidence != "high"


def test_a_bound_from_durations_that_hide_behind_the_host_is_never_high():
    # One burst per read of constant width (a real large unit would look so), and durations
    # that grow exactly at the host rate: the durations cannot tell that from small units
    # hidden behind the host link, so the bound rests on the bursts alone.
    rng = np.random.default_rng(2)
    pages = SIZES / PAGE
    d = (40.0 + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6
    r = fit_read_unit(SIZES, d, np.ones(SIZES.size), PAGE, HOST, burst_width=np.full(SIZES.size, 50.0))
    assert r.unit_bytes is None
    assert r.at_least_bytes == 64 * PAGE  # the profile's more_than_bytes (63 pages): tests/system
    assert r.confidence == "medium", r.reason
    assert "host" in r.reason


@pytest.mark.parametrize("unit_pages, t_read_us", [(8, 35.0), (16, 60.0)])
def test_one_burst_that_lasts_longer_with_the_units_is_no_bound(unit_pages, t_read_us):
    # Cache read of R-page units sensed on R dies at once: each array read (tR) starts as the
    # last ends, so a read of n units is one burst of n × tR, seen through an averaging
    # window of 100 µs (time above half-way ≈ max(burst, window)).  One burst at every
    # size, but the durations step once per unit (a whole unit per array read) by 200 µs:
    # a burst that grows with the units is array reads back to back, not one array read.
    rng = np.random.default_rng(10 + unit_pages)
    pages = SIZES / PAGE
    units = np.ceil(pages / unit_pages)
    d = (380.0 + 200.0 * (units - 1) + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6
    widths = np.maximum(units * t_read_us, 100.0) + rng.normal(0, 2.0, pages.size)
    r = fit_read_unit(SIZES, d, np.ones(SIZES.size), PAGE, HOST, burst_width=widths)
    assert r.at_least_bytes is None, r.reason
    assert (r.unit_bytes, r.confidence) == (unit_pages * PAGE, "medium"), r.reason
    assert "back to back" in r.reason
    # the same burst at every size (one tR, one array read) and flat durations: the bound holds
    flat = (380.0 + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6
    r = fit_read_unit(SIZES, flat, np.ones(SIZES.size), PAGE, HOST, burst_width=np.full(SIZES.size, 100.0))
    assert r.at_least_bytes == 64 * PAGE, r.reason


@pytest.mark.parametrize("beyond_pages", [0, 8])
def test_a_unit_as_large_as_the_largest_read_is_inside_the_bound(beyond_pages):
    # Reads of 1..8 pages, a unit of 8 pages (exactly the largest read) or 16: every read is
    # one array read (one burst of tR = 40 µs, the same width) and its time grows only with
    # the host transfer.  The two drives draw the same currents, so the bound must hold for
    # both: the unit is at least 8 pages, larger than 7, not larger than 8.
    rng = np.random.default_rng(20 + beyond_pages)
    sizes = np.repeat(np.arange(1, 9) * PAGE, 4)
    d = (60.0 + 40.0 + sizes / HOST * 1e6 + rng.normal(0, 1.0, sizes.size)) * 1e-6
    r = fit_read_unit(sizes, d, np.ones(sizes.size), PAGE, HOST, burst_width=np.full(sizes.size, 40.0))
    truth = (8 + beyond_pages) * PAGE
    assert r.unit_bytes is None and r.at_least_bytes == 8 * PAGE, r.reason
    assert truth >= r.at_least_bytes
    assert "at least 65536 B" in r.reason


@pytest.mark.parametrize("unit_pages", [2, 4])
def test_whole_units_to_the_host_leave_treads_of_one_unit(unit_pages):
    # Host-bound (a unit's host transfer is longer than its array read and channel transfer),
    # and the host moves whole units: durations flat across each unit, one jump per unit.
    rng = np.random.default_rng(unit_pages)
    pages = SIZES / PAGE
    d = _durations(pages, 30.0, unit_pages, host_whole_units=True, rng=rng)
    r = fit_read_unit(SIZES, d, None, PAGE, HOST)  # no burst view: the durations alone
    assert (r.unit_bytes, r.confidence) == (unit_pages * PAGE, "medium"), r.reason


def test_durations_that_wander_more_than_their_repeats_do_not_decide_alone():
    # One-page unit, 110 µs a page; each size's four repeats agree to 1 µs but the sizes wander
    # by 40 µs (e.g. a window end found early on some sizes of a noisy 8-bit record).  No other
    # unit explains that wander; none may be named from it.
    pages = SIZES / PAGE
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        wander = dict(zip(np.unique(pages), rng.normal(0, 40.0, np.unique(pages).size)))
        d = (37.0 + pages * 110.0 + np.array([wander[p] for p in pages]) + rng.normal(0, 1.0, pages.size)) * 1e-6
        r = fit_read_unit(SIZES, d, None, PAGE, 2000e6)  # no burst view: the durations alone
        assert r.unit_bytes in (None, PAGE), (seed, r.reason)


def _read_trace(rng, pages, unit_pages, *, latency_us, t_read_us, xfer_us, tail_us, dt=2e-6, n=6000, pre=500,
                erase_us=0.0):
    """Idle 100 mA; the controller busy at +40 mA from the command to the status; per unit an
    array read (+25 mA for tR), then its pages over the channel (+8 mA); a fixed latency before
    the first array read and a tail (host transfer of the last unit, status) after the last.
    With ``erase_us``, the read first waits for a background block erase (+30 mA)."""
    t = (np.arange(n) - pre) * dt * 1e6
    amps = np.full(n, 0.100)
    amps[(t >= 0) & (t < erase_us)] += 0.030
    latency_us += erase_us
    units = int(np.ceil(pages / unit_pages))
    end = latency_us + units * (t_read_us + xfer_us) + tail_us
    amps[(t >= 0) & (t < end)] += 0.040
    for u in range(units):
        s = latency_us + u * (t_read_us + xfer_us)
        amps[(t >= s) & (t < s + t_read_us)] += 0.025
        amps[(t >= s + t_read_us) & (t < s + t_read_us + xfer_us)] += 0.008
    amps += rng.normal(0, 0.002, n)
    codes = np.round(amps / 0.001).astype(np.int16)
    return Trace("read", int(pages * PAGE), Waveform(codes, 0.001, 0.0, 0.0, dt, -pre * dt, unit="A"))


def test_a_long_fixed_part_of_every_read_does_not_drop_bursts():
    # A 4-page unit read in 60 µs + 30 µs per unit, but every read also spends 80 µs before
    # its first array read and 90 µs after its last: half a one-unit read (130 µs) is longer
    # than the 90 µs between bursts.
    rng = np.random.default_rng(9)
    traces = [_read_trace(rng, p, 4, latency_us=80.0, t_read_us=60.0, xfer_us=30.0, tail_us=90.0)
              for p in np.repeat(np.r_[np.arange(1, 21), 40], 3)]
    q, r = read_stage(traces, measure_traces(traces), PAGE)
    assert np.median(r.bursts[r.sizes_bytes == 20 * PAGE]) == 5, r.reason
    assert q.value == 4 * PAGE, q.evidence


def _one_page_durations(rng):
    """A one-page unit, 43 µs array read + 56 µs over the channel per page, host at 2000 MB/s
    (hidden behind them): the durations rise by the same step per page."""
    pages = SIZES / PAGE
    return (40.0 + pages * (43.0 + 0.6 + 56.0) + rng.normal(0, 1.0, pages.size)) * 1e-6


def test_bursts_that_fit_small_reads_but_not_the_largest_are_no_view():
    # The array read (+11 mA) is followed by its transfer at +15 mA: the bursts run into the
    # shoulders and a count of one or two on the small reads fits a 6-page unit, but the
    # largest read (64 pages) shows 20, not the 11 a 6-page unit would give.
    rng = np.random.default_rng(11)
    pages = SIZES / PAGE
    bursts = np.where(pages < 64, np.ceil(pages / 6), 20.0)
    r = fit_read_unit(SIZES, _one_page_durations(rng), bursts, PAGE, 2000e6, burst_width=np.full(SIZES.size, 45.0))
    assert (r.unit_bytes, r.confidence) == (PAGE, "medium"), r.reason
    assert "largest read shows 20" in r.reason


def test_bursts_that_fit_a_unit_on_every_read_still_disagree_with_the_durations():
    # The same durations, but the largest read too shows the 11 bursts of a 6-page unit: the
    # burst view stands and disagrees with the durations, so nothing is decided.
    rng = np.random.default_rng(11)
    pages = SIZES / PAGE
    r = fit_read_unit(SIZES, _one_page_durations(rng), np.ceil(pages / 6), PAGE, 2000e6,
                      burst_width=np.full(SIZES.size, 45.0))
    assert r.unit_bytes is None and r.at_least_bytes is None, r.reason
    assert "do not agree" in r.reason


def _host_bound(rng):
    """Host at 150 MB/s (55 µs a page) slower than a page's array read and transfer: the
    durations rise at the host rate, whatever the unit."""
    pages = SIZES / PAGE
    return (60.0 + pages * PAGE / 150e6 * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6


@pytest.mark.parametrize("unit_pages", [1, 2, 4])
def test_host_bound_reads_show_the_unit_in_the_largest_reads_bursts(unit_pages):
    # One array read per unit; the small reads lose their first burst into the host DMA's
    # shoulder (one too few from 3 units up), the largest read's count holds on every repeat.
    rng = np.random.default_rng(20 + unit_pages)
    pages = SIZES / PAGE
    units = np.ceil(pages / unit_pages)
    bursts = np.where(pages < 64, np.maximum(1, units - (units >= 3)), units)
    bursts[pages == 64] -= np.array([0, 1, 0, 0])  # one repeat misses one burst
    r = fit_read_unit(SIZES, _host_bound(rng), bursts, PAGE, 150e6, burst_width=np.full(SIZES.size, 45.0))
    assert (r.unit_bytes, r.confidence) == (unit_pages * PAGE, "medium"), r.reason
    assert "every repeat" in r.reason


def test_host_bound_reads_whose_largest_counts_differ_between_repeats_decide_nothing():
    # The same reads, but the largest read's repeats count 62, 30, 64 and 41 bursts: noise, not
    # array reads; the durations hide the unit, so nothing is decided and no bound is given.
    rng = np.random.default_rng(30)
    pages = SIZES / PAGE
    bursts = np.where(pages < 64, np.maximum(1, pages - 2), 0.0)
    bursts[pages == 64] = [62, 30, 64, 41]
    r = fit_read_unit(SIZES, _host_bound(rng), bursts, PAGE, 150e6, burst_width=np.full(SIZES.size, 45.0))
    assert r.unit_bytes is None and r.at_least_bytes is None, r.reason


def test_a_smallest_read_slowed_by_an_erase_does_not_widen_the_averaging():
    # Two of three one-unit reads wait 3 ms for a background block erase (+30 mA): the
    # averaging window still comes from a one-unit read's 170 µs, and the bursts still count.
    rng = np.random.default_rng(12)
    traces = [_read_trace(rng, p, 4, latency_us=40.0, t_read_us=60.0, xfer_us=30.0, tail_us=40.0,
                          erase_us=3000.0 if p == 1 and k % 3 else 0.0)
              for k, p in enumerate(np.repeat(np.r_[np.arange(1, 21), 40], 3))]
    q, r = read_stage(traces, measure_traces(traces), PAGE)
    assert np.median(r.bursts[r.sizes_bytes == 20 * PAGE]) == 5, r.reason
    assert q.value == 4 * PAGE, q.evidence


def test_counts_that_differ_between_repeats_are_no_view():
    # An array read happens on every repeat.  Here each size's repeats count 1, 2·n/7 and up
    # to n bursts (prominences at the noise's level): no count is a reading, even where their
    # median leans to a larger unit, so the one-page step of the durations decides alone, at
    # medium.
    rng = np.random.default_rng(13)
    pages = SIZES / PAGE
    lean = np.ceil(pages / 7)
    noisy = np.stack([np.ones_like(pages), lean, np.maximum(lean, pages)], axis=1)
    bursts = noisy[np.arange(pages.size), np.arange(pages.size) % 4 % 3]
    bursts[pages == 64] = [10, 10, 10, 10]  # the largest read agrees with a 7-page unit
    r = fit_read_unit(SIZES, _one_page_durations(rng), bursts, PAGE, 2000e6, burst_width=np.full(SIZES.size, 45.0))
    assert (r.unit_bytes, r.confidence) == (PAGE, "medium"), r.reason
    assert "count differently" in r.reason



def test_counts_whose_median_agrees_but_whose_repeats_do_not_give_no_high():
    # Each size's four repeats count n, n, 2n and 1 bursts: the medians fit a one-page unit on
    # every size, largest read included, yet no repeat's count can be trusted.  The durations'
    # one-page step decides alone: medium, not high.
    rng = np.random.default_rng(14)
    pages = SIZES / PAGE
    bursts = np.stack([pages, pages, 2 * pages, np.ones_like(pages)], axis=1)[np.arange(pages.size), np.arange(pages.size) % 4]
    r = fit_read_unit(SIZES, _one_page_durations(rng), bursts, PAGE, 2000e6, burst_width=np.full(SIZES.size, 45.0))
    assert (r.unit_bytes, r.confidence) == (PAGE, "medium"), r.reason
    assert "count differently" in r.reason


def test_clear_bursts_hold_unless_the_durations_decide_against_them():
    # A 4-page unit: one array read per 4 pages on every repeat and every size.  The durations
    # carry 8-page treads of a growing step S under 30 µs of scatter per repeat (a window
    # start found early on some repeats): while they only lean (a margin below 10, stated in
    # docs/analysis.md), the bursts decide at medium; once they decide against the bursts,
    # nothing is decided.  Never an 8-page answer.
    import re

    pages = SIZES / PAGE
    bursts = np.ceil(pages / 4)
    said = []
    for step in (0.0, 20.0, 40.0, 60.0, 70.0, 80.0, 200.0):
        rng = np.random.default_rng(40)
        d = (300.0 + step * np.ceil(pages / 8) + rng.normal(0, 30.0, pages.size)) * 1e-6
        r = fit_read_unit(SIZES, d, bursts, PAGE, None, burst_width=np.full(SIZES.size, 45.0))
        m = re.search(r"durations: 65536 B by a margin of (\d+)", r.reason)
        if m and int(m.group(1)) >= 10:
            assert (r.unit_bytes, r.confidence) == (None, "undetermined"), (step, r.reason)
        else:
            assert (r.unit_bytes, r.confidence) == (4 * PAGE, "medium"), (step, r.reason)
        said.append(r.unit_bytes)
    assert said[0] == 4 * PAGE and said[-1] is None, said


def _busy(pages, unit_pages, per_unit_us, rng, lead_us=20.0):
    """Time above half-way of a read's array reads: ``lead`` (the averaging window's edges)
    plus one array read and its transfer (``per_unit``) per unit, 2 µs of scatter."""
    return lead_us + per_unit_us * np.ceil(pages / unit_pages) + rng.normal(0, 2.0, pages.size)


@pytest.mark.parametrize("unit_pages", [1, 2])
def test_host_bound_cache_reads_show_the_unit_in_the_arrays_busy_time(unit_pages):
    # Cache read, host-bound: each array read (tR 28 µs + 2 µs of command) starts as the last
    # ends, so the bursts run together into one, and the host (55 µs a page at 150 MB/s)
    # sets the durations.  The flash is busy 30 µs per unit and then waits for the host:
    # its busy time steps once per unit, and ends before the host link does.
    rng = np.random.default_rng(40 + unit_pages)
    pages = SIZES / PAGE
    busy = _busy(pages, unit_pages, 30.0, rng)
    r = fit_read_unit(SIZES, _host_bound(rng), np.ones(SIZES.size), PAGE, 150e6, burst_width=busy, busy_us=busy)
    assert (r.unit_bytes, r.confidence) == (unit_pages * PAGE, "medium"), r.reason
    assert "run together" in r.reason and "busy time" in r.reason


def test_a_busy_time_as_long_as_the_host_links_decides_nothing():
    # The host DMA's current above half-way: the "busy" time grows with the host transfer
    # (55 µs a page), as the durations do, and may be the host's, not the flash's.
    rng = np.random.default_rng(50)
    pages = SIZES / PAGE
    busy = _busy(pages, 1, PAGE / 150e6 * 1e6, rng)
    r = fit_read_unit(SIZES, _host_bound(rng), np.ones(SIZES.size), PAGE, 150e6, burst_width=busy, busy_us=busy)
    assert r.unit_bytes is None and r.at_least_bytes is None, r.reason
    assert "host DMA" in r.reason


def test_a_busy_time_that_counts_other_array_reads_than_both_views_leaves_it_undetermined():
    # Bursts and durations agree on a 4-page unit; a busy time that steps once per page
    # (an array read per page) contradicts them both: the views disagree.
    rng = np.random.default_rng(60)
    pages = SIZES / PAGE
    units = np.ceil(pages / 4)
    d = (40.0 + 220.0 * units + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6
    ok = fit_read_unit(SIZES, d, units, PAGE, HOST, burst_width=np.full(SIZES.size, 45.0),
                       busy_us=_busy(pages, 4, 50.0, rng))
    assert (ok.unit_bytes, ok.confidence) == (4 * PAGE, "high"), ok.reason
    r = fit_read_unit(SIZES, d, units, PAGE, HOST, burst_width=np.full(SIZES.size, 45.0),
                      busy_us=_busy(pages, 1, 50.0, rng))
    assert r.unit_bytes is None and "does not agree" in r.reason, r.reason


def test_counts_fewer_than_the_busy_times_array_reads_are_bursts_run_together():
    # A 4-page unit: durations step 220 µs per unit and the flash is busy 50 µs per unit, but
    # every two array reads ran into one burst (cache read): the counts fit an 8-page unit.
    # Running together only lowers a count, so the counts are the odd reading out.
    rng = np.random.default_rng(70)
    pages = SIZES / PAGE
    units = np.ceil(pages / 4)
    d = (40.0 + 220.0 * units + pages * PAGE / HOST * 1e6 + rng.normal(0, 1.0, pages.size)) * 1e-6
    merged = np.ceil(units / 2)
    busy = _busy(pages, 4, 50.0, rng)
    r = fit_read_unit(SIZES, d, merged, PAGE, HOST, burst_width=np.full(SIZES.size, 45.0), busy_us=busy)
    assert (r.unit_bytes, r.confidence) == (4 * PAGE, "medium"), r.reason
    assert "fewer than the array reads" in r.reason
    # more bursts than the busy time's array reads are not explained so: the views disagree
    r = fit_read_unit(SIZES, d, np.ceil(pages / 2), PAGE, HOST, burst_width=np.full(SIZES.size, 45.0), busy_us=busy)
    assert r.unit_bytes is None, r.reason


def test_the_busy_time_holds_its_length_on_noisy_8_bit_records():
    # 600 samples busy at +12 mA over 100 mA, σ 6 mA of noise, 4 mA ADC steps: half-way to
    # the average's maximum (one extreme of the noise) moves from repeat to repeat; half-way
    # to its 95th percentile keeps the busy time within a few samples of the 600.
    from charz.analysis._reads import burst_windows

    rng = np.random.default_rng(1)
    x = np.full(1000, 0.100)
    x[100:700] += 0.012
    segs = [np.round((x + rng.normal(0, 0.006, x.size)) / 0.004) * 0.004 for _ in range(30)]
    bw = burst_windows(segs, 8)
    assert abs(np.median(bw.busy) - 600) <= 10
    assert np.std(bw.busy) < 0.5 * np.std(bw.high)


def _lost_largest(pages, largest_counts):
    """Bursts of an 8-page unit on the small reads (one per 8 pages), and the largest read's
    repeats as given."""
    bursts = np.ceil(pages / 8)
    bursts[pages == 64] = largest_counts
    return bursts


@pytest.mark.parametrize("largest, agree", [([8, 8, 3, 2, 9], False), ([8, 8, 8, 2, 9], True)])
def test_a_largest_read_whose_repeats_count_differently_is_no_reading(largest, agree):
    # A one-page unit (43 µs array read + 56 µs over the channel per page, host hidden): the
    # durations rise by the same step per page.  The array read's current falls only to a
    # transfer shoulder between bursts, so what is counted is noise near the threshold: one
    # burst per 8 pages on the small reads, and on the largest read (64 pages) repeats that
    # count 8, 8, 3, 2 and 9.  An array read happens on every repeat: two repeats in five off
    # is no reading, and the small reads' one or two bursts fit many units — the bursts
    # abstain and the durations decide alone.  One repeat in five that lost its bursts (a
    # background erase) is an outlier: the counts stand, and disagree with the durations.
    rng = np.random.default_rng(15)
    pages = np.repeat(np.r_[np.arange(1, 21), 64], 5).astype(np.float64)
    sizes = (pages * PAGE).astype(np.int64)
    d = (40.0 + pages * (43.0 + 0.6 + 56.0) + rng.normal(0, 1.0, pages.size)) * 1e-6
    r = fit_read_unit(sizes, d, _lost_largest(pages, largest), PAGE, 2000e6, burst_width=np.full(sizes.size, 45.0))
    if agree:
        assert r.unit_bytes is None and "do not agree" in r.reason, r.reason
    else:
        assert (r.unit_bytes, r.confidence) == (PAGE, "medium"), r.reason
        assert "8/8/3/2/9" in r.reason


def _half_counts(pages, rng):
    """Array reads of a 2-page unit, run together in pairs (one count per 4 pages), and on a
    third of the small sizes one pair that did not merge (one more)."""
    counts = np.ceil(pages / 4)
    sizes = np.unique(pages[pages < 64])
    odd = rng.choice(sizes, size=len(sizes) // 3, replace=False)
    return counts + np.isin(pages, odd)


@pytest.mark.parametrize("bursts_unit_pages, decided", [(4, True), (3, False)])
def test_counts_of_half_the_array_reads_are_bursts_run_together(bursts_unit_pages, decided):
    # A 2-page unit: each array read (56 µs) is followed by its transfer (47 µs) at nearly
    # the array read's current, so the durations step 105 µs every 2 pages and the bursts
    # of two array reads often run into one: the counts fit a 4-page unit on about two
    # thirds of the sizes.  A 4-page unit would leave out every other step of the
    # durations; the busy time (40 µs of scatter per repeat, so it does not decide)
    # leans to 2 pages.  Running together only lowers a count: the bursts abstain and the
    # durations decide, at medium.  Counts that fit 3 pages (1.5× the durations' unit, the
    # durations could mistake such units for each other) still disagree.
    rng = np.random.default_rng(16)
    pages = np.repeat(np.r_[np.arange(1, 21), 64], 4).astype(np.float64)
    sizes = (pages * PAGE).astype(np.int64)
    units = np.ceil(pages / 2)
    d = (40.0 + 105.0 * units + rng.normal(0, 1.0, pages.size)) * 1e-6
    busy = 20.0 + 100.0 * units + rng.normal(0, 40.0, pages.size)
    view = busy_time_unit(sizes, busy, PAGE)
    assert view.unit_bytes == 2 * PAGE and view.margin < 10  # a lean, not a decision
    bursts = _half_counts(pages, rng) if bursts_unit_pages == 4 else np.ceil(pages / 3)
    r = fit_read_unit(sizes, d, bursts, PAGE, 2000e6, burst_width=np.full(sizes.size, 45.0), busy_us=busy)
    if decided:
        assert (r.unit_bytes, r.confidence) == (2 * PAGE, "medium"), r.reason
        assert "run together" in r.reason
    else:
        assert r.unit_bytes is None and "do not agree" in r.reason, r.reason


def test_reads_clipped_at_the_rail_are_still_timed():
    # A scope range set for the writes: the reads' array-read bursts (+25 mA over 140 mA)
    # reach past the 8-bit screen's top code, 150 mA at 1 mA per code, on every read but
    # two.  Their edges (100 mA idle to 140 mA busy) lie far below the rail, so every read
    # still starts and ends where it did: a 4-page unit at 60 + 30 µs per unit steps the
    # durations by 90 µs every 4 pages.  Only the clipped tops are not counted as bursts.
    rng = np.random.default_rng(5)
    traces = []
    for k, p in enumerate(np.repeat(np.r_[np.arange(1, 21), 40], 3)):
        t = _read_trace(rng, p, 4, latency_us=40.0, t_read_us=60.0, xfer_us=30.0, tail_us=20.0)
        w = t.waveform
        rail = 255 if k < 2 else 150
        traces.append(Trace("read", t.size_bytes, Waveform(np.minimum(w.codes, rail), w.y_mult, w.y_offset_codes,
                                                           w.y_zero, w.sample_interval_s, w.t_first_s, unit="A",
                                                           code_min=0, code_max=rail)))
    table = measure_traces(traces)
    assert np.count_nonzero(table.usable) == 2  # the rail flags the others: not a view of their tops
    q, r = read_stage(traces, table, PAGE)
    assert q.value == 4 * PAGE, q.evidence
    assert q.confidence == "medium" and "clipped" in q.evidence


def _host_bound_one_page_read(rng, pages, *, page=16384, t_read_us=35.0, xfer_us=56.0, host_mb_s=150.0, dt=1e-6,
                              n=9000, pre=1000):
    """Idle 150 mA; from the command (40 µs latency) each page is an array read (+19 mA for
    tR), then its transfer over the channel (+33 mA), back to back (one page per unit, 91 µs
    a page); the host link (+17 mA) moves each page once it is read, at 150 MB/s (109 µs a
    page): slower than the flash, so the durations rise at the host's rate and the flash
    finishes first.  σ 7 mA of sample noise on a 12-bit screen of 0.1 mA steps."""
    t = (np.arange(n) - pre) * dt * 1e6
    amps = np.full(n, 0.150)
    host_page = page / host_mb_s  # µs
    ready = 40.0 + t_read_us + xfer_us
    end_host = ready + pages * host_page
    amps[(t >= ready) & (t < end_host)] += 0.017
    for k in range(int(pages)):
        s = 40.0 + k * (t_read_us + xfer_us)
        amps[(t >= s) & (t < s + t_read_us)] += 0.019
        amps[(t >= s + t_read_us) & (t < s + t_read_us + xfer_us)] += 0.033
    amps[(t >= 0) & (t < end_host + 10.0)] += 0.010  # the controller, command to status
    amps += rng.normal(0, 0.007, n)
    codes = np.round(amps / 1e-4).astype(np.int16)
    return Trace("read", int(pages * page), Waveform(codes, 1e-4, 0.0, 0.0, dt, -pre * dt, unit="A"))


def test_a_host_bound_one_page_units_ripple_counts_its_array_reads():
    # Neither the bursts (each sits on the host transfer's level and touches the next) nor
    # the durations (at the host's rate) name the unit; the largest read (32 pages) repeats
    # its 91 µs pattern 32 times before the host link finishes: 32 array reads, one page each.
    rng = np.random.default_rng(11)
    traces = [_host_bound_one_page_read(rng, p) for p in np.repeat(np.r_[np.arange(1, 11), 32], 4)]
    q, r = read_stage(traces, measure_traces(traces), 16384, 150e6)
    assert q.value == 16384 and q.confidence == "medium", q.evidence
    assert "ripple: " in q.evidence


def test_a_read_without_a_repeating_pattern_has_no_ripple_view():
    # The same reads with the array reads' and transfers' currents equal (one flat level):
    # nothing repeats, so no cycles are counted and the view names no unit.
    from charz.analysis._ripple import read_ripple, ripple_unit

    rng = np.random.default_rng(2)
    flat = [0.2 + rng.normal(0, 0.007, 3700) for _ in range(4)]
    view = ripple_unit([read_ripple(x, 1e-6) for x in flat], 32 * 16384, 16384)
    assert view.unit_bytes is None, view.reason


def test_a_ripple_count_between_two_units_names_neither():
    # 24 cycles in a 32-page read: 32 one-page reads lost in part, or 16 two-page reads with
    # a second pattern; neither unit predicts it within 15 %.
    from charz.analysis._ripple import Ripple, ripple_unit

    r = [Ripple(90e-6, 0.5, 24.0)] * 4
    assert ripple_unit(r, 32 * 16384, 16384).unit_bytes is None
    assert ripple_unit([Ripple(90e-6, 0.5, 16.5)] * 4, 32 * 16384, 16384).unit_bytes == 32768


def _one_page_cut_short(rng):
    """A one-page unit of 4 KiB pages read at 125 µs a page (29 µs tR + 96 µs over a slow
    channel; the 1 GB/s host hides behind it) plus 40 µs: the durations grow by the same
    step per page.  Each read varies by ±1.5 %; three windows in ten end early (a noisy
    record's current dipped into the noise before the read was done: 20–90 % of the read
    kept) and one in 25 is slowed by 1–3 ms of background erase."""
    pages = np.repeat(np.r_[np.arange(1, 41), 128], 5).astype(float)
    d = (40.0 + 125.0 * pages) * rng.uniform(0.985, 1.015, pages.size)
    cut = rng.random(d.size) < 0.3
    d[cut] *= rng.uniform(0.2, 0.9, cut.sum())
    slow = rng.random(d.size) < 0.04
    d[slow] += rng.uniform(1000, 3000, slow.sum())
    return pages * 4096, d * 1e-6


def test_durations_that_grow_by_the_same_step_per_page_decide_past_windows_cut_short():
    # The repeats that agree with each other are the read; a window cut short or a read
    # slowed by an erase agrees with none, and no longer moves a size's median by pages.
    got = [fit_read_unit(*_one_page_cut_short(np.random.default_rng(seed)), None, 4096, 1e9) for seed in range(20)]
    assert not [r for r in got if r.unit_bytes not in (None, 4096)]
    assert sum(r.unit_bytes == 4096 for r in got) >= 15, [r.reason for r in got]

"""Where the peak staircase's top is, from request durations drawn here from stated timings.

A small schedule written for these tests (not charz's recurrence, not a generator): the
host delivers a page every ``host_us``; the controller sends each page over its package's
channel once it is in and the channel is free; a package's die programs once its page is in
and the die is free (with cache program the page may cross while the die still programs
the previous one).  A partial unit is padded to a whole unit.  The request ends with its
last program.
"""

import numpy as np
import pytest

from charz.analysis._saturation import check_top, first_wait, tread_is_a_wait

pytestmark = pytest.mark.unit


def durations(*, packages, ppu, dies, host_us, xfer_us, prog_us, max_pages, cache=True, repeats=3, seed=1):
    """(size in pages, duration in s) of writes of 1 … max_pages pages, each on fresh, idle packages."""
    rng = np.random.default_rng(seed)
    unit = ppu * dies
    sizes, out = [], []
    for n in range(1, max_pages + 1):
        for _ in range(repeats):
            pages = -(-n // unit) * unit  # padded to whole units
            chan_free = np.zeros(packages)  # one channel per package
            die_free = np.zeros((packages, dies))
            end = 0.0
            for q in range(pages):
                u, r = divmod(q, unit)
                k, d = (u * ppu + r // dies) % packages, r % dies
                ready = host_us * (min(q, n - 1) + 1)
                start = max(ready, chan_free[k], 0.0 if cache else die_free[k, d])
                chan_free[k] = start + xfer_us
                p0 = max(start + xfer_us, die_free[k, d])
                die_free[k, d] = p0 + prog_us * rng.uniform(0.98, 1.02)
                end = max(end, die_free[k, d])
            sizes.append(n)
            out.append((end + 10.0) * 1e-6)
    return np.array(sizes), np.array(out)


def test_a_unit_below_the_peaks_top_that_waits_marks_every_package_busy():
    # 4 packages, units of 2 (1 die each): units 1 and 2 take every package, unit 3 comes back
    # to unit 1's packages and waits ~1.3 ms for their programs.  The peaks may show a third
    # level (unit 3's transfers with cache program): the durations put the top at 2 units.
    s, d = durations(packages=4, ppu=2, dies=1, host_us=55.0, xfer_us=80.0, prog_us=1400.0, max_pages=8)
    k, why = first_wait(s, d, 2, 3)
    assert k == 2, why
    # the same durations with the staircase's top where the wait is: check_top agrees
    assert check_top(s, d, 2, 2, 4, np.array([0.1, 0.16])).all_busy is True


def test_units_that_stop_overlapping_show_no_wait():
    # 8 packages, units of 2 pages that each take 300 µs from a slow host, programs of 200 µs:
    # every unit lands on an idle package and adds the same time — no wait below any top.
    s, d = durations(packages=8, ppu=2, dies=1, host_us=150.0, xfer_us=40.0, prog_us=200.0, max_pages=10)
    assert first_wait(s, d, 2, 4)[0] is None


def test_a_wait_right_past_the_top_is_not_a_wait_below_it():
    # a top of 2 levels with the wait at unit 3 is check_top's case (the top itself), not a lower top
    s, d = durations(packages=4, ppu=2, dies=1, host_us=20.0, xfer_us=40.0, prog_us=900.0, max_pages=6)
    assert first_wait(s, d, 2, 2)[0] is None
    assert check_top(s, d, 2, 2, 4, np.array([0.1, 0.16])).all_busy is True


def test_characterize_puts_the_top_where_a_unit_waited():
    # Four packages of one die, units of 2 pages; the host sends a page every 25 µs, each takes
    # 50 µs over its own channel (35 mA while it moves) and programs 900 µs (45 mA per package).
    # With cache program the third unit's two pages cross their channels at once while all four
    # packages still program: the peaks climb a third step of 70 mA against 90 mA for a unit —
    # too large to be trimmed as transfers — and then the unit waits ~850 µs for its packages.
    # The durations put the top at 2 units: N_step = 2, Eq. 1 gives 2 × 2 / 4 = 1 die.
    from charz.analysis import Given, Trace, characterize
    from charz.waveform import Waveform

    dt, t_first, n = 2e-6, -0.4e-3, 1600
    rng = np.random.default_rng(7)
    t_us = (t_first + dt * np.arange(n)) * 1e6
    traces = []
    for pages in range(1, 9):
        padded = -(-pages // 2) * 2
        for rep in range(3):
            amps = np.full(n, 0.04)
            free = np.zeros(4)
            ends = []
            for i in range(padded):
                s = 20.0 + 25.0 * i  # a padding page follows at the same pace
                amps += 0.035 * ((t_us >= s) & (t_us < s + 50.0))
                p0 = max(s + 50.0, free[i % 4])
                free[i % 4] = p0 + 900.0 * rng.uniform(0.98, 1.02)
                amps += 0.045 * ((t_us >= p0) & (t_us < free[i % 4]))
                ends.append(free[i % 4])
            amps += 0.06 * ((t_us >= 0) & (t_us < max(ends) + 10.0))
            amps += rng.normal(0, 0.002, n)
            codes = np.round(amps / 0.25e-3).astype(np.int16)
            traces.append(Trace("write", pages * 8192, Waveform(codes, 0.25e-3, 0.0, 0.0, dt, t_first, unit="A",
                                                                code_min=-2048, code_max=2047), repeat=rep))
    c = characterize(traces, Given(channels=4, packages=4, page_size_bytes=8192))  # no timing: no rise
    assert c["n_step"].value == 2, c["n_step"].evidence
    assert "waited for a busy package" in c["n_step"].evidence
    dies = c["dies_per_package"]
    assert dies.value == 1, dies.evidence
    assert dies.confidence == "medium"


# --- a tread that waits a program although it adds less than 0.9 of a write ---------------
# One-page units on 2 packages, cache program, host data 76 µs a page, transfer 67 µs,
# tPROG 338 µs (datasheet dev seed 616's timing): every page past the second waits a
# program, so the durations climb a program every 2 pages — the round of both packages,
# not a 2-page unit.  A one-page write is 76 + 67 + 338 + 10 µs, so the tread (~340 µs) is
# well under 0.9 of it: only the program time shows the tread holds a wait.

def _tread(s, d, pages):
    """What each tread of ``pages`` adds: the median step between whole treads' durations."""
    med = np.array([np.median(d[s == k]) for k in range(pages, int(s.max()) + 1, pages)]) * 1e6
    return float(np.median(np.diff(med)))


def test_a_tread_of_one_program_is_a_wait_given_the_program_time():
    s, d = durations(packages=2, ppu=1, dies=1, host_us=76.0, xfer_us=67.0, prog_us=338.0, max_pages=10)
    per = _tread(s, d, 2)
    assert not tread_is_a_wait(s, d, 2, per)[0]  # the whole-write bound alone misses it
    assert tread_is_a_wait(s, d, 2, per, (338.0, 0.2 * 338.0))[0]


def test_units_that_overlap_add_transfers_not_a_program():
    # 2-page units (2 dies) on 4 packages: each unit adds its pages' transfers until all four
    # packages program; the tread is the unit's, not a wait, whatever the program time.
    s, d = durations(packages=4, ppu=1, dies=2, host_us=20.0, xfer_us=60.0, prog_us=330.0, max_pages=8)
    per = _tread(s, d, 2)
    assert not tread_is_a_wait(s, d, 2, per, (330.0, 66.0))[0]


def test_a_slow_host_adds_more_than_a_program_per_unit_without_a_wait():
    # 4-page units on 4 packages behind a 150 µs/page host link: each unit adds 600 µs of host
    # data, more than tPROG (500 µs), but no more than a one-unit write spends outside its program.
    s, d = durations(packages=4, ppu=1, dies=4, host_us=150.0, xfer_us=40.0, prog_us=500.0, max_pages=20)
    per = _tread(s, d, 4)
    assert per > 400.0
    assert not tread_is_a_wait(s, d, 4, per, (500.0, 100.0))[0]
    assert not tread_is_a_wait(s, d, 4, per, (600.0, 120.0))[0]  # a program time measured 20 % long

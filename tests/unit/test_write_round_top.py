"""The staircase's top from the first wait after a whole round of the package walk (issue 22).

Drawn here from stated currents and timings, not from charz: one-page units on four
packages, each on its own channel, TLC page types (lower, middle, upper page: 0.8, 1.0 and
1.2 × tPROG) and cache program — a page crosses its channel into the package's cache
register while the package still programs the one before.  So:

* single pages below the top add part of a program time to the request (the slower page
  types), as much as a third of what the first wait adds;
* once every package programs, the next pages still cross the channels, and their transfer
  current (three quarters of a package's program current here) lifts the peak by a fifth
  level on four packages — no staircase of at most four levels fits the whole sweep.

A unit of p packages × d dies fills every die of every package after N · d pages (N the
packages), whatever p: the first wait comes right after a multiple of N.
"""

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize, fit_steps
from charz.analysis._steps import fit_steps_to_top
from charz.analysis._units import durations_top, round_tops
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

PAGE = 4096
PACKAGES = 4
T_GAP, T_XFER, T_PROG, T_STATUS = 30.0, 60.0, 1500.0, 15.0  # µs
TYPES = (0.8, 1.0, 1.2)  # lower, middle, upper page
IDLE_A, CTRL_A, PROG_A, XFER_A = 0.040, 0.050, 0.040, 0.030
DT, T_FIRST, N = 2e-6, -0.4e-3, 4000


def schedule(pages: int):
    """(transfers, programs, end) in µs of a write of ``pages`` one-page units, by the
    recurrence above: page i goes to package i mod 4; its transfer starts when the controller
    gets to it and the package's cache register is free (its previous program started); its
    program starts when the transfer is done and the package is free."""
    prog_start = np.full(PACKAGES, -np.inf)
    free = np.zeros(PACKAGES)
    transfers, programs = [], []
    for i in range(pages):
        k = i % PACKAGES
        a = max(i * T_GAP, prog_start[k])
        transfers.append((a, a + T_XFER))
        p0 = max(a + T_XFER, free[k])
        p1 = p0 + T_PROG * TYPES[i % len(TYPES)]
        programs.append((k, p0, p1))
        prog_start[k], free[k] = p0, p1
    return transfers, programs, max(p for _, _, p in programs) + T_STATUS


def durations_us(sizes):
    return np.array([schedule(int(u))[2] for u in sizes])


def peaks_a(sizes):
    """Peak above idle: the controller, every package programming at the peak's moment, and
    the channels moving pages then — sampled on the schedule itself."""
    out = []
    for u in sizes:
        transfers, programs, end = schedule(int(u))
        t = np.arange(0.0, end, 1.0)
        busy = np.zeros((PACKAGES, t.size), bool)
        for k, p0, p1 in programs:
            busy[k] |= (t >= p0) & (t < p1)
        moving = sum(((t >= a) & (t < b)).astype(float) for a, b in transfers)
        out.append(CTRL_A + PROG_A * busy.sum(axis=0) + XFER_A * moving)
    return np.array([np.max(np.convolve(i, np.ones(40) / 40, "valid")) for i in out])


SIZES = np.repeat(np.arange(1, 13), 3)


def test_the_first_wait_follows_a_whole_round():
    rng = np.random.default_rng(1)
    d = durations_us(SIZES) + rng.normal(0, 4.0, SIZES.size)
    # The ratio test takes the first page-type jump (the middle page adds 360 µs) for a wait.
    assert durations_top(SIZES, d * 1e-6) != 4
    # The second round waits too (for programs that themselves started late): the first is 4.
    assert round_tops(SIZES, d * 1e-6, PACKAGES)[0] == 4
    # Without a wait after any whole round (units that never wrap onto a busy package in the
    # sweep: durations rising by a transfer per page) there is no top.
    assert round_tops(SIZES, (2000 + 60.0 * SIZES) * 1e-6, PACKAGES) == []


def test_the_round_top_and_the_four_package_ramp_read_the_same_staircase():
    rng = np.random.default_rng(2)
    y = peaks_a(SIZES) + rng.normal(0, 0.002, SIZES.size)
    whole = fit_steps(SIZES, y, n_package=PACKAGES, idle_a=0.0)
    # No staircase of a few levels fits the whole sweep: only the one-page ramp on four
    # packages (three equal rises, then the smaller transfer rise) reads it whole; the
    # round's top, below, reads it without that ramp.
    assert (whole.n_step, whole.step_pages) == (4, 1), whole.reason
    assert "up to the 4 packages given" in whole.reason, whole.reason
    r = fit_steps_to_top(SIZES, y, 4, n_package=PACKAGES)
    assert (r.n_step, r.step_pages, r.confidence) == (4, 1, "medium"), r.reason


def test_a_top_of_two_pages_needs_the_rounds_leave():
    # Two packages of one-page units: the staircase to a top of 2 pages has only two sizes.
    sizes = np.repeat(np.arange(1, 9), 3)
    y = 0.09 + 0.04 * np.minimum(sizes, 2) + 0.025 * (sizes > 2) + np.tile([0.001, 0.0, -0.001], 8)
    assert fit_steps_to_top(sizes, y, 2, n_package=2).n_step is None
    r = fit_steps_to_top(sizes, y, 2, n_package=2, min_sizes=2)
    assert (r.n_step, r.step_pages) == (2, 1), r.reason


def write_trace(pages: int, rng, repeat: int) -> Trace:
    transfers, programs, end = schedule(pages)
    t_us = (T_FIRST + DT * np.arange(N)) * 1e6
    amps = np.full(N, IDLE_A)
    amps[(t_us >= 0) & (t_us < end)] += CTRL_A
    busy = np.zeros((PACKAGES, N), bool)
    for k, p0, p1 in programs:
        busy[k] |= (t_us >= p0) & (t_us < p1)
    amps += PROG_A * busy.sum(axis=0)
    for a, b in transfers:
        amps[(t_us >= a) & (t_us < b)] += XFER_A
    amps += rng.normal(0, 0.003, N)
    codes = np.round(amps / 0.25e-3).astype(np.int16)
    return Trace("write", pages * PAGE, Waveform(codes, 0.25e-3, 0.0, 0.0, DT, T_FIRST, unit="A", code_min=-2048,
                                                 code_max=2047), repeat=repeat)


def test_dies_and_unit_from_the_staircase_to_the_first_round():
    rng = np.random.default_rng(3)
    traces = [write_trace(p, rng, r) for r in range(3) for p in range(1, 13)]
    c = characterize(traces, Given(channels=4, packages=PACKAGES, page_size_bytes=PAGE))
    assert (c["n_step"].value, c["step_pages"].value) == (4, 1), c["n_step"].evidence
    assert c["dies_per_package"].value == 1, c["dies_per_package"].evidence
    assert c["write_io_unit_bytes"].value == PAGE
    # read by the one-page ramp on four packages (before it, by the staircase up to the
    # round's top, which test_the_round_top_and_the_four_package_ramp_read_the_same_staircase
    # keeps checking on its own): the same staircase, medium
    assert c["dies_per_package"].confidence == "medium"
    assert "up to the 4 packages given" in c["step_pages"].evidence, c["step_pages"].evidence

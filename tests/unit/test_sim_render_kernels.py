"""The renderer's own kernel gives, bit for bit, what it replaces: the compiled ISPP ripple
what the plain numpy statement of the ripple adds — including on samples that fall exactly
on a half-period edge, where its fast path hands the decision to the exact ``%``."""

import numpy as np
import pytest

from charz.sim._render import _add_ispp

pytestmark = pytest.mark.unit


def _reference(current, t_us, i0, i1, a0, amps, pkg, programs, period, ripple):
    # The ripple as it was written before it was compiled: numpy slices, program by program.
    for j in programs:
        s0, s1 = i0[j], i1[j]
        if s1 <= s0:
            continue
        phase = (pkg[j] * 0.37 % 1.0) * period
        square = np.where(((t_us[s0:s1] - a0[j] - phase) % period) < period / 2, 1.0, -1.0)
        current[s0:s1] += amps[j] * ripple * square


@pytest.mark.parametrize("t0_us, dt_us, period", [
    (-800.0, 2.0, 24.0),  # the default ISPP period on the 2 µs grid: edges land on samples
    (-800.0, 1.0, 24.0),
    (-0.5, 0.5, 3.0),  # every edge on a sample
    (-413.7, 1.3, 17.3),  # edges between samples
    (1e6, 2.0, 24.0),  # far from zero: q in the tens of thousands
])
def test_compiled_ripple_equals_the_numpy_slices(t0_us, dt_us, period):
    rng = np.random.default_rng(3)
    n = 6000
    t_us = t0_us + dt_us * np.arange(n)
    k = 40
    # starts on the grid (edges exactly on samples when the phase is 0) and off it
    a0 = np.where(rng.random(k) < 0.5, t_us[rng.integers(0, n, k)], rng.uniform(t_us[0], t_us[-1], k))
    i0 = np.clip(np.ceil((a0 - t0_us) / dt_us - 1e-9), 0, n).astype(np.int64)
    i1 = np.minimum(i0 + rng.integers(0, 3000, k), n)
    amps = rng.uniform(0.01, 0.1, k)
    pkg = np.where(rng.random(k) < 0.3, 0, rng.integers(0, 64, k)).astype(np.int32)  # package 0: phase 0
    programs = np.flatnonzero(rng.random(k) < 0.8)
    base = rng.normal(0.1, 0.01, n)
    want, got = base.copy(), base.copy()
    _reference(want, t_us, i0, i1, a0, amps, pkg, programs, period, 0.15)
    _add_ispp(got, t_us, i0, i1, a0, amps, pkg, programs, period, 0.15)
    assert not np.array_equal(want, base)  # the ripple was there to compare
    assert np.array_equal(got, want)

"""From what the drive did to what a current probe shows.

The waveform is the sum of the activity's intervals (controller, channel
transfers, package programs with their ISPP ripple, reads), the idle current,
a post-I/O tail, periodic idle peaks when the drive is not in standby, then a
first-order low-pass (decoupling capacitors and probe bandwidth), then what
the bench adds: white noise, mains hum and rare spikes.  Quantisation belongs
to the digitiser (:mod:`charz.sim._digitizer`), as on a real scope.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import lfilter, lfilter_zi

from charz.sim._model import DriveModel
from charz.sim._schedule import PROGRAM, Activity


def _index(t_us: np.ndarray, t_first_us: float, dt_us: float, n: int) -> np.ndarray:
    # Sample i is the instantaneous value at t_first + i·dt (sample mode).
    return np.clip(np.ceil((t_us - t_first_us) / dt_us - 1e-9), 0, n).astype(np.int64)


def render_current(
    model: DriveModel,
    activity: Activity | None,
    t_first_s: float,
    sample_interval_s: float,
    n_samples: int,
    rng: np.random.Generator,
    *,
    standby: bool = True,
) -> np.ndarray:
    """Supply current in amperes at ``t_first_s + i·sample_interval_s`` (request at t = 0).

    ``activity`` None renders the idle drive.  Float64.
    """
    c, z = model.currents, model.nuisances
    n = int(n_samples)
    dt_us = sample_interval_s * 1e6
    t0_us = t_first_s * 1e6
    diff = np.zeros(n + 1)
    diff[0] = c.idle_a
    t_us = t0_us + dt_us * np.arange(n)
    if activity is not None:
        a0, a1, amps, kind, pkg = activity.intervals
        i0 = _index(a0, t0_us, dt_us, n)
        i1 = _index(a1, t0_us, dt_us, n)
        np.add.at(diff, i0, amps)
        np.add.at(diff, i1, -amps)
        if c.tail_a and c.tail_s:
            j0, j1 = _index(np.array([activity.tail_from_us, activity.tail_from_us + c.tail_s * 1e6]), t0_us, dt_us, n)
            diff[j0] += c.tail_a
            diff[j1] -= c.tail_a
    current = np.cumsum(diff[:n])
    if activity is not None and c.ispp_ripple:
        # Program current comes in ISPP pulses; each package has its own phase.
        period = c.ispp_period_us
        for j in np.flatnonzero(kind == PROGRAM):
            s0, s1 = i0[j], i1[j]
            if s1 <= s0:
                continue
            phase = (pkg[j] * 0.37 % 1.0) * period
            square = np.where(((t_us[s0:s1] - a0[j] - phase) % period) < period / 2, 1.0, -1.0)
            current[s0:s1] += amps[j] * c.ispp_ripple * square
    if not standby and z.idle_peak_a and z.idle_peak_period_s:
        # Housekeeping bursts of an idle drive (003 Fig. 6a: X-25M, 240 mA every 50 ms).
        period_us = z.idle_peak_period_s * 1e6
        first = t0_us - rng.uniform(0, period_us)
        starts = np.arange(first, t_us[-1] + dt_us if n else first, period_us)
        width_us = z.idle_peak_width_s * 1e6
        p0 = _index(starts, t0_us, dt_us, n)
        p1 = _index(starts + width_us, t0_us, dt_us, n)
        for s0, s1 in zip(p0, p1):
            current[s0:s1] += z.idle_peak_a
    if c.rise_time_us > 0 and n:
        a = 1.0 - np.exp(-dt_us / c.rise_time_us)
        current = lfilter([a], [1.0, a - 1.0], current, zi=lfilter_zi([a], [1.0, a - 1.0]) * current[0])[0]
    if z.white_noise_a:
        current += rng.normal(0.0, z.white_noise_a, n)
    if z.hum_a:
        current += z.hum_a * np.sin(2 * np.pi * z.hum_hz * t_us * 1e-6 + rng.uniform(0, 2 * np.pi))
    if z.spike_rate_hz and n:
        n_spikes = rng.poisson(z.spike_rate_hz * n * sample_interval_s)
        if n_spikes:
            where = rng.integers(0, n, n_spikes)
            height = z.spike_a * rng.exponential(1.0, n_spikes) * np.where(rng.random(n_spikes) < 0.8, 1.0, -1.0)
            current[where] += height
            current[np.minimum(where + 1, n - 1)] += 0.5 * height
    return current

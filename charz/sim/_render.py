"""From what the drive did to what a current probe shows.

The waveform is the sum of the activity's intervals (controller, channel
transfers, package programs with their ISPP ripple, reads), the idle current,
a post-I/O tail, periodic idle peaks when the drive is not in standby, then a
first-order low-pass (decoupling capacitors and probe bandwidth), then what
the bench adds: white noise, mains hum and rare spikes.  Quantisation belongs
to the digitiser (:mod:`charz.sim._digitizer`), as on a real scope.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from scipy.signal import lfilter, lfilter_zi

from charz.sim._model import DriveModel
from charz.sim._schedule import PROGRAM, Activity


def _index(t_us: np.ndarray, t_first_us: float, dt_us: float, n: int) -> np.ndarray:
    # Sample i is the instantaneous value at t_first + i·dt (sample mode).
    return np.clip(np.ceil((t_us - t_first_us) / dt_us - 1e-9), 0, n).astype(np.int64)


@functools.lru_cache(maxsize=64)
def _step_zi(a: float) -> np.ndarray:
    # The low-pass's steady state for a unit input: the same few values for every capture
    # of a drive (a depends on the rise time and the sample interval only); solving for it
    # each time was a fifth of a render.  Read-only, since it is shared.  scipy.signal is
    # imported here, not at the top: it takes 0.65 s, and most charz commands never render.

    zi = lfilter_zi([a], [1.0, a - 1.0])
    zi.flags.writeable = False
    return zi


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _add_ispp(current, t_us, i0, i1, a0, amps, pkg, programs, period, ripple):
    """Program current comes in ISPP pulses; each package has its own phase.

    Adds ± ``ripple`` × the program's current to its samples: + where
    ``(t - start - phase) % period < period / 2``.  Compiled: a render holds tens of programs
    of thousands of samples, and float ``%`` (fmod) costs ~80 ns a sample on x86.  The half
    is read off ``x / period`` instead, and the exact ``%`` decides the samples within 1e-9
    of a period's start or middle, so every sample gets the sign ``%`` gives it; the
    additions run program by program, in the order numpy slices did (same sums, same bits).
    """
    half = period / 2
    sign = np.empty(current.size)
    for j in programs:
        s0, s1 = i0[j], i1[j]
        if s1 <= s0:
            continue
        phase = (pkg[j] * 0.37 % 1.0) * period
        start = a0[j]
        unsure = 0
        for s in range(s0, s1):
            q = (t_us[s] - start - phase) / period
            f = q - math.floor(q)
            margin = 1e-9 + abs(q) * 1e-15  # far above the rounding of q
            if f < margin or f > 1.0 - margin or abs(f - 0.5) < margin:
                sign[s] = 0.0
                unsure += 1
            else:
                sign[s] = 1.0 if f < 0.5 else -1.0
        if unsure:
            # kept out of the loop above: with the fmod there, the compiler evaluates it for every sample
            for s in range(s0, s1):
                if sign[s] == 0.0:
                    sign[s] = 1.0 if (t_us[s] - start - phase) % period < half else -1.0
        r = amps[j] * ripple
        for s in range(s0, s1):
            current[s] += r * sign[s]


class NoiseField:
    """The bench's random nuisances as a fixed function of time.

    White noise and spikes are drawn per block of samples on the global grid
    ``k = round(t / dt)`` from a key, so asking twice for overlapping times (the mock
    scope searches for the trigger, then fetches the record) gives the same samples;
    the hum phase and the idle-peak phase are fixed per field.

    Example
    -------
    >>> from charz.sim import load_preset
    >>> f = NoiseField(load_preset("mxp"), (1, 2))
    >>> a = f.sample(0.0, 2e-6, 100); b = f.sample(20e-6, 2e-6, 10)
    >>> bool(np.array_equal(a[10:20], b))
    True
    """

    CHUNK = 4096

    def __init__(self, model: DriveModel, key: tuple[int, ...]):
        self.nuisances = model.nuisances
        self.key = tuple(int(k) for k in key)
        r = np.random.default_rng([*self.key, 0])
        self.hum_phase = r.uniform(0, 2 * np.pi)
        self.idle_peak_phase = r.random()

    @classmethod
    def from_rng(cls, model: DriveModel, rng: np.random.Generator) -> "NoiseField":
        return cls(model, (int(rng.integers(2**62)),))

    def _chunk(self, dt_ns: int, c: int) -> np.ndarray:
        z = self.nuisances
        r = np.random.default_rng([*self.key, 1, dt_ns, c & 0xFFFFFFFF, (c >> 32) & 0xFFFFFFFF])
        x = r.normal(0.0, z.white_noise_a, self.CHUNK) if z.white_noise_a else np.zeros(self.CHUNK)
        if z.spike_rate_hz:
            n_spikes = r.poisson(z.spike_rate_hz * self.CHUNK * dt_ns * 1e-9)
            if n_spikes:
                where = r.integers(0, self.CHUNK - 1, n_spikes)
                height = z.spike_a * r.exponential(1.0, n_spikes) * np.where(r.random(n_spikes) < 0.8, 1.0, -1.0)
                x[where] += height
                x[where + 1] += 0.5 * height
        return x

    def sample(self, t_first_s: float, dt_s: float, n: int) -> np.ndarray:
        """White noise and spikes for the samples ``t_first_s + i·dt_s``."""
        dt_ns = max(1, int(round(dt_s * 1e9)))
        k0 = int(np.floor(t_first_s / dt_s + 0.5))
        c0, c1 = k0 // self.CHUNK, (k0 + n - 1) // self.CHUNK
        x = np.concatenate([self._chunk(dt_ns, c) for c in range(c0, c1 + 1)]) if n else np.zeros(0)
        start = k0 - c0 * self.CHUNK
        return x[start : start + n]


def render_current(
    model: DriveModel,
    activity: Activity | None,
    t_first_s: float,
    sample_interval_s: float,
    n_samples: int,
    noise: NoiseField | None = None,
    *,
    standby: bool = True,
) -> np.ndarray:
    """Supply current in amperes at ``t_first_s + i·sample_interval_s`` (request at t = 0).

    ``activity`` None renders the idle drive; ``noise`` None renders without the bench's
    random nuisances (noise, hum, spikes, idle-peak phase 0).  Float64.
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
        _add_ispp(current, t_us, i0, i1, a0, amps, pkg, np.flatnonzero(kind == PROGRAM), c.ispp_period_us,
                  c.ispp_ripple)
    if not standby and z.idle_peak_a and z.idle_peak_period_s:
        # Housekeeping bursts of an idle drive (003 Fig. 6a: X-25M, 240 mA every 50 ms).
        period_us = z.idle_peak_period_s * 1e6
        # Peaks recur at fixed absolute times; the first one may have started before the window.
        ph = (noise.idle_peak_phase if noise is not None else 0.0) * period_us
        first = ph + np.floor((t0_us - ph) / period_us) * period_us
        starts = np.arange(first, t_us[-1] + dt_us if n else first, period_us)
        width_us = z.idle_peak_width_s * 1e6
        p0 = _index(starts, t0_us, dt_us, n)
        p1 = _index(starts + width_us, t0_us, dt_us, n)
        for s0, s1 in zip(p0, p1):
            current[s0:s1] += z.idle_peak_a
    if c.rise_time_us > 0 and n:
        a = 1.0 - np.exp(-dt_us / c.rise_time_us)

        current = lfilter([a], [1.0, a - 1.0], current, zi=_step_zi(a) * current[0])[0]
    if noise is not None:
        current += noise.sample(t_first_s, sample_interval_s, n)
        if z.hum_a:
            current += z.hum_a * np.sin(2 * np.pi * z.hum_hz * t_us * 1e-6 + noise.hum_phase)
    return current

"""A small deterministic current source for the mock scope when no simulated SSD is given.

After each host I/O it draws one pulse per ``bytes_per_pulse`` of the request on top of
an idle current, like a drive programming one page per pulse; before the I/O and after
the last pulse it idles.  Noise-free, so tests can compare samples exactly.

Example
-------
>>> src = PulseTrainSource()
>>> src.on_host_io("write", 16384, 0)
>>> src.current_a(0.0, 50e-6, 8).round(3).tolist()
[0.1, 0.6, 0.6, 0.1, 0.6, 0.6, 0.1, 0.1]
"""

from __future__ import annotations

import numpy as np

__all__ = ["PulseTrainSource"]


class PulseTrainSource:
    """Implements :class:`charz.sim._source.CurrentSource` with a pulse train per I/O."""

    def __init__(self, *, idle_a: float = 0.1, peak_a: float = 0.6, start_s: float = 50e-6,
                 pulse_s: float = 100e-6, period_s: float = 150e-6, bytes_per_pulse: int = 8192):
        self.idle_a = idle_a
        self.peak_a = peak_a
        self.start_s = start_s
        self.pulse_s = pulse_s
        self.period_s = period_s
        self.bytes_per_pulse = bytes_per_pulse
        self.n_pulses = 0
        self.ios: list[tuple[str, int, int]] = []

    def on_host_io(self, op: str, size_bytes: int, offset_bytes: int) -> None:
        self.ios.append((op, size_bytes, offset_bytes))
        self.n_pulses = max(1, -(-size_bytes // self.bytes_per_pulse))

    def current_a(self, t_first_s: float, sample_interval_s: float, n_samples: int) -> np.ndarray:
        t = t_first_s + sample_interval_s * np.arange(n_samples, dtype=np.float64)
        since = t - self.start_s
        index = np.floor(since / self.period_s)
        inside = (since >= 0) & (index < self.n_pulses) & (since - index * self.period_s < self.pulse_s)
        return np.where(inside, self.peak_a, self.idle_a)


class SawtoothSource:
    """Idle, then ``n_ramps`` linear ramps from ``idle_a`` to ``peak_a`` after each I/O.

    The ramps sweep every ADC code between the two levels, so a record carries 0x0A
    bytes (code 10) inside its block, which a reader that stops at LF would truncate.

    Example
    -------
    >>> src = SawtoothSource(idle_a=0.0, peak_a=1.0, start_s=0.0, ramp_s=4e-6, n_ramps=1)
    >>> src.on_host_io("write", 4096, 0)
    >>> src.current_a(-1e-6, 1e-6, 7).round(9).tolist()
    [0.0, 0.0, 0.25, 0.5, 0.75, 0.0, 0.0]
    """

    def __init__(self, *, idle_a: float = 0.1, peak_a: float = 0.6, start_s: float = 20e-6,
                 ramp_s: float = 400e-6, n_ramps: int = 5):
        self.idle_a = idle_a
        self.peak_a = peak_a
        self.start_s = start_s
        self.ramp_s = ramp_s
        self.n_ramps = n_ramps
        self.ios: list[tuple[str, int, int]] = []

    def on_host_io(self, op: str, size_bytes: int, offset_bytes: int) -> None:
        self.ios.append((op, size_bytes, offset_bytes))

    def current_a(self, t_first_s: float, sample_interval_s: float, n_samples: int) -> np.ndarray:
        t = t_first_s + sample_interval_s * np.arange(n_samples, dtype=np.float64)
        # Rounded so that two callers computing the same instant a few ulps apart (the
        # mock from its frame, a test from the parsed preamble) land on the same ramp.
        phase = np.round((t - self.start_s) / self.ramp_s, 9)
        active = (phase >= 0) & (phase < self.n_ramps) & bool(self.ios)
        ramp = np.where(active, phase - np.floor(phase), 0.0)
        return self.idle_a + (self.peak_a - self.idle_a) * ramp

"""The simulated SSD as a whole, and the bench that samples its current."""

from __future__ import annotations

import numpy as np

from charz.sim._model import DriveModel
from charz.sim._render import NoiseField, render_current
from charz.sim._schedule import Activity, DriveState, schedule_read, schedule_write


class SimulatedSSD:
    """A seeded, deterministic drive: same model, seed and calls → same waveforms.

    Example
    -------
    >>> from charz.sim import load_preset
    >>> ssd = SimulatedSSD(load_preset("mxp"), seed=1)
    >>> act = ssd.request("write", 32768, 0, np.random.default_rng(0))
    >>> act.visits
    4
    """

    def __init__(self, model: DriveModel, *, seed: int = 0, standby: bool = True, write_cache: bool = False):
        self.model = model
        self.seed = seed
        self.standby = standby
        self.write_cache = write_cache
        self.state = DriveState(model, seed)

    def request(self, op: str, size_bytes: int, offset_bytes: int, rng: np.random.Generator) -> Activity:
        if size_bytes <= 0 or offset_bytes < 0:
            raise ValueError("size_bytes must be > 0 and offset_bytes >= 0")
        if op == "write":
            return schedule_write(self.model, self.state, size_bytes, offset_bytes, rng, write_cache=self.write_cache)
        if op == "read":
            return schedule_read(self.model, size_bytes, offset_bytes)
        raise ValueError(f"op must be 'write' or 'read', not {op!r}")

    def render(
        self, activity: Activity | None, t_first_s: float, sample_interval_s: float, n_samples: int, rng: np.random.Generator
    ) -> np.ndarray:
        """One capture's current; its noise is drawn from ``rng``."""
        noise = NoiseField.from_rng(self.model, rng)
        return render_current(self.model, activity, t_first_s, sample_interval_s, n_samples, noise, standby=self.standby)


class SimulatedBench:
    """A :class:`~charz.sim._source.CurrentSource` backed by a simulated SSD.

    The mock oscilloscope holds one; the host's I/O reaches it through the mock's
    control channel.  Deterministic for a given seed and call sequence.
    """

    def __init__(self, model: DriveModel, *, seed: int = 0, standby: bool = True, write_cache: bool = False):
        self.ssd = SimulatedSSD(model, seed=seed, standby=standby, write_cache=write_cache)
        self.seed = seed
        self.io_count = 0
        self._activity: Activity | None = None
        self._noise = NoiseField(model, (seed, 0))

    @property
    def model(self) -> DriveModel:
        return self.ssd.model

    def on_host_io(self, op: str, size_bytes: int, offset_bytes: int) -> None:
        # Each I/O draws from its own keys, so asking for the current twice (trigger search,
        # then the record) sees the same waveform, and a resumed session can replay.
        self.io_count += 1
        rng = np.random.default_rng([self.seed, self.io_count, 0xB0])
        self._activity = self.ssd.request(op, size_bytes, offset_bytes, rng)
        self._noise = NoiseField(self.model, (self.seed, self.io_count))

    def replay(self, requests) -> None:
        """Advance the drive through earlier ``(op, size_bytes, offset_bytes)`` requests without rendering."""
        for op, size_bytes, offset_bytes in requests:
            self.on_host_io(op, size_bytes, offset_bytes)
        self._activity = None

    def current_a(self, t_first_s: float, sample_interval_s: float, n_samples: int) -> np.ndarray:
        return render_current(self.model, self._activity, t_first_s, sample_interval_s, n_samples, self._noise,
                              standby=self.ssd.standby)

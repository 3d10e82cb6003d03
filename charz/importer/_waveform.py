"""One record as read from a scope file, before it becomes an archive channel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Waveform:
    """Samples of one record.

    Either ``codes`` (raw int8/int16 ADC codes, with ``y_mult``/``y_offset_codes``/``y_zero``
    and the ADC limits: formats that keep them, ISF) or ``values`` (float SI samples: CSV, BIN).
    Sample ``i`` is at ``t_first_s + i * sample_interval_s`` from the scope's trigger.
    """

    sample_interval_s: float
    t_first_s: float
    unit: str                       # "A", "V" or what the file says
    source: str                     # "CH1" ...
    values: np.ndarray | None = None
    codes: np.ndarray | None = None
    y_mult: float = 1.0
    y_offset_codes: float = 0.0
    y_zero: float = 0.0
    code_min: int | None = None
    code_max: int | None = None

    @property
    def n_samples(self) -> int:
        return int((self.codes if self.codes is not None else self.values).size)

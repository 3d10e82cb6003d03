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

    ``mode`` is what the file says the samples are: ``"sample"`` (one sample per point, the
    only kind charz analyses), ``"envelope"`` (peak detect: min/max pairs) or ``"digital"``
    (a logic buffer).  ``math`` is True for a computed trace (a Math or Reference source).
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
    mode: str = "sample"
    math: bool = False
    model: str = ""                 # the scope that saved it, when the file says

    @property
    def n_samples(self) -> int:
        return int((self.codes if self.codes is not None else self.values).size)


_UNITS = {"v": "V", "volt": "V", "volts": "V", "a": "A", "amp": "A", "amps": "A", "ampere": "A",
          "amperes": "A", "s": "s", "second": "s", "seconds": "s"}


def unit_symbol(text: str) -> str:
    """A file's unit spelling (``"Volts"``, ``"Ampere"``, ``"V"``) as its SI symbol; other text as given."""
    t = (text or "").strip().strip('"')
    return _UNITS.get(t.lower(), t)


def is_math_source(source: str) -> bool:
    """A computed trace's name as scopes print it (``MATH``, ``Math1``, ``REF2``, ``FUNC1``)."""
    s = source.strip().upper()
    return s.startswith(("MATH", "REF", "FUNC"))

"""One record as read from a scope file: the shared waveform value plus what the file says of it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.importer._quantize import to_codes
from charz.waveform import Waveform


@dataclass(frozen=True, eq=False)
class Saved(Waveform):
    """A :class:`~charz.waveform.Waveform` read from a file (sample ``i`` at ``t_first_s + i *
    sample_interval_s`` from the scope's trigger), with what the file says beside it.

    Formats that keep the ADC's codes (ISF) give them as they are, with the ADC's limits;
    formats of float samples (CSV, BIN, WFM through tm_data_types) are put back on their
    codes by :func:`saved_from_values` (``on_grid`` False when they lie on no grid and were
    quantized to 16 bits), without limits (``code_min``/``code_max`` None: not known).

    ``mode`` is what the file says the samples are: ``"sample"`` (one sample per point, the
    only kind charz analyses), ``"envelope"`` (peak detect: min/max pairs) or ``"digital"``
    (a logic buffer).  ``math`` is True for a computed trace (a Math or Reference source).
    """

    mode: str = "sample"
    math: bool = False
    model: str = ""                 # the scope that saved it, when the file says
    on_grid: bool = True


def saved_from_values(values: np.ndarray, sample_interval_s: float, t_first_s: float, *, unit: str,
                      source: str, **said: object) -> Saved:
    """A file's float samples as codes and scaling (exactly, when they lie on a grid).

    >>> s = saved_from_values(np.array([0.0, 0.04, 0.08]), 1e-8, 0.0, unit="V", source="CH1")
    >>> s.values().round(12).tolist(), s.on_grid, s.code_min
    ([0.0, 0.04, 0.08], True, None)
    """
    q = to_codes(values)
    return Saved(q.codes, q.y_mult, q.y_offset_codes, q.y_zero, sample_interval_s, t_first_s, unit=unit,
                 source=source, on_grid=q.exact, **said)


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

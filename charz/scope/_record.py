"""One fetched waveform: raw ADC codes plus the scaling that turns them into amperes.

The record is lossless (codes as the scope sent them) and self-describing (scaling,
units, time base, the instrument's own description and preamble text), so an archive
can store it verbatim and analysis can rescale it later.

Example
-------
>>> import numpy as np
>>> r = Record.from_codes(np.array([-128, 0, 25, 127], dtype=np.int8), y_mult=0.004,
...     y_offset_codes=0.0, y_zero=0.0, y_unit="A", x_incr_s=2e-6, x_zero_s=-4e-6,
...     source="CH1", code_min=-128, code_max=127, description="Ch1, DC coupling")
>>> r.values().tolist()
[-0.512, 0.0, 0.1, 0.508]
>>> r.clipped, r.clipped_fraction
(True, 0.5)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Record"]


@dataclass(frozen=True, eq=False)
class Record:
    """A waveform record: ``value = (code - y_offset_codes) * y_mult + y_zero``.

    Attributes
    ----------
    codes : numpy.ndarray
        Raw codes, int8 or int16, read-only, in transfer order.
    y_mult, y_offset_codes, y_zero : float
        Vertical scaling (Tek YMULT, YOFF, YZERO; Keysight yincrement, yreference, yorigin).
    y_unit : str
        ``"A"`` for a current probe, ``"V"`` otherwise.
    x_incr_s, x_zero_s : float
        Sample interval and time of the first point relative to the trigger.
    source : str
        ``"CH1"`` ...
    code_min, code_max : int
        The ADC limits in this transfer width; codes there are clipped (over range).
    description : str
        The instrument's own description (Tek WFID, Keysight: built by the driver).
    clipped_fraction : float
        Share of points at ``code_min`` or ``code_max``.
    preamble : str
        The preamble reply exactly as received, for the archive.
    """

    codes: np.ndarray
    y_mult: float
    y_offset_codes: float
    y_zero: float
    y_unit: str
    x_incr_s: float
    x_zero_s: float
    source: str
    code_min: int
    code_max: int
    description: str
    clipped_fraction: float
    preamble: str = ""

    @classmethod
    def from_codes(cls, codes: np.ndarray, *, copy: bool = True, **fields: object) -> Record:
        """Build a record, freezing ``codes`` and computing ``clipped_fraction``.

        ``copy=False`` takes ``codes`` as they are (a fresh array nobody else holds,
        as a transfer's is) instead of copying them first.
        """
        frozen = np.array(codes, copy=True) if copy else np.asarray(codes)
        frozen.setflags(write=False)
        lo, hi = int(fields["code_min"]), int(fields["code_max"])  # type: ignore[call-overload]
        n_clipped = 0
        # min and max are one fast pass each; most records never reach the limits.
        if frozen.size and (frozen.min() <= lo or frozen.max() >= hi):
            n_clipped = int(np.count_nonzero((frozen <= lo) | (frozen >= hi)))
        fraction = n_clipped / frozen.size if frozen.size else 0.0
        return cls(codes=frozen, clipped_fraction=fraction, **fields)  # type: ignore[arg-type]

    @property
    def clipped(self) -> bool:
        """True when any point sits at the ADC limits."""
        return self.clipped_fraction > 0.0

    @property
    def n_points(self) -> int:
        return int(self.codes.size)

    def values(self) -> np.ndarray:
        """Scaled values (float64, in ``y_unit``)."""
        return (self.codes.astype(np.float64) - self.y_offset_codes) * self.y_mult + self.y_zero

    def times_s(self) -> np.ndarray:
        """Sample times relative to the trigger (float64, seconds)."""
        return self.x_zero_s + np.arange(self.codes.size, dtype=np.float64) * self.x_incr_s

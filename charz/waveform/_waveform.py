"""One digitised record: raw ADC codes and what they mean.

Every layer hands this value on instead of copying its fields: the scope driver
returns it, the archive stores it bit for bit (a channel of a capture), the
importer reads it from a scope's file, the simulator's digitiser makes it, and the
analysis measures it.  Like tm_data_types' ``AnalogWaveform`` the codes stay as the
ADC gave them and the scaling rides beside them; SI values and the time axis are
views computed on demand, so nothing is rounded or converted on the way.

``value = (code - y_offset_codes) * y_mult + y_zero`` (in ``unit``), computed in
float64 in that order (the archive's documented formula), and sample ``i`` is at
``t_first_s + i * sample_interval_s`` seconds from the reference (the trigger, or
the host's request).  ``code_min``/``code_max`` are the ADC's limits in this
transfer width: a code there may be clipped (the true value lies beyond it); None
when the source does not say.

Example
-------
>>> import numpy as np
>>> w = Waveform(np.array([-128, 0, 25, 127], dtype=np.int8), 0.004, 0.0, 0.0, 2e-6, -4e-6,
...              unit="A", code_min=-128, code_max=127, source="CH1")
>>> w.values().tolist()
[-0.512, 0.0, 0.1, 0.508]
>>> (w.times_s() * 1e6).round(3).tolist()
[-4.0, -2.0, 0.0, 2.0]
>>> w.clipped, w.clipped_fraction
(True, 0.5)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import KW_ONLY, dataclass
from functools import cached_property

import numpy as np

__all__ = ["Waveform"]


def _real(value: object, name: str) -> float:
    # bool is a number to Python but never a scale factor; a string would be parsed silently.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"waveform {name} must be a real number, got {value!r:.80}")
    return float(value)


def _limit(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"waveform {name} must be an integer or None, got {value!r:.80}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Waveform:
    """A waveform record: integer codes, their scaling, time axis, ADC limits and unit.

    Attributes
    ----------
    codes : numpy.ndarray
        1-D integer codes (int8 or int16 from a scope), in transfer order; held read-only
        (a read-only view: the caller's array is not copied and keeps its own flags).
    y_mult, y_offset_codes, y_zero : float
        Vertical scaling (Tek YMULT, YOFF, YZERO; Keysight yincrement, yreference, yorigin).
    sample_interval_s, t_first_s : float
        Time between two samples, and the time of sample 0 from the reference.
    unit : str
        The unit of the values: ``"A"`` for a current probe, ``"V"`` otherwise (or what a
        file says).
    code_min, code_max : int or None
        The ADC's limits; None when not known (then nothing is known to be clipped).
    source : str
        Where the instrument took it from (``"CH1"``, ``"MATH1"``, ``"SIM"``); may be empty.
    """

    codes: np.ndarray
    y_mult: float
    y_offset_codes: float
    y_zero: float
    sample_interval_s: float
    t_first_s: float
    _: KW_ONLY
    unit: str
    code_min: int | None = None
    code_max: int | None = None
    source: str = ""

    def __post_init__(self) -> None:
        codes = self.codes
        if not isinstance(codes, np.ndarray):
            codes = np.asarray(codes)
        if codes.ndim != 1 or codes.dtype.kind not in "iu":
            raise TypeError(f"waveform codes must be a 1-D integer array, got {codes.dtype}{list(codes.shape)}")
        if codes.flags.writeable:
            codes = codes.view()  # O(1); the caller's own array stays writeable
            codes.setflags(write=False)
        set_ = object.__setattr__
        set_(self, "codes", codes)
        for name in ("y_mult", "y_offset_codes", "y_zero", "sample_interval_s", "t_first_s"):
            set_(self, name, _real(getattr(self, name), name))
        for name in ("code_min", "code_max"):
            set_(self, name, _limit(getattr(self, name), name))
        for name in ("unit", "source"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"waveform {name} must be a string, got {getattr(self, name)!r:.80}")

    __hash__ = None  # type: ignore[assignment]  # holds an array

    def __eq__(self, other: object) -> bool:
        """Equal scaling, time axis, limits, unit, source, dtype and codes."""
        if not isinstance(other, Waveform):
            return NotImplemented
        head = ("y_mult", "y_offset_codes", "y_zero", "sample_interval_s", "t_first_s", "unit",
                "code_min", "code_max", "source")
        return (all(getattr(self, k) == getattr(other, k) for k in head)
                and self.codes.dtype.name == other.codes.dtype.name
                and np.array_equal(self.codes, other.codes))

    @property
    def n_samples(self) -> int:
        return int(self.codes.shape[0])

    @property
    def duration_s(self) -> float:
        """What the record spans: ``n_samples * sample_interval_s``."""
        return self.n_samples * self.sample_interval_s

    def values(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The samples ``[start:stop]`` in ``unit`` (float64), in the documented order of
        operations (a slice converts only its own samples, to the same values)."""
        return (self.codes[start:stop].astype(np.float64) - self.y_offset_codes) * self.y_mult + self.y_zero

    def times_s(self) -> np.ndarray:
        """Sample times in seconds from the reference (float64)."""
        return self.t_first_s + np.arange(self.n_samples, dtype=np.float64) * self.sample_interval_s

    @cached_property
    def clipped_fraction(self) -> float:
        """Share of samples at ``code_min`` or ``code_max`` (0 when the limits are not known)."""
        codes, lo, hi = self.codes, self.code_min, self.code_max
        if not codes.size or (lo is None and hi is None):
            return 0.0
        lo = -math.inf if lo is None else lo
        hi = math.inf if hi is None else hi
        # min and max are one fast pass each; most records never reach the limits.
        if codes.min() > lo and codes.max() < hi:
            return 0.0
        return int(np.count_nonzero((codes <= lo) | (codes >= hi))) / codes.size

    @property
    def clipped(self) -> bool:
        """True when any sample sits at an ADC limit (so the true value may lie beyond it)."""
        return self.clipped_fraction > 0.0

"""Float samples (a CSV's or BIN's) back to the integer codes the archive stores.

A scope's samples are ADC codes times a step, so the values of a saved record lie on a
grid; finding it gives the codes back exactly (a Tek CSV of an 8-bit record → the same
8-bit codes, up to an offset).  Values that lie on no grid (averaged or computed records)
are quantized to int16 over their range — a loss well below the scope's own resolution —
and the caller is told so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Of one step: what 8 printed digits, float32, or a reader that re-quantizes to 16 bits over
# the range (tm_data_types does, ≤ 0.5/65535 of the range) leave; a record on no grid is off by up to 0.5.
_TOLERANCE = 0.02
# Codes start one above the int16 minimum and stay below its maximum: the file does not say
# where the ADC clipped, so no sample may look clipped.
_BASE, _LEVELS = -32767, 65533
_TWIN = 1e-7     # of the span: 1/150 of a 16-bit step


@dataclass(frozen=True)
class Quantized:
    codes: np.ndarray
    y_mult: float
    y_offset_codes: float
    y_zero: float
    exact: bool


def to_codes(values: np.ndarray) -> Quantized:
    """Codes, scaling and whether ``(codes - y_offset_codes) * y_mult + y_zero`` gives ``values`` back."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError("the record is empty or has non-finite samples")
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        return Quantized(np.zeros(v.size, np.int16), 1.0, 0.0, lo, True)
    gaps = np.diff(np.unique(v))
    # Printed values carry rounding twins (0.0123 and 0.012300000001): a gap far below a
    # 16-bit step of the span is the printer's, not the ADC's, and is no candidate step.
    gaps = gaps[gaps > _TWIN * (hi - lo)]
    smallest = float(np.min(gaps))
    # The smallest difference is a whole number of steps (several when few levels occur).
    for divisor in range(1, 9):
        step = _refine(v, lo, hi, smallest / divisor)
        if step is not None:
            return Quantized((np.rint((v - lo) / step) + _BASE).astype(np.int16), step, float(_BASE), lo, True)
    step = (hi - lo) / _LEVELS
    k = np.rint((v - lo) / step)
    return Quantized((k + _BASE).astype(np.int16), step, float(_BASE), lo, False)


def _refine(v: np.ndarray, lo: float, hi: float, step: float) -> float | None:
    """The step that fits ``v`` on a grid starting at ``lo``, near ``step``; None if none does."""
    for _ in range(3):   # the whole span divided by its levels is better than one difference
        k = np.rint((v - lo) / step)
        if k.max() > _LEVELS:
            return None
        step = (hi - lo) / float(k.max())
    k = np.rint((v - lo) / step)
    if k.max() > _LEVELS or np.max(np.abs((v - lo) / step - k)) >= _TOLERANCE:
        return None
    return step

"""The simulated scope front end: amperes → ADC codes, as a Tektronix DPO3000 does it.

``value = (code - y_offset_codes) * y_mult + y_zero`` with ``y_mult = scale / 25``
for 8-bit data (25 codes per division) and ``y_offset_codes = position · 25``.
Values beyond the screen clip at the ADC limits, like a real scope.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Digitized:
    codes: np.ndarray  # int8 (8-bit) or int16 (16-bit transfer of an 8-bit ADC)
    y_mult: float
    y_offset_codes: float
    y_zero: float
    code_min: int
    code_max: int
    clipped_fraction: float


def digitize(amps: np.ndarray, scale_a_per_div: float, position_div: float, *, width_bytes: int = 1, offset_a: float = 0.0) -> Digitized:
    """Quantise like an 8-bit scope ADC; ``width_bytes=2`` transfers it as Tek does (value × 256).

    Example
    -------
    >>> d = digitize(np.array([0.0, 0.1]), 0.1, -4.0)
    >>> d.codes.tolist(), d.y_mult
    ([-100, -75], 0.004)
    """
    if scale_a_per_div <= 0:
        raise ValueError("scale_a_per_div must be positive")
    y_mult8 = scale_a_per_div / 25.0
    codes = np.rint((amps - offset_a) / y_mult8 + position_div * 25.0)
    clipped = np.count_nonzero((codes < -128) | (codes > 127)) / max(1, codes.size)
    codes = np.clip(codes, -128, 127)
    if width_bytes == 1:
        return Digitized(codes.astype(np.int8), y_mult8, position_div * 25.0, offset_a, -128, 127, clipped)
    if width_bytes == 2:
        return Digitized(
            (codes * 256).astype(np.int16), y_mult8 / 256, position_div * 25.0 * 256, offset_a, -32768, 32512, clipped
        )
    raise ValueError("width_bytes must be 1 or 2")

"""The simulated scope front end: amperes → ADC codes, as a Tektronix DPO3000 does it.

``value = (code - y_offset_codes) * y_mult + y_zero`` with ``y_mult = scale / 25``
for 8-bit data (25 codes per division) and ``y_offset_codes = position · 25``.
Values beyond the screen clip at the ADC limits, like a real scope.
"""

from __future__ import annotations

import numpy as np

from charz.waveform import Waveform


def digitize(amps: np.ndarray, scale_a_per_div: float, position_div: float, *, sample_interval_s: float,
             t_first_s: float, width_bytes: int = 1, offset_a: float = 0.0,
             source: str = "SIM") -> tuple[Waveform, float]:
    """Quantise like an 8-bit scope ADC; ``width_bytes=2`` transfers it as Tek does (value × 256).

    Returns the :class:`~charz.waveform.Waveform` (sample ``i`` of ``amps`` at
    ``t_first_s + i * sample_interval_s``) and the share of samples that lay beyond the
    ADC's range before they were clipped.

    Example
    -------
    >>> w, clipped = digitize(np.array([0.0, 0.1]), 0.1, -4.0, sample_interval_s=2e-6, t_first_s=0.0)
    >>> w.codes.tolist(), w.y_mult, clipped
    ([-100, -75], 0.004, 0.0)
    """
    if scale_a_per_div <= 0:
        raise ValueError("scale_a_per_div must be positive")
    y_mult8 = scale_a_per_div / 25.0
    codes = np.rint((amps - offset_a) / y_mult8 + position_div * 25.0)
    clipped = np.count_nonzero((codes < -128) | (codes > 127)) / max(1, codes.size)
    codes = np.clip(codes, -128, 127)
    axis = dict(sample_interval_s=sample_interval_s, t_first_s=t_first_s, unit="A", source=source)
    if width_bytes == 1:
        return Waveform(codes.astype(np.int8), y_mult8, position_div * 25.0, offset_a,
                        code_min=-128, code_max=127, **axis), clipped
    if width_bytes == 2:
        return Waveform((codes * 256).astype(np.int16), y_mult8 / 256, position_div * 25.0 * 256, offset_a,
                        code_min=-32768, code_max=32512, **axis), clipped
    raise ValueError("width_bytes must be 1 or 2")

"""What the mock scope's front end does to a current: trigger search and digitising.

Pure functions over arrays.  The numbers follow the Tektronix manuals: 25 digitizing
levels per division for 8-bit data, zero code at screen centre, the upper limit of the
code range slightly above the screen; higher-resolution ADC codes are left-aligned in
16-bit transfers (the 8-bit value in the high byte).

Example
-------
>>> import numpy as np
>>> adc = digitise(np.array([0.0, 0.1, 10.0]), scale=0.1, position_div=0.0, offset=0.0,
...                codes_per_div=25.0, adc_bits=8)
>>> adc.tolist(), transfer_codes(adc, 8, 2).tolist()
([0, 25, 127], [0, 6400, 32512])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["find_crossing", "digitise", "transfer_codes", "adc_codes_per_div"]


def adc_codes_per_div(codes_per_div_8bit: float, adc_bits: int) -> float:
    """Codes per division at the ADC's own resolution (25 for 8 bits, 400 for 12)."""
    return codes_per_div_8bit * (1 << max(adc_bits - 8, 0))


def find_crossing(samples: Callable[[int, int], np.ndarray], level: float, slope: str,
                  horizon: int, chunk: int = 1 << 16) -> int | None:
    """Index of the first sample at or past ``level`` with the given slope, or None.

    ``samples(first, n)`` returns samples ``first ... first + n - 1``; the search looks
    at indices ``1 ... horizon`` (index 0 is the sample at the host I/O itself) and
    compares each sample with the one before, as an edge trigger does.

    Example
    -------
    >>> ramp = lambda first, n: np.arange(first, first + n, dtype=float)
    >>> find_crossing(ramp, 10.0, "RISE", 100), find_crossing(ramp, 10.0, "FALL", 100)
    (10, None)
    """
    prev: float | None = None
    first = 0
    while first <= horizon:
        n = min(chunk, horizon + 1 - first)
        block = np.asarray(samples(first, n), dtype=np.float64)
        both = block if prev is None else np.concatenate(([prev], block))
        before, after = both[:-1], both[1:]
        if slope == "RISE":
            hits = (before < level) & (after >= level)
        elif slope == "FALL":
            hits = (before > level) & (after <= level)
        else:
            hits = ((before < level) & (after >= level)) | ((before > level) & (after <= level))
        idx = np.flatnonzero(hits)
        if idx.size:
            return int(idx[0]) + first + (0 if prev is not None else 1)
        prev = float(block[-1])
        first += n
    return None


def digitise(values: np.ndarray, *, scale: float, position_div: float, offset: float,
             codes_per_div: float, adc_bits: int) -> np.ndarray:
    """ADC codes (int16) of ``values`` shown at ``scale`` per division, clipped like an ADC.

    On screen a value sits at ``(value - offset) / scale + position`` divisions; the
    code is that times the codes per division at the ADC's resolution.
    """
    cpd = adc_codes_per_div(codes_per_div, adc_bits)
    divisions = (np.asarray(values, dtype=np.float64) - offset) / scale + position_div
    lo, hi = -(1 << (adc_bits - 1)), (1 << (adc_bits - 1)) - 1
    return np.clip(np.rint(divisions * cpd), lo, hi).astype(np.int16)


def transfer_codes(adc: np.ndarray, adc_bits: int, width_bytes: int) -> np.ndarray:
    """ADC codes as a ``width_bytes`` transfer carries them (left-aligned, or truncated).

    Example
    -------
    >>> transfer_codes(np.array([2047, -2048], dtype=np.int16), 12, 1).tolist()
    [127, -128]
    """
    bits = 8 * width_bytes
    wide = adc.astype(np.int32)
    out = wide << (bits - adc_bits) if bits >= adc_bits else wide >> (adc_bits - bits)
    return out.astype(np.int8 if width_bytes == 1 else np.int16)

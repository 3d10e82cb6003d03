"""One fetched waveform: the shared :class:`~charz.waveform.Waveform` plus the scope's own words.

A record *is* a waveform (codes as the scope sent them, scaling, time axis, ADC limits,
unit), so it goes anywhere one is taken; it adds only what the instrument said about it,
which the archive keeps verbatim beside the capture.

Example
-------
>>> import numpy as np
>>> r = Record(np.array([-128, 0, 25, 127], dtype=np.int8), 0.004, 0.0, 0.0, 2e-6, -4e-6,
...     unit="A", source="CH1", code_min=-128, code_max=127, description="Ch1, DC coupling")
>>> r.values().tolist()
[-0.512, 0.0, 0.1, 0.508]
>>> r.clipped, r.clipped_fraction
(True, 0.5)
"""

from __future__ import annotations

from dataclasses import dataclass

from charz.waveform import Waveform

__all__ = ["Record"]


@dataclass(frozen=True, eq=False)
class Record(Waveform):
    """A :class:`~charz.waveform.Waveform` as fetched, with the instrument's text.

    Attributes (beside the waveform's)
    ----------------------------------
    description : str
        The instrument's own description (Tek WFID, Keysight: built by the driver).
    preamble : str
        The preamble reply exactly as received, for the archive.
    """

    description: str = ""
    preamble: str = ""

"""The waveform value every layer shares: integer codes, scaling, time axis, ADC limits, unit.

The bottom layer of charz (it imports nothing of charz): the scope driver returns a
:class:`Waveform`, the archive stores one per channel, the importer reads one from a
scope's file, the simulator's digitiser makes one and the analysis measures it.

Public catalogue
----------------
:class:`Waveform`   codes + ``value = (code - y_offset_codes) * y_mult + y_zero`` + time axis
"""

from charz.waveform._waveform import Waveform

__all__ = ["Waveform"]

"""What charz asks a scope for: one frozen dataclass, checked when built.

Only checks that hold for every scope live here (types, signs, ranges); the limits of
a particular model (record lengths, timebase steps) are checked by the driver against
``instruments/<model>.toml``.

Example
-------
>>> s = ScopeSettings(vertical_scale=0.05, record_length=100_000, sample_interval_s=2e-6)
>>> s.channel, s.trigger_channel, round(s.window_s, 9)
('CH1', 'CH1', 0.2)
>>> ScopeSettings(probe_units="W")
Traceback (most recent call last):
...
charz.errors.UsageError: probe_units must be 'A' or 'V', not 'W'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from charz.errors import UsageError

__all__ = ["ScopeSettings", "parse_channel"]


def parse_channel(text: str) -> str:
    """Normalise ``ch1`` / ``CH1`` / ``1`` / ``CHAN1`` / ``CHANNEL1`` to ``CH1``.

    Example
    -------
    >>> parse_channel("chan2")
    'CH2'
    """
    m = re.fullmatch(r"\s*(?:CH|CHAN|CHANNEL)?\s*([1-8])\s*", str(text), re.I)
    if m is None:
        raise UsageError(f"channel must look like CH1 ... CH8, not {text!r}",
                         hint="give the analog channel the current probe is on, e.g. --channel CH1")
    return f"CH{m.group(1)}"


def _arg_positive(name: str, value: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be a positive number, not {value!r}")
    return float(value)


def _arg_finite(name: str, value: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def _arg_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise UsageError(f"{name} must be {' or '.join(repr(c) for c in choices)}, not {value!r}")
    return value


@dataclass(frozen=True)
class ScopeSettings:
    """Channel, timebase and trigger for one single-sequence capture.

    Attributes
    ----------
    channel : str
        Analog input with the current probe, ``"CH1"``.
    vertical_scale : float
        Units per division (A/div with a current probe).
    probe_units : str
        ``"A"`` (current probe, or a shunt with the probe gain set in V/A) or ``"V"``.
    coupling : str
        ``"DC"`` or ``"AC"``; supply current needs DC.
    vertical_position_div : float
        Trace position in divisions (moves the baseline down to leave room for peaks).
    vertical_offset : float
        Offset in units, subtracted before the position.
    record_length : int
        Points per record.
    sample_interval_s : float
        Time between points; the method needs <= 2e-6.
    pretrigger_fraction : float
        Share of the record before the trigger (0 ... 1).
    trigger_source : str or None
        Trigger channel; None means ``channel``.
    trigger_level : float
        In the trigger channel's units.
    trigger_slope : str
        ``"rise"`` or ``"fall"``.
    trigger_mode : str
        ``"normal"`` (wait for the edge) or ``"auto"`` (free-run after a while).
    width_bytes : int
        Transfer width, 1 or 2 bytes per point.
    """

    channel: str = "CH1"
    vertical_scale: float = 0.1
    probe_units: str = "A"
    coupling: str = "DC"
    vertical_position_div: float = 0.0
    vertical_offset: float = 0.0
    record_length: int = 10_000
    sample_interval_s: float = 2e-6
    pretrigger_fraction: float = 0.1
    trigger_source: str | None = None
    trigger_level: float = 0.05
    trigger_slope: str = "rise"
    trigger_mode: str = "normal"
    width_bytes: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "channel", parse_channel(self.channel))
        if self.trigger_source is not None:
            object.__setattr__(self, "trigger_source", parse_channel(self.trigger_source))
        _arg_positive("vertical_scale", self.vertical_scale)
        _arg_choice("probe_units", self.probe_units, ("A", "V"))
        _arg_choice("coupling", self.coupling, ("DC", "AC"))
        _arg_finite("vertical_position_div", self.vertical_position_div)
        if abs(self.vertical_position_div) > 5:
            raise UsageError("vertical_position_div must be within +-5 divisions "
                             f"(the screen), not {self.vertical_position_div}")
        _arg_finite("vertical_offset", self.vertical_offset)
        if not isinstance(self.record_length, int) or self.record_length < 2:
            raise UsageError(f"record_length must be an integer >= 2, not {self.record_length!r}")
        _arg_positive("sample_interval_s", self.sample_interval_s)
        frac = _arg_finite("pretrigger_fraction", self.pretrigger_fraction)
        if not 0.0 <= frac <= 1.0:
            raise UsageError(f"pretrigger_fraction must be within 0 ... 1, not {frac}")
        _arg_finite("trigger_level", self.trigger_level)
        _arg_choice("trigger_slope", self.trigger_slope, ("rise", "fall"))
        _arg_choice("trigger_mode", self.trigger_mode, ("normal", "auto"))
        if self.width_bytes not in (1, 2):
            raise UsageError(f"width_bytes must be 1 or 2, not {self.width_bytes!r}")

    @property
    def trigger_channel(self) -> str:
        return self.trigger_source or self.channel

    @property
    def channel_number(self) -> int:
        return int(self.channel[2:])

    @property
    def window_s(self) -> float:
        """Duration of the record (record_length x sample_interval_s)."""
        return self.record_length * self.sample_interval_s

    @property
    def horizontal_scale_s(self) -> float:
        """Seconds per division for a ten-division screen holding the whole record."""
        return self.window_s / 10.0

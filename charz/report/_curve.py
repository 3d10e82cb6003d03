"""A smoothed current trace ready to draw: the one record the waveform figures take."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Curve"]


@dataclass(frozen=True)
class Curve:
    """One capture's current on its own time axis, SI units.

    ``t_s`` is relative to the capture's time reference (the request, i.e. the trigger).

    Examples
    --------
    >>> c = Curve("32 KiB", np.array([0.0, 2e-6]), np.array([0.1, 0.2]), size_bytes=32768)
    >>> c.label, c.t_s.size == c.current_a.size
    ('32 KiB', True)
    """

    label: str
    t_s: np.ndarray
    current_a: np.ndarray
    size_bytes: int = 0
    capture_index: int = -1

    def __post_init__(self) -> None:
        t = np.asarray(self.t_s, dtype=float)
        y = np.asarray(self.current_a, dtype=float)
        if t.shape != y.shape or t.ndim != 1:
            raise ValueError(f"curve {self.label!r}: t_s {t.shape} and current_a {y.shape} must be equal 1-D shapes")
        object.__setattr__(self, "t_s", t)
        object.__setattr__(self, "current_a", y)

    __hash__ = None  # type: ignore[assignment]  # holds arrays

"""The seam between the simulated SSD and anything that samples its current.

The mock oscilloscope (``charz.sim.scope_server``) only needs this protocol, so
it can be tested with a hand-made source and wired to the simulated SSD later.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class CurrentSource(Protocol):
    """Something whose supply current can be sampled around a host I/O.

    Example
    -------
    >>> src.on_host_io("write", 32768, 1 << 20)          # doctest: +SKIP
    >>> src.current_a(-0.002, 2e-6, 10_000).shape        # doctest: +SKIP
    (10000,)
    """

    def on_host_io(self, op: str, size_bytes: int, offset_bytes: int) -> None:
        """Tell the drive that the host has just issued a request (time zero)."""

    def current_a(self, t_first_s: float, sample_interval_s: float, n_samples: int) -> np.ndarray:
        """Supply current in amperes at ``t_first_s + i * sample_interval_s``.

        Times are relative to the most recent :meth:`on_host_io`; negative times
        are before the request (idle).  Float64, noise included.
        """

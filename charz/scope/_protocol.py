"""What charz needs from an oscilloscope: one small protocol.

Every driver (Tektronix DPO/MSO/MDO 2k/3k/4k, 4/5/6 Series MSO, Keysight
InfiniiVision) implements it; the session layer and the CLI use nothing else.

Example
-------
>>> from charz.scope import open_scope, ScopeSettings                  # doctest: +SKIP
>>> scope = open_scope("TCPIP::192.168.1.20::4000::SOCKET")           # doctest: +SKIP
>>> scope.configure(ScopeSettings(vertical_scale=0.05, trigger_level=0.3))  # doctest: +SKIP
>>> scope.arm(); issue_write(); scope.wait(timeout_s=2.0)             # doctest: +SKIP
0.0132
>>> scope.fetch().values().max()                                       # doctest: +SKIP
0.912
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from charz.scope._record import Record
from charz.scope._settings import ScopeSettings
from charz.scope._wire import Identity, ScopeEvent

__all__ = ["Scope"]


@runtime_checkable
class Scope(Protocol):
    """An oscilloscope that captures one triggered record of a current probe."""

    def connect(self, resource: str, visa_library: str = "@auto") -> Identity:
        """Open ``resource`` through VISA and check the instrument is one this driver drives.

        Example
        -------
        >>> scope.connect("TCPIP::192.168.1.20::4000::SOCKET")        # doctest: +SKIP
        Identity(manufacturer='TEKTRONIX', model='DPO3014', serial='C010101', firmware='CF:91.1CT FV:v2.14')
        """

    def identify(self) -> Identity:
        """Ask ``*IDN?``.

        Example
        -------
        >>> scope.identify().model                                     # doctest: +SKIP
        'DPO3014'
        """

    def configure(self, settings: ScopeSettings) -> ScopeSettings:
        """Apply channel, timebase and trigger settings, read them back, check the error queue.

        Raises UsageError for settings the model does not offer (naming the valid ones).

        Example
        -------
        >>> scope.configure(ScopeSettings(record_length=100_000))      # doctest: +SKIP
        ScopeSettings(channel='CH1', vertical_scale=0.1, ..., record_length=100000, ...)
        """

    def arm(self) -> None:
        """Start a single sequence and return once the trigger is armed (ready for the I/O).

        Example
        -------
        >>> scope.arm()                                                 # doctest: +SKIP
        """

    def wait(self, timeout_s: float) -> float:
        """Block until the armed sequence completes; never longer than ``timeout_s``.

        Returns the seconds waited; raises TriggerTimeout when nothing triggered.

        Example
        -------
        >>> scope.wait(timeout_s=2.0)                                  # doctest: +SKIP
        0.0132
        """

    def force_trigger(self) -> None:
        """Trigger now, whatever the signal does (bench bring-up).

        Example
        -------
        >>> scope.force_trigger()                                      # doctest: +SKIP
        """

    def fetch(self, *, max_clipped_fraction: float = 0.0) -> Record:
        """Transfer the record in binary with its scaling; checks it matches the settings.

        Raises ClippedWaveform when more than ``max_clipped_fraction`` of the points sit at
        the ADC limits.

        Example
        -------
        >>> r = scope.fetch()                                           # doctest: +SKIP
        >>> r.codes.dtype, r.n_samples, r.sample_interval_s, r.unit   # doctest: +SKIP
        (dtype('int16'), 10000, 2e-06, 'A')
        """

    def errors(self) -> tuple[ScopeEvent, ...]:
        """Drain the instrument's error / event queue.

        Example
        -------
        >>> scope.errors()                                              # doctest: +SKIP
        (ScopeEvent(code=113, message='Undefined header; Command not found; HOR:FOO 1'),)
        """

    def close(self) -> None:
        """Release the connection (idempotent).

        Example
        -------
        >>> scope.close()                                               # doctest: +SKIP
        """

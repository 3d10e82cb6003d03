"""The bench's mean supply current while one fio section runs: repeated coarse acquisitions.

A record of 1000 points at 1 ms spans one second of many requests; its mean is the
section's mean current sampled over that second (sample mode samples are instantaneous,
and their phase against the requests is arbitrary, so the mean is unbiased).  Records
are taken back to back while the section runs; only records that *finished* while fio was
still running are used, so no record averages in the idle drive after the section.

Each acquisition is armed, then forced: the trigger mode is ``auto`` as well, but a
forced trigger does not depend on how a vendor's single-sequence mode treats auto
(InfiniiVision waits for a real edge in :SINGle).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from charz.errors import ClippedWaveform, UsageError
from charz.scope import Scope, ScopeSettings

__all__ = ["CurrentAverage", "average_current", "averaging_settings"]


@dataclass(frozen=True)
class CurrentAverage:
    """The mean current over the records taken while a section ran.

    Attributes
    ----------
    mean_a : float or None
        Mean of the records' means; None when no record finished inside the section.
    sem_a : float or None
        Standard error of that mean (None with fewer than two records).
    records : int
        Records used.
    discarded : int
        Records that finished after the section had ended.
    window_s : float
        Length of one record.

    Example
    -------
    >>> avg = CurrentAverage.of([0.40, 0.42, 0.41], discarded=1, window_s=1.0)
    >>> avg.mean_a, round(avg.sem_a, 6), avg.records, avg.discarded
    (0.41, 0.005774, 3, 1)
    """

    mean_a: float | None
    sem_a: float | None
    records: int
    discarded: int
    window_s: float

    @classmethod
    def of(cls, means_a: list[float], *, discarded: int, window_s: float) -> "CurrentAverage":
        if not means_a:
            return cls(None, None, 0, discarded, window_s)
        values = np.asarray(means_a, dtype=np.float64)
        sem = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else None
        return cls(round(float(values.mean()), 12), sem, int(values.size), discarded, window_s)


def averaging_settings(*, channel: str = "CH1", vertical_scale_a: float = 0.2, record_length: int = 1000,
                       sample_interval_s: float = 1e-3) -> ScopeSettings:
    """Coarse settings for a mean: 1 ms/point, no pre-trigger, auto trigger, 2-byte points.

    The trace sits 4 divisions below centre so a 0.2 A/div scale reaches 1.8 A.

    >>> s = averaging_settings()
    >>> s.window_s, s.trigger_mode, s.pretrigger_fraction
    (1.0, 'auto', 0.0)
    """
    return ScopeSettings(channel=channel, vertical_scale=vertical_scale_a, vertical_position_div=-4.0,
                         record_length=record_length, sample_interval_s=sample_interval_s,
                         pretrigger_fraction=0.0, trigger_level=0.0, trigger_mode="auto", width_bytes=2)


def average_current(scope: Scope, settings: ScopeSettings, *, running: Callable[[], bool],
                    timeout_s: float | None = None, max_records: int | None = None) -> CurrentAverage:
    """Take records back to back while ``running()`` and average those that ended inside.

    Parameters
    ----------
    scope : Scope
        A connected driver (``charz.scope.open_scope``); it is configured here.
    settings : ScopeSettings
        Usually :func:`averaging_settings`.
    running : callable
        True while the fio section runs.
    timeout_s : float, optional
        Per acquisition; default twice the record's window plus 2 s.
    max_records : int, optional
        Stop after this many records were used (tests).

    Raises
    ------
    ClippedWaveform
        The current left the screen; the hint says to raise the vertical scale.

    Examples
    --------
    >>> with open_scope(resource) as scope:                                           # doctest: +SKIP
    ...     avg = average_current(scope, averaging_settings(), running=fio_thread.is_alive)
    >>> avg.mean_a, avg.records                                                        # doctest: +SKIP
    (0.4132, 14)
    """
    if max_records is not None and max_records < 1:
        raise UsageError(f"max_records must be >= 1, not {max_records!r}")
    wait_s = timeout_s if timeout_s is not None else 2.0 * settings.window_s + 2.0
    scope.configure(settings)
    means: list[float] = []
    discarded = 0
    while running() and (max_records is None or len(means) < max_records):
        scope.arm()
        scope.force_trigger()
        scope.wait(timeout_s=wait_s)
        inside = running()
        try:
            record = scope.fetch()
        except ClippedWaveform as exc:
            raise ClippedWaveform(exc.message, hint=f"the supply current left the screen at "
                                  f"{settings.vertical_scale:g} A/div; raise --vertical-scale") from exc
        if inside:
            means.append(float(record.values().mean()))
        else:
            discarded += 1
    return CurrentAverage.of(means, discarded=discarded, window_s=settings.window_s)

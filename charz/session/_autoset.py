"""Choosing the scope's vertical scale and trigger from what the drive actually draws.

Pure functions decide; :func:`autoset` runs the two captures they need on a bench:
an idle record (forced trigger) for the idle level and its noise, then one
calibration request of the largest planned size for the peak.  The scale puts
the peak at about 70 % of the screen above zero (clipping would cost the peak,
a tiny trace would cost resolution); the trigger sits well clear of the idle
noise but under the first step of a request, so it fires on the request's rise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from charz.analysis import W_PEAK, block_means, check_idle_peaks, measure_window, moving_average
from charz.errors import ClippedWaveform, TriggerTimeout, UsageError
from charz.scope import position_div, screen_divisions, screen_position_div  # noqa: F401 (re-exported)

_MANTISSAS = (1.0, 2.0, 5.0)
POSITION_DIV = -4.0  # zero amperes one division above the bottom of a 10-division screen


@dataclass(frozen=True)
class IdleStats:
    mean_a: float
    sigma_a: float  # of one sample, from first differences (a hum does not inflate it)
    max_a: float


def idle_stats(values_a: np.ndarray) -> IdleStats:
    """Idle level and sample noise of a record taken with nothing happening.

    Example
    -------
    >>> s = idle_stats(0.07 + 0.002 * np.random.default_rng(0).standard_normal(5000))
    >>> round(s.mean_a, 3), round(s.sigma_a, 4)
    (0.07, 0.002)
    """
    v = np.asarray(values_a, dtype=np.float64)
    sigma = 1.4826 * float(np.median(np.abs(np.diff(v)))) / float(np.sqrt(2))
    return IdleStats(float(np.median(v)), sigma, float(v.max()))


def round_scale_up(a_per_div: float) -> float:
    """The next 1-2-5 step at or above ``a_per_div`` (how scopes offer vertical scales).

    Example
    -------
    >>> round_scale_up(0.061), round_scale_up(0.2)
    (0.1, 0.2)
    """
    if not a_per_div > 0:
        raise ValueError("scale must be positive")
    decade = 10.0 ** np.floor(np.log10(a_per_div))
    for m in _MANTISSAS + (10.0,):
        if m * decade >= a_per_div * (1 - 1e-9):
            return float(m * decade)
    raise AssertionError("unreachable")


def scale_for_peak(peak_a: float, *, headroom: float = 1.4, divisions_above_zero: float = 9.0) -> float:
    """A/div so that ``headroom × peak`` fits above zero (zero sits at :data:`POSITION_DIV`)."""
    return round_scale_up(max(peak_a, 1e-4) * headroom / divisions_above_zero)


def trigger_level(idle: IdleStats, first_level_a: float | None) -> float:
    """Level for a rising edge: clear of idle noise (10 σ, and above idle spikes seen), under the first step."""
    clear = idle.mean_a + max(10 * idle.sigma_a, 0.005)
    if first_level_a is None:
        return clear
    return max(clear, idle.mean_a + 0.3 * (first_level_a - idle.mean_a))


@dataclass(frozen=True)
class Autoset:
    idle: IdleStats
    peak_a: float
    first_level_a: float | None
    vertical_scale: float
    trigger_level_a: float
    warnings: tuple[str, ...] = ()
    #: Every request the calibration sent to the drive, (op, size, offset) in order: a
    #: resumed mock session replays them so the simulated drive is where it was.
    requests: tuple[tuple[str, int, int], ...] = ()

    def to_dict(self) -> dict:
        return {
            "warnings": list(self.warnings),
            "idle_a": self.idle.mean_a,
            "idle_sigma_a": self.idle.sigma_a,
            "calibration_peak_a": self.peak_a,
            "calibration_first_level_a": self.first_level_a,
            "vertical_scale_a_per_div": self.vertical_scale,
            "trigger_level_a": self.trigger_level_a,
            "calibration_requests": [list(r) for r in self.requests],
        }


def autoset(bench, settings, *, calibration_size_bytes: int, calibration_offset_bytes: int, max_tries: int = 5):
    """Run the idle and calibration captures; return (settings, Autoset).

    ``settings`` is the starting :class:`~charz.scope.ScopeSettings` (timebase, channel).
    The calibration write goes to ``calibration_offset_bytes``, outside the plan's LBAs.
    """
    scope = bench.scope
    # A long idle record (200 ms at 2 µs if the scope has it) catches idle peaks before the sweep.
    lengths = getattr(getattr(scope, "model", None), "record_lengths", ()) or ()
    idle_length = 100_000 if 100_000 in lengths else settings.record_length
    divisions = screen_divisions(scope)
    s = replace(settings, vertical_position_div=position_div(divisions), trigger_mode="normal", trigger_level=settings.vertical_scale * 9,
                record_length=idle_length)
    for _ in range(max_tries):
        scope.configure(s)
        scope.arm()
        scope.force_trigger()
        scope.wait(bench.config.trigger_timeout_s)
        record = scope.fetch(max_clipped_fraction=1.0)
        if record.clipped_fraction == 0:
            break
        s = replace(s, vertical_scale=round_scale_up(s.vertical_scale * 1.5))
    else:
        raise ClippedWaveform("the idle current does not fit on the screen at any scale tried",
                              hint="check the probe (degauss, zero) and its units; run charz scope check")
    idle = idle_stats(record.values())
    warnings = idle_warnings(record, idle)
    s = replace(s, trigger_level=trigger_level(idle, None), record_length=settings.record_length)
    requests = []
    for _ in range(max_tries):
        scope.configure(s)
        scope.arm()
        requests.append(("write", calibration_size_bytes, calibration_offset_bytes))
        if bench.notify:
            bench.notify("write", calibration_size_bytes, calibration_offset_bytes)
        bench.io.write(calibration_size_bytes, calibration_offset_bytes)
        try:
            scope.wait(bench.config.trigger_timeout_s)
        except TriggerTimeout as exc:
            raise TriggerTimeout(
                f"the calibration write of {calibration_size_bytes} B did not trigger the scope at "
                f"{s.trigger_level * 1e3:.1f} mA (idle {idle.mean_a * 1e3:.1f} mA)",
                hint="is the probe on the drive's supply rail, and the drive's write cache off?",
            ) from exc
        record = scope.fetch(max_clipped_fraction=1.0)
        if record.clipped_fraction == 0:
            break
        s = replace(s, vertical_scale=round_scale_up(s.vertical_scale * 1.5))
        calibration_offset_bytes += 2 * calibration_size_bytes  # never write the same LBAs twice
    else:
        raise ClippedWaveform("the calibration write clips at every scale tried",
                              hint="the current exceeds the probe's range; check the probe setting")
    values = record.values()
    peak = float(moving_average(values, W_PEAK).max())
    m = measure_window(record.codes, y_mult=record.y_mult, y_offset_codes=record.y_offset_codes,
                       y_zero=record.y_zero, sample_interval_s=record.sample_interval_s, t_first_s=record.t_first_s)
    first = None
    if np.isfinite(m.start_s[0]):
        i0 = int(round((m.start_s[0] - record.t_first_s) / record.sample_interval_s))
        first = float(np.median(values[i0 : i0 + max(10, int(20e-6 / record.sample_interval_s))]))
    scale = scale_for_peak(peak, divisions_above_zero=divisions - 1.0)
    level = trigger_level(idle, first)
    if level >= peak:
        raise UsageError(f"the request's current ({peak * 1e3:.1f} mA peak) does not rise clear of the idle noise",
                         hint="reduce noise at the probe (degauss, shorter leads) or use a more sensitive range")
    final = replace(s, vertical_scale=scale, trigger_level=level, record_length=settings.record_length)
    return final, Autoset(idle, peak, first, scale, level, warnings, tuple(requests))


def idle_warnings(record, idle: IdleStats) -> tuple[str, ...]:
    """Idle peaks in a record taken with nothing requested, worded as the analysis words them.

    Every burst in such a record is housekeeping (003 Fig. 6a); catching them here says
    "put the drive in standby" before a sweep is spent on them.
    """
    values = record.values()
    bm = block_means(values, 50)
    high = bm > idle.mean_a + max(10 * idle.sigma_a / np.sqrt(50), 0.01)
    starts = np.flatnonzero(np.diff(np.r_[0, high.astype(int)]) == 1)
    if starts.size < 2:
        return ()
    heights = np.array([bm[i:i + 10].max() - idle.mean_a for i in starts])
    per_burst_s = values.size * record.sample_interval_s / starts.size
    # Heights are of 50-sample block means: their noise is σ / √50.
    w = check_idle_peaks(heights, np.full(starts.size, per_burst_s), np.full(starts.size, idle.sigma_a / np.sqrt(50)))
    return () if w is None else (w.text(),)

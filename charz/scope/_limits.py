"""Checking settings against a model's limits (pure; raises UsageError naming valid values).

Example
-------
>>> from charz.scope._models import load_model
>>> from charz.scope._settings import ScopeSettings
>>> m = load_model("tek_dpo3000")
>>> check_record_length(m, 20_000)
Traceback (most recent call last):
...
charz.errors.UsageError: tek_dpo3000 offers record lengths 1000, 10000, 100000, 1000000, 5000000, not 20000
>>> derived_horizontal_scale_s(m, ScopeSettings(record_length=10_000, sample_interval_s=2e-6))
0.002
"""

from __future__ import annotations

import math

from charz.errors import UsageError
from charz.scope._models import ScopeModel
from charz.scope._settings import ScopeSettings

__all__ = [
    "check_record_length",
    "check_channel",
    "check_vertical",
    "derived_horizontal_scale_s",
    "manual_sample_rate_hz",
    "keysight_memory_depth",
    "valid_intervals_s",
]

METHOD_MAX_INTERVAL_S = 2e-6


def check_record_length(model: ScopeModel, n: int) -> int:
    if n not in model.record_lengths:
        raise UsageError(
            f"{model.name} offers record lengths "
            f"{', '.join(str(r) for r in model.record_lengths)}, not {n}",
            hint="pick one of those (charz captures one I/O per record; 10000 or 100000 "
                 "points at 2 us cover 20 ms or 200 ms)",
        )
    return n


def check_channel(model: ScopeModel, channel: str) -> int:
    number = int(channel[2:])
    if not 1 <= number <= model.channels:
        raise UsageError(f"{model.name} has channels CH1 ... CH{model.channels}, not {channel}")
    return number


def check_vertical(model: ScopeModel, settings: ScopeSettings) -> None:
    lo, hi = model.vertical_scale_min, model.vertical_scale_max
    if not lo * (1 - 1e-9) <= settings.vertical_scale <= hi * (1 + 1e-9):
        raise UsageError(
            f"{model.name} offers {lo:g} ... {hi:g} {settings.probe_units}/div at probe gain 1, "
            f"not {settings.vertical_scale:g}",
            hint="with a current probe the range scales with the probe's gain; "
                 "choose a scale the peaks fill 4-6 divisions with",
        )
    if settings.width_bytes not in model.widths:
        raise UsageError(f"{model.name} transfers {model.widths} bytes per point, "
                         f"not {settings.width_bytes}")


def valid_intervals_s(model: ScopeModel, n: int) -> list[float]:
    """Sample intervals a derived-timebase model offers for an ``n``-point record.

    Example
    -------
    >>> from charz.scope._models import load_model
    >>> [f"{x:.0e}" for x in valid_intervals_s(load_model("tek_dpo3000"), 10_000)[9:13]]
    ['4e-07', '1e-06', '2e-06', '4e-06']
    """
    out = []
    decade = math.floor(math.log10(model.horizontal_scale_min_s)) - 1
    while 10.0**decade <= model.horizontal_scale_max_s * 10:
        for mant in model.horizontal_scale_mantissas:
            scale = mant * 10.0**decade
            if not model.is_horizontal_scale(scale):
                continue
            dt = 10.0 * scale / n
            if 1.0 / dt <= model.max_sample_rate_hz * (1 + 1e-9):
                out.append(dt)
        decade += 1
    return sorted(set(out))


def _nearest(values: list[float], x: float, k: int = 3) -> str:
    below = [v for v in values if v < x][-k:]
    above = [v for v in values if v > x][:k]
    return ", ".join(f"{v:.4g} s" for v in below + above)


def derived_horizontal_scale_s(model: ScopeModel, settings: ScopeSettings) -> float:
    """The s/div giving ``sample_interval_s`` at ``record_length`` (rate = N / (10 x scale)).

    Raises UsageError naming the nearest intervals the model offers at that length.
    """
    check_record_length(model, settings.record_length)
    scale = settings.horizontal_scale_s
    rate = 1.0 / settings.sample_interval_s
    if model.is_horizontal_scale(scale) and rate <= model.max_sample_rate_hz * (1 + 1e-9):
        # Snap to the exact sequence value so float noise never reaches the scope.
        return float(f"{scale:.6g}")
    offered = valid_intervals_s(model, settings.record_length)
    raise UsageError(
        f"{model.name} cannot sample every {settings.sample_interval_s:.4g} s with "
        f"{settings.record_length} points (it needs {scale:.4g} s/div, not in its "
        f"{'-'.join(f'{m:g}' for m in model.horizontal_scale_mantissas)} sequence "
        f"or faster than {model.max_sample_rate_hz:.3g} S/s)",
        hint=f"nearest offered intervals: {_nearest(offered, settings.sample_interval_s)} "
             f"(the method needs <= {METHOD_MAX_INTERVAL_S:g} s)",
    )


def manual_sample_rate_hz(model: ScopeModel, settings: ScopeSettings) -> float:
    """The sample rate for a manual-horizontal model (4/5/6 Series), checked."""
    check_record_length(model, settings.record_length)
    rate = float(f"{1.0 / settings.sample_interval_s:.6g}")
    if model.is_sample_rate(rate):
        return rate
    rates = []
    decade = math.floor(math.log10(max(model.sample_rate_min_hz, 1.0)))
    while 10.0**decade <= model.max_sample_rate_hz:
        rates += [m * 10.0**decade for m in model.sample_rate_mantissas
                  if model.is_sample_rate(m * 10.0**decade)]
        decade += 1
    intervals = sorted(1.0 / r for r in rates)
    raise UsageError(
        f"{model.name} has no sample rate of {rate:.6g} S/s "
        f"(interval {settings.sample_interval_s:.4g} s)",
        hint=f"nearest offered intervals: {_nearest(intervals, settings.sample_interval_s)}",
    )


def _keysight_depth(model: ScopeModel, n: int, dt_s: float) -> int | None:
    window_s = n * dt_s
    if not model.horizontal_scale_min_s * (1 - 1e-9) <= window_s / 10 <= model.horizontal_scale_max_s:
        return None
    fits = [d for d in model.memory_depths if d / window_s <= model.max_sample_rate_hz * (1 + 1e-9)]
    depth = max(fits) if fits else 0
    return depth if depth >= n and depth % n == 0 else None


def keysight_memory_depth(model: ScopeModel, settings: ScopeSettings) -> int:
    """The acquisition depth an InfiniiVision uses for this timebase, checked.

    The scope fills ten divisions with the deepest memory its maximum rate allows; the
    record is that acquisition decimated by an integer factor.
    """
    n = check_record_length(model, settings.record_length)
    dt = settings.sample_interval_s
    depth = _keysight_depth(model, n, dt)
    if depth is None:
        ok = [r for r in model.record_lengths if _keysight_depth(model, r, dt) is not None]
        raise UsageError(
            f"{model.name}: {n} points at {dt:.4g} s per point is not an integer decimation "
            f"of any acquisition memory the scope uses for a {n * dt / 10:.4g} s/div timebase",
            hint=f"record lengths that work at {dt:.4g} s per point: {', '.join(map(str, ok)) or 'none'}",
        )
    return depth

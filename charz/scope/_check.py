"""Bench bring-up: one acquisition, its statistics, and what to fix.

:func:`run_check` drives a connected scope; :func:`advise` is the pure part that turns
the numbers into advice, so it can be tested without a scope.

Example
-------
>>> advise(sample_interval_s=4e-6, y_unit="V", clipped_fraction=0.0, forced=False,
...        errors=(), span=0.5, vertical_scale=0.1, trigger_level=0.2, minimum=0.0,
...        maximum=0.5)[:2]
['the sample interval is 4 us; the method needs <= 2 us: shorten the record window or raise the record length', "the record is in 'V', not A: set the probe's units (current probe) or YUNits A with the shunt's V/A as probe gain"]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from charz.errors import TriggerTimeout
from charz.scope._base import ScopeDriver
from charz.scope._limits import METHOD_MAX_INTERVAL_S
from charz.scope._settings import ScopeSettings

__all__ = ["CheckResult", "run_check", "advise"]


@dataclass(frozen=True)
class CheckResult:
    """What ``charz scope check`` found.

    Example
    -------
    >>> r.ok, r.forced, r.sample_interval_s                      # doctest: +SKIP
    (True, False, 2e-06)
    """

    resource: str
    identity: str
    driver: str
    model: str
    settings: ScopeSettings
    forced: bool
    waited_s: float
    n_points: int
    sample_interval_s: float
    y_unit: str
    minimum: float
    mean: float
    maximum: float
    clipped_fraction: float
    description: str
    errors: tuple[tuple[int, str], ...] = ()
    advice: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.advice

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["ok"] = self.ok
        out["errors"] = [{"code": c, "message": m} for c, m in self.errors]
        return out


def _us(x: float) -> str:
    return f"{x * 1e6:.3g} us"


def advise(*, sample_interval_s: float, y_unit: str, clipped_fraction: float, forced: bool,
           errors: tuple[tuple[int, str], ...], span: float, vertical_scale: float,
           trigger_level: float, minimum: float, maximum: float) -> list[str]:
    """Advice for the operator, most important first; empty when all is well."""
    out = []
    if sample_interval_s > METHOD_MAX_INTERVAL_S * (1 + 1e-6):
        out.append(f"the sample interval is {_us(sample_interval_s)}; the method needs <= "
                   f"{_us(METHOD_MAX_INTERVAL_S)}: shorten the record window or raise the record length")
    if y_unit.strip().upper() != "A":
        out.append(f"the record is in {y_unit!r}, not A: set the probe's units (current probe) "
                   "or YUNits A with the shunt's V/A as probe gain")
    if clipped_fraction > 0:
        out.append(f"{clipped_fraction:.2%} of the points are clipped (over range): raise the "
                   "vertical scale or move the trace with the vertical position")
    if forced:
        where = "above" if trigger_level > maximum else "below" if trigger_level < minimum else "within"
        out.append(f"nothing triggered, the record was forced: the level {trigger_level:g} {y_unit} "
                   f"is {where} the recorded range {minimum:g} ... {maximum:g}; set it between the "
                   "idle and the active current and make sure an I/O reaches the drive")
    if errors:
        listed = "; ".join(f"{c} {m}" for c, m in errors)
        out.append(f"the scope's error queue held: {listed}")
    if not forced and clipped_fraction == 0 and 0 < span < vertical_scale:
        out.append(f"the signal spans {span:g} {y_unit}, less than one division "
                   f"({vertical_scale:g} {y_unit}): lower the vertical scale to use the ADC's range")
    return out


def run_check(scope: ScopeDriver, settings: ScopeSettings, *, timeout_s: float = 2.0,
              on_armed: object = None) -> CheckResult:
    """Configure, take one acquisition (forced if nothing triggers), describe it.

    ``on_armed`` is called after arming (e.g. to issue a test I/O); None does nothing.
    """
    scope.configure(settings)
    scope.arm()
    if callable(on_armed):
        on_armed()
    forced = False
    try:
        waited = scope.wait(timeout_s)
    except TriggerTimeout:
        forced = True
        scope.arm()
        scope.force_trigger()
        waited = timeout_s + scope.wait(timeout_s)
    record = scope.fetch(max_clipped_fraction=1.0)
    events = tuple((e.code, e.message) for e in scope.errors() if e.is_error)
    values = record.values()
    lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    mean = float(np.mean(values)) if values.size else 0.0
    identity = scope.identity
    return CheckResult(
        resource=scope.resource,
        identity=str(identity) if identity else "",
        driver=type(scope).__name__,
        model=scope.model.name,
        settings=settings,
        forced=forced,
        waited_s=waited,
        n_points=record.n_samples,
        sample_interval_s=record.sample_interval_s,
        y_unit=record.unit,
        minimum=lo,
        mean=mean,
        maximum=hi,
        clipped_fraction=record.clipped_fraction,
        description=record.description,
        errors=events,
        advice=tuple(advise(
            sample_interval_s=record.sample_interval_s, y_unit=record.unit,
            clipped_fraction=record.clipped_fraction, forced=forced, errors=events,
            span=hi - lo, vertical_scale=settings.vertical_scale,
            trigger_level=settings.trigger_level, minimum=lo, maximum=hi,
        )),
    )

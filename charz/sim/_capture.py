"""The simulator as a digitiser: one plan step → one archived capture.

Deterministic per step: every step draws its randomness from
``default_rng([seed, step.id])``, and the drive state (each die's page count)
is rebuilt by replaying earlier steps, so a resumed simulation produces the
same captures as an uninterrupted one.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

from charz.archive import Capture, Channel
from charz.sim._digitizer import digitize
from charz.sim._ssd import SimulatedSSD

if TYPE_CHECKING:  # the plan is the session's; the simulator only reads a step's fields
    from charz.session import Step


def step_rng(seed: int, step: "Step") -> np.random.Generator:
    return np.random.default_rng([seed, step.id])


def replay(ssd: SimulatedSSD, steps: list["Step"]) -> None:
    """Advance the drive's state through steps already recorded, without rendering."""
    for step in steps:
        if step.captured:
            ssd.request(step.op, step.size_bytes, step.offset_bytes, step_rng(ssd.seed, step))


def simulate_capture(ssd: SimulatedSSD, step: "Step") -> Capture:
    """Render and digitise one request the way the preset's scope settings say."""
    dig = ssd.model.digitizer
    rng = step_rng(ssd.seed, step)
    activity = ssd.request(step.op, step.size_bytes, step.offset_bytes, rng)
    dt = dig.write_sample_interval_s if step.op == "write" else dig.read_sample_interval_s
    n = dig.record_length
    t_first = -dig.pre_trigger_fraction * n * dt
    amps = ssd.render(activity, t_first, dt, n, rng)
    waveform, clipped = digitize(amps, dig.scale_a_per_div, dig.position_div, sample_interval_s=dt,
                                 t_first_s=t_first, width_bytes=1 if dig.bits <= 8 else 2)
    warnings = []
    if clipped:
        warnings.append(f"{clipped:.2%} of samples clipped at the ADC limits")
    if activity.end_us * 1e-6 > t_first + n * dt:
        warnings.append("the request outlasts the record")
    return Capture(
        step=step.id,
        op=step.op,
        size_bytes=step.size_bytes,
        offset_bytes=step.offset_bytes,
        repeat=step.repeat,
        time_reference="request",
        channels=[Channel("current", waveform)],
        warnings=warnings,
        extra={"sim": {"end_us": round(activity.end_us, 3), "bursts": activity.bursts, "rmw_read_us": round(activity.rmw_read_us, 3)}},
    )

"""Supply current of a schedule, through a probe, an amplifier and an ADC.

Per part: the controller's active current while a request is in flight, host DMA
current while data crosses the host link, ICC4 on each channel while a page toggles
over it, ICC1 per die sensing, ICC3 for an erase, and ICC2 per package while any of
its dies programs — one charge pump per package, so the dies' currents do not add;
each program is a train of ISPP pulse (high) and verify (low) phases, and with k dies
busy the pump serves them in turn, k pulses per period.  The bench adds white noise, a
slow wander, mains hum, the probe's bandwidth (one-pole), trigger jitter and the ADC:
8, 10 or 12 bits, stored as int8 or left-justified int16 as scopes do.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import lfilter

from tests.independent_datasheet.controller import CTRL, ERASE, HOST, PROG, SENSE, XFER, Op
from tests.independent_datasheet.ssd import Ssd


def package_gains(ssd: Ssd) -> np.ndarray:
    rng = np.random.default_rng([ssd.seed, 919])
    return 1.0 + ssd.pkg_spread * rng.uniform(-1.0, 1.0, ssd.packages)


def _on(t: np.ndarray, a: float, b: float) -> np.ndarray:
    return (t >= a) & (t < b)


def clean_current(ssd: Ssd, ops: list[Op], t: np.ndarray, gains: np.ndarray) -> np.ndarray:
    i = np.full(t.shape, ssd.i_idle)
    busy_dies: dict[int, np.ndarray] = {}
    for o in ops:
        if o.kind == CTRL:
            i += ssd.i_ctrl * _on(t, o.start, o.end)
        elif o.kind == HOST:
            i += ssd.i_host * _on(t, o.start, o.end)
        elif o.kind == XFER:
            i += ssd.icc4 * _on(t, o.start, o.end)
        elif o.kind == SENSE:
            # dies of one package sense in parallel from one pump too: a little more, not k times
            i += ssd.icc1 * gains[o.package] * (1.0 + 0.15 * (o.weight - 1)) * _on(t, o.start, o.end)
        elif o.kind == ERASE:
            i += ssd.icc3 * gains[o.package] * _on(t, o.start, o.end)
        elif o.kind == PROG:
            busy_dies.setdefault(o.package, np.zeros(t.shape))
            busy_dies[o.package] += _on(t, o.start, o.end)
    dt = float(t[1] - t[0]) if t.size > 1 else 1.0
    for k, n in busy_dies.items():
        on = n > 0
        if not on.any():
            continue
        # pump phase advances once per period per die served
        phase = (np.cumsum(n) * dt / ssd.ispp_period_us) % 1.0
        pulse = np.where(phase < ssd.ispp_duty, 1.0, -1.0) * (ssd.ispp_depth / 2)
        i[on] += ssd.icc2 * gains[k] * (1.0 + pulse[on])
    return i


def background_erase(ssd: Ssd, t: np.ndarray, rng) -> list[Op]:
    """Now and then the drive erases a block on its own (garbage collection)."""
    if rng.random() >= ssd.erase_rate:
        return []
    a = rng.uniform(t[0], t[-1])
    return [Op(ERASE, a, a + ssd.t_erase_us, package=int(rng.integers(ssd.packages)))]


def bench(ssd: Ssd, clean: np.ndarray, noise: float, rng) -> np.ndarray:
    n = clean.size
    dt_s = ssd.dt_us * 1e-6
    out = clean.copy()
    if ssd.bandwidth_tau_us > 0:  # one-pole low-pass of the probe and amplifier
        a = math.exp(-ssd.dt_us / ssd.bandwidth_tau_us)
        out, _ = lfilter([1 - a], [1.0, -a], clean, zi=[a * clean[0]])
    out = out + rng.normal(0.0, ssd.noise_a * noise, n)
    walk = np.cumsum(rng.normal(0.0, 1.0, n))
    walk -= np.linspace(walk[0], walk[-1], n)  # a wander that starts and ends where it was
    if walk.std() > 0:
        out += ssd.drift_a * noise * walk / walk.std()
    tt = np.arange(n) * dt_s
    out += ssd.hum_a * noise * np.sin(2 * math.pi * ssd.hum_hz * tt + rng.uniform(0, 2 * math.pi))
    return out


def digitise(ssd: Ssd, amps: np.ndarray, full_scale_a: float, rng) -> tuple[np.ndarray, dict, int, int, str]:
    """ADC codes: 0 A a few codes above the bottom, ``full_scale_a`` at the top.

    Returns (codes, scaling, code_min, code_max, dtype)."""
    bits = ssd.adc_bits
    levels = 2 ** bits
    bottom = -(levels // 2)
    zero_code = bottom + int(rng.integers(2, max(3, levels // 40)))
    lsb = full_scale_a / (levels - 1 - (zero_code - bottom))
    raw = np.clip(np.round(amps / lsb) + zero_code, bottom, levels // 2 - 1)
    if bits == 8 and rng.random() < 0.7:
        return raw.astype(np.int8), {"y_mult": lsb, "y_offset_codes": float(zero_code), "y_zero": 0.0, "unit": "A"}, \
            bottom, levels // 2 - 1, "int8"
    shift = 16 - bits  # left-justified in int16, as scopes deliver 10/12-bit records
    codes = (raw.astype(np.int64) << shift).astype(np.int16)
    scaling = {"y_mult": lsb / (1 << shift), "y_offset_codes": float(zero_code << shift), "y_zero": 0.0, "unit": "A"}
    return codes, scaling, bottom << shift, (levels // 2 - 1) << shift, "int16"

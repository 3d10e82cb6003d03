"""Baseline, active window, peak and charge of a batch of captures.

One batch is a 2-D array of raw ADC codes (captures × samples) that share a
record length and sample interval — how a sweep records them.  The steps
below run as one compiled loop per capture (:mod:`._window_kernel`), which
reads every sample once for the block means and again only near the edges and
inside the window.

1. Block means (``block`` samples each) turn the record into a short coarse
   trace in one pass; the idle **baseline** is the median block before the
   request (pre-trigger), its robust spread the **noise**.  Medians ignore
   spikes and idle peaks; a hum shows up as spread, which widens thresholds.
   A pre-trigger shorter than four blocks gives them from eight shorter means
   of its own samples (never quieter than one sample's white σ over a block).
2. The **active window** starts at the first block after the request whose
   mean rises ``6 σ`` (and a few per cent of the range) above the baseline, and
   ends where the current falls back to the level the record ends on — which
   is not the baseline on drives that keep a standby current after an I/O
   (003 §5.5, MXP's 80 mA).  Both edges are then placed to the sample on a
   4-sample average, scanning outward from inside the window so a noise
   excursion before or after the request cannot move them.
3. The **peak** is the maximum of the w = 20 moving average (003 §5.1.3)
   inside the window; the **charge** is the integral of current above the
   baseline over the window.

Flags say what went wrong per capture instead of raising, so one bad capture
never hides the others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.analysis._smooth import W_PEAK
from charz.analysis._window_kernel import (
    FLAG_CLIPPED,
    FLAG_EXTRA_ACTIVITY,
    FLAG_NO_ACTIVITY,
    FLAG_NO_PRETRIGGER,
    FLAG_TRUNCATED,
    F_BASELINE,
    F_IDLE_BLOCKS,
    F_IDLE_PEAK,
    F_INNER_SUM,
    F_LEVEL_NOISE,
    F_LOCAL,
    F_NOISE,
    F_PEAK_CODES,
    F_POST,
    I_END,
    I_PEAK,
    I_START,
    N_F,
    N_I,
    measure_rows,
)

FLAG_NONFINITE = 32  # NaN or inf in the data
MIN_SAMPLES = 16  # two blocks of the shortest kind, each wider than the edge average

FLAG_NAMES = {
    FLAG_NO_ACTIVITY: "no activity found after the request",
    FLAG_TRUNCATED: "activity runs past the end of the record",
    FLAG_NO_PRETRIGGER: "no pre-trigger samples; baseline taken from the quietest part of the record",
    FLAG_CLIPPED: "waveform clipped at the ADC limits",
    FLAG_EXTRA_ACTIVITY: "another burst of current after the request (idle peak or spike)",
    FLAG_NONFINITE: "non-finite samples",
}


@dataclass(frozen=True)
class WindowMeasurements:
    """Per-capture results of :func:`measure_window`, each an array of shape ``(n,)``.

    Times are seconds on the capture's own axis (``t_first_s + i·dt``); NaN
    where the capture has no activity.
    """

    baseline_a: np.ndarray
    local_baseline_a: np.ndarray  # idle level just before the request (follows a slow hum)
    noise_a: np.ndarray  # robust σ of one sample before the request (from first differences)
    level_noise_a: np.ndarray  # σ of the block means the levels (baseline, post, idle peaks) come from
    post_a: np.ndarray  # level the record ends on (baseline, or a standby tail)
    start_s: np.ndarray
    end_s: np.ndarray
    peak_a: np.ndarray  # max of the w = 20 average in the window
    peak_time_s: np.ndarray
    charge_c: np.ndarray  # ∫ (I - baseline) dt over the window
    mean_active_a: np.ndarray
    flags: np.ndarray
    idle_peak_a: np.ndarray  # tallest lasting excursion in the idle parts of the record (0 if none)
    idle_time_s: np.ndarray  # how much idle record there was to look at

    @property
    def duration_s(self) -> np.ndarray:
        return self.end_s - self.start_s


def _arg_batch(codes, y_mult, y_offset_codes, y_zero, t_first_s):
    codes = np.asarray(codes)
    if codes.ndim == 1:
        codes = codes[None, :]
    if codes.ndim != 2 or codes.shape[1] == 0:
        raise ValueError("codes must be a (captures × samples) array with samples")
    n = codes.shape[0]

    def per_capture(v, name):
        # Contiguous, so the compiled kernel sees one array layout whatever the caller passed.
        v = np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)))
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite")
        return v

    return (
        codes,
        per_capture(y_mult, "y_mult"),
        per_capture(y_offset_codes, "y_offset_codes"),
        per_capture(y_zero, "y_zero"),
        per_capture(t_first_s, "t_first_s"),
    )


def _kernel_dtype(dtype: np.dtype) -> np.dtype:
    """The kernel compiles once per sample type (seconds each, then cached): scopes send 8- or
    16-bit signed codes, which it takes as they are; anything else is widened to int64 or
    float64, exactly."""
    if dtype in (np.int8, np.int16):
        return dtype
    if dtype.kind in "biu" and dtype.itemsize <= 4:
        return np.dtype(np.int16) if dtype.itemsize == 1 else np.dtype(np.int64)
    return np.dtype(np.int64) if dtype.kind in "iu" and dtype != np.uint64 else np.dtype(np.float64)


def measure_window(
    codes: np.ndarray,
    *,
    y_mult,
    y_offset_codes,
    y_zero,
    sample_interval_s: float,
    t_first_s,
    code_min=None,
    code_max=None,
    block: int = 50,
    w_peak: int = W_PEAK,
) -> WindowMeasurements:
    """Measure baseline, active window, peak and charge of every capture in a batch.

    Parameters
    ----------
    codes : (n, N) integer (or float) array
        Raw ADC codes, one capture per row; ``value = (code - y_offset_codes) * y_mult + y_zero``.
    y_mult, y_offset_codes, y_zero : float or (n,) arrays
        Scaling to amperes.
    sample_interval_s : float
        Shared by the batch (≤ 2 µs for 003's method).
    t_first_s : float or (n,) array
        Time of the first sample relative to the request (or the trigger).
    code_min, code_max : optional
        ADC limits, to flag clipping.

    Examples
    --------
    A hand-made pulse: 1 mA idle, 0.2 A for 400 µs starting 100 µs after the request.

    >>> i = np.arange(2000)                      # t = -1 ms + i · 2 µs
    >>> amps = np.where((i >= 550) & (i < 750), 0.2, 0.001)
    >>> codes = np.round(amps / 1e-4).astype(np.int16)[None, :]
    >>> m = measure_window(codes, y_mult=1e-4, y_offset_codes=0, y_zero=0, sample_interval_s=2e-6, t_first_s=-1e-3)
    >>> round(float(m.start_s[0]) * 1e6), round(float(m.end_s[0]) * 1e6), round(float(m.peak_a[0]), 3)
    (100, 498, 0.2)
    """
    codes, y_mult, y_off, y_zero, t_first = _arg_batch(codes, y_mult, y_offset_codes, y_zero, t_first_s)
    n, n_samples = codes.shape
    dt = float(sample_interval_s)
    if not dt > 0:
        raise ValueError("sample_interval_s must be positive")
    flags = np.zeros(n, dtype=np.int64)
    if codes.dtype.kind == "f":
        bad = ~np.isfinite(codes).all(axis=1)
        if bad.any():
            flags[bad] |= FLAG_NONFINITE
            codes = np.where(np.isfinite(codes), codes, 0.0)
    # About 200 blocks a record whatever its length: the coarse steps cost per block, not per sample.
    block = max(2, min(max(int(block), n_samples // 200), n_samples // 8 or 2))
    if n_samples < MIN_SAMPLES:
        raise ValueError(f"a record of {n_samples} samples is too short to measure; it needs at least {MIN_SAMPLES}")
    w_peak = int(w_peak)
    if not 1 <= w_peak <= n_samples:
        raise ValueError(f"w_peak must be 1 … {n_samples} samples, got {w_peak}")
    nb = n_samples // block
    # Blocks wholly before the request (its first sample at t = 0): the idle level's.
    before = np.floor(-t_first / (block * dt)).astype(np.int64) - 1
    n_pre = np.clip(before, 0, nb)
    pre_samples = np.clip(np.floor(-t_first / dt), 0, n_samples).astype(np.int64)  # samples before the request
    k_trig = np.clip(before, 0, nb - 1)
    code_min = np.broadcast_to(np.asarray(-np.inf if code_min is None else code_min, dtype=np.float64), (n,))
    code_max = np.broadcast_to(np.asarray(np.inf if code_max is None else code_max, dtype=np.float64), (n,))
    codes = np.ascontiguousarray(codes, dtype=_kernel_dtype(codes.dtype))
    fo = np.empty((n, N_F))
    io = np.empty((n, N_I), dtype=np.int64)
    measure_rows(codes, y_mult, y_off, y_zero, n_pre, pre_samples, k_trig, block, w_peak,
                 np.ascontiguousarray(code_min), np.ascontiguousarray(code_max), flags, fo, io)

    none = (flags & FLAG_NO_ACTIVITY) != 0
    baseline = fo[:, F_BASELINE]
    start_idx, end_idx = io[:, I_START], io[:, I_END]
    n_in = (end_idx - start_idx + 1).astype(np.float64)
    peak = (fo[:, F_PEAK_CODES] - y_off) * y_mult + y_zero
    mean_active = (fo[:, F_INNER_SUM] / n_in - y_off) * y_mult + y_zero
    charge = (mean_active - baseline) * n_in * dt
    nan = np.where(none, np.nan, 1.0)
    return WindowMeasurements(
        baseline_a=baseline,
        local_baseline_a=fo[:, F_LOCAL],
        noise_a=fo[:, F_NOISE],
        level_noise_a=fo[:, F_LEVEL_NOISE],
        post_a=fo[:, F_POST],
        start_s=(t_first + start_idx * dt) * nan,
        end_s=(t_first + end_idx * dt) * nan,
        peak_a=peak * nan,
        peak_time_s=(t_first + io[:, I_PEAK] * dt) * nan,
        charge_c=charge * nan,
        mean_active_a=mean_active * nan,
        flags=flags,
        idle_peak_a=fo[:, F_IDLE_PEAK],
        idle_time_s=fo[:, F_IDLE_BLOCKS] * block * dt,
    )

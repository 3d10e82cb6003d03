"""Baseline, active window, peak and charge of a batch of captures.

One batch is a 2-D array of raw ADC codes (captures × samples) that share a
record length and sample interval — how a sweep records them — so every step
below is a whole-array operation and nothing loops over captures.

1. Block means (``block`` samples each) turn the record into a short coarse
   trace in one pass; the idle **baseline** is the median block before the
   request (pre-trigger), its robust spread the **noise**.  Medians ignore
   spikes and idle peaks; a hum shows up as spread, which widens thresholds.
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
from numpy.lib.stride_tricks import sliding_window_view

from charz.analysis._smooth import W_PEAK, block_means, moving_average

FLAG_NO_ACTIVITY = 1  # nothing rose above the baseline after the request
FLAG_TRUNCATED = 2  # the activity runs into the end of the record
FLAG_NO_PRETRIGGER = 4  # no idle samples before the request; baseline guessed
FLAG_CLIPPED = 8  # codes at the ADC limits inside the window or baseline
FLAG_EXTRA_ACTIVITY = 16  # another burst after the window (idle peak, spike)
FLAG_NONFINITE = 32  # NaN or inf in the data

FLAG_NAMES = {
    FLAG_NO_ACTIVITY: "no activity found after the request",
    FLAG_TRUNCATED: "activity runs past the end of the record",
    FLAG_NO_PRETRIGGER: "no pre-trigger samples; baseline taken from the quietest part of the record",
    FLAG_CLIPPED: "waveform clipped at the ADC limits",
    FLAG_EXTRA_ACTIVITY: "another burst of current after the request (idle peak or spike)",
    FLAG_NONFINITE: "non-finite samples",
}

W_EDGE = 4  # samples; short, so edges land within a few microseconds
CLIP_SAMPLES = 3  # samples at the ADC limit inside the window that make a record clipped
LOCAL_BLOCKS = 3  # blocks just before the request that give its local idle level
MAX_GAP_BLOCKS = 4  # a request may dip below the end level this long (waiting for a package) and go on


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
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (n,))
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


def _first_true(mask: np.ndarray, default: int) -> np.ndarray:
    idx = mask.argmax(axis=1)
    return np.where(mask[np.arange(mask.shape[0]), idx], idx, default)


def _gather(codes: np.ndarray, start: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows' samples ``start … start + length - 1`` as one array, and the starts actually used.

    Starts are clamped so every row stays inside its record.  Indexing a sliding-window
    view copies each row's run in one piece, many times faster than a per-element gather.
    """
    length = min(int(length), codes.shape[1])
    start = np.clip(start, 0, codes.shape[1] - length)
    return sliding_window_view(codes, length, axis=1)[np.arange(codes.shape[0]), start], start


def _bridge(mask: np.ndarray, gap: int) -> np.ndarray:
    """Fill runs of at most ``gap`` False blocks that have True on both sides (a closing)."""
    k = np.arange(mask.shape[1], dtype=np.int32)
    last_true = np.maximum.accumulate(np.where(mask, k, np.int32(-1)), axis=1)
    next_true = np.minimum.accumulate(np.where(mask, k, np.int32(mask.shape[1]))[:, ::-1], axis=1)[:, ::-1]
    return mask | ((last_true >= 0) & (next_true < mask.shape[1]) & (next_true - last_true <= gap + 1))


def _length_groups(lengths: np.ndarray, ratio: float = 1.5):
    """Row indices in groups whose longest window is at most ``ratio`` × the shortest."""
    order = np.argsort(lengths, kind="stable")
    sorted_len = np.maximum(lengths[order], 1)
    start = 0
    while start < order.size:
        stop = int(np.searchsorted(sorted_len, ratio * sorted_len[start], side="right"))
        yield order[start:stop]
        start = stop


def _peak_and_sum(codes, start_idx, lengths, w):
    """Max of the w-sample mean inside each row's window (in codes), its sample, the window's sum, its max code."""
    hw = w // 2
    n = codes.shape[0]
    length = int(lengths.max())
    win, g0 = _gather(codes, start_idx - hw, length + w - 1)
    wide = np.issubdtype(win.dtype, np.integer) and win.dtype.itemsize <= 2 and win.shape[1] < 65536
    prefix = np.zeros((n, win.shape[1] + 1), dtype=np.int32 if wide else np.float64)
    np.cumsum(win, axis=1, dtype=prefix.dtype, out=prefix[:, 1:])
    sums = prefix[:, w:] - prefix[:, :-w]  # sums[j] ↔ sample g0 + j + hw
    first = start_idx - g0 - hw  # 0 unless clamped at an edge of the record
    j = np.arange(sums.shape[1])[None, :]
    outside = (j < first[:, None]) | (j >= (first + lengths)[:, None])
    lowest = np.iinfo(sums.dtype).min if sums.dtype.kind == "i" else -np.inf
    np.putmask(sums, outside, lowest)
    jpk = sums.argmax(axis=1)
    rows = np.arange(n)
    lo = np.clip(start_idx - g0, 0, win.shape[1])
    hi = np.clip(start_idx + lengths - g0, 0, win.shape[1])
    inner = (prefix[rows, hi] - prefix[rows, lo]).astype(np.float64)
    return sums[rows, jpk] / float(w), g0 + hw + jpk, inner, win


def _row_medians(values: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median and robust σ (1.4826·MAD) of each row's first ``counts[row]`` values."""
    med = np.empty(values.shape[0])
    sig = np.empty(values.shape[0])
    for c in np.unique(counts):  # one group in practice: a sweep keeps its pre-trigger
        rows = counts == c
        part = values[rows, : max(int(c), 1)]
        m = np.median(part, axis=1)
        med[rows] = m
        sig[rows] = 1.4826 * np.median(np.abs(part - m[:, None]), axis=1)
    return med, sig


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
    rows = np.arange(n)

    # 1. Coarse trace, baseline and noise.
    bm = (block_means(codes, block) - y_off[:, None]) * y_mult[:, None] + y_zero[:, None]
    nb = bm.shape[1]
    k = np.arange(nb)
    n_pre = np.clip(np.floor(-t_first / (block * dt)).astype(np.int64) - 1, 0, nb)
    few_pre = n_pre < 4
    if few_pre.any():
        # Without a pre-trigger, the quietest tenth of the record stands in for the idle level.
        flags[few_pre] |= FLAG_NO_PRETRIGGER
        quiet = np.sort(bm[few_pre], axis=1)
        bm_for_base = bm.copy()
        bm_for_base[few_pre] = quiet
        n_pre = np.where(few_pre, max(4, nb // 10), n_pre)
    else:
        bm_for_base = bm
    baseline, sigma_block = _row_medians(bm_for_base, n_pre)
    sigma_block = np.maximum(sigma_block, 0.3 * y_mult / np.sqrt(block))
    tail_n = max(4, nb // 10)
    post, _ = _row_medians(bm[:, ::-1], np.full(n, tail_n))
    # The instrument's noise is the same after the request as before it; the spread of the
    # record's last blocks would also count the request's own decay if it ends late.
    sigma_post = sigma_block
    top = bm.max(axis=1)
    # Thresholds follow the noise, not the height of the request: the last package to finish
    # sits only one program current above the end level, whatever the peak was.
    thr_start = baseline + np.maximum(6 * sigma_block, 0.01 * (top - baseline))
    thr_end = np.maximum(post + np.maximum(6 * sigma_post, 0.01 * (top - post)), thr_start)

    # 2. Coarse window: the first run of active blocks after the request.
    k_trig = np.clip(np.floor(-t_first / (block * dt)).astype(np.int64) - 1, 0, nb - 1)
    after = k[None, :] >= k_trig[:, None]
    above_start = bm > thr_start[:, None]
    first_k = _first_true(above_start & after, -1)
    none = first_k < 0
    flags[none] |= FLAG_NO_ACTIVITY
    first_k = np.where(none, 0, first_k)
    above_end = bm > thr_end[:, None]
    filled = _bridge(above_end, MAX_GAP_BLOCKS)  # short dips do not end a request
    # The end is looked for from the request's busiest block on: a request can start below a
    # standby tail (controller only), or quietly (a read-modify-write moving data) for longer
    # than a dip may last, and still be one request.
    k_hi = np.where(k[None, :] >= first_k[:, None], bm, -np.inf).argmax(axis=1)
    k_hi = np.where(above_end[rows, k_hi], k_hi, first_k)
    filled[rows, k_hi] = True
    stop = _first_true(~filled & (k[None, :] > k_hi[:, None]), nb)
    truncated = stop >= nb
    flags[truncated & ~none] |= FLAG_TRUNCATED
    last_k = np.minimum(stop, nb) - 1
    # The idle level just before the request: the blocks that end before time zero (the
    # request, or the trigger on its rise) — never blocks after a start that noise hid.
    near = np.clip(k_trig[:, None] - 1 - np.arange(LOCAL_BLOCKS)[None, :], 0, nb - 1)
    local = np.median(bm[rows[:, None], near], axis=1)
    local_baseline = np.where(k_trig >= LOCAL_BLOCKS, local, baseline)
    # Bursts away from the request (idle peaks, 003 Fig. 6a): three blocks or more in a row
    # (a lone spike is not a burst), standing clear of the slow wander of a long idle stretch
    # (mains hum) — a tenth of the request's height, or 5 mA.
    clear = np.maximum(np.maximum(6 * sigma_block, 0.1 * (top - baseline)), 0.005)
    high_pre = bm > (baseline + clear)[:, None]
    high_post = bm > (post + clear)[:, None]
    run_pre = high_pre[:, 2:] & high_pre[:, 1:-1] & high_pre[:, :-2]
    run_post = high_post[:, 2:] & high_post[:, 1:-1] & high_post[:, :-2]
    pre_end = np.where(none, nb, first_k - 1)
    in_pre = k[None, 2:] < pre_end[:, None]  # runs that end before the request starts
    in_post = (k[None, :-2] > (last_k + 2)[:, None]) & ~none[:, None]  # runs that start after it
    extra = (run_post & in_post).any(axis=1) | (run_pre & in_pre).any(axis=1)
    flags[extra & ~none] |= FLAG_EXTRA_ACTIVITY
    h_pre = np.where(run_pre & in_pre, bm[:, 1:-1] - baseline[:, None], 0.0).max(axis=1)
    h_post = np.where(run_post & in_post, bm[:, 1:-1] - post[:, None], 0.0).max(axis=1)
    idle_peak = np.maximum(h_pre, h_post)
    idle_blocks = np.where(none, nb, np.maximum(first_k - 1, 0) + np.maximum(nb - last_k - 3, 0))
    idle_time = idle_blocks * block * dt

    # 3. Edges to the sample, scanning outward from inside the window.  The 4-sample average
    # is noisier than a block mean, so its thresholds also clear 4.5 σ of that average;
    # σ of a sample comes from first differences, which a slow hum does not inflate.
    # 256 pre-trigger samples pin σ to a few per cent; more would only cost time.
    head = codes[:, : max(2, min(int(n_pre.min()) * block, 256))].astype(np.int32)
    sigma_sample = 1.4826 * np.median(np.abs(np.diff(head, axis=1)), axis=1) / np.sqrt(2) * y_mult
    edge_margin = 4.5 * sigma_sample / np.sqrt(W_EDGE)
    thr_start_codes = (np.maximum(thr_start, baseline + edge_margin) - y_zero) / y_mult + y_off
    thr_end_codes = (np.maximum(thr_end, post + edge_margin) - y_zero) / y_mult + y_off
    # seg[j] averages samples base + j … base + j + W_EDGE - 1.
    span = 3 * block + W_EDGE
    s0 = (first_k - 2) * block
    win, s0 = _gather(codes, s0, span + W_EDGE - 1)
    seg = moving_average(win, W_EDGE)
    j = np.arange(seg.shape[1])[None, :]
    # Anchor each scan on the edge block's first (start) or last (end) window above the
    # threshold: a request shorter than a block need not be active at the block's boundary.
    lo, hi = first_k * block - s0, (first_k + 1) * block - W_EDGE - s0
    in_block = (j >= lo[:, None]) & (j <= hi[:, None])
    over = in_block & (seg > thr_start_codes[:, None])
    anchor = np.where(over.any(axis=1), over.argmax(axis=1), np.where(in_block, seg, -np.inf).argmax(axis=1))
    below = (seg <= thr_start_codes[:, None]) & (j <= anchor[:, None])
    last_below = np.where(below.any(axis=1), seg.shape[1] - 1 - below[:, ::-1].argmax(axis=1), -1)
    # A window that first exceeds the threshold has just taken in the first active sample.
    start_idx = np.maximum(s0 + last_below + W_EDGE, 0)
    e0 = (last_k - 1) * block
    win, e0 = _gather(codes, e0, span + W_EDGE - 1)
    seg = moving_average(win, W_EDGE)
    lo = np.maximum(last_k * block, start_idx) - e0
    hi = (last_k + 1) * block - W_EDGE - e0
    in_block = (j >= lo[:, None]) & (j <= np.maximum(hi, lo)[:, None])
    over = in_block & (seg > thr_end_codes[:, None])
    last_over = seg.shape[1] - 1 - over[:, ::-1].argmax(axis=1)
    anchor = np.where(over.any(axis=1), last_over, np.where(in_block, seg, -np.inf).argmax(axis=1))
    below = (seg <= thr_end_codes[:, None]) & (j >= anchor[:, None])
    first_below = np.where(below.any(axis=1), below.argmax(axis=1), seg.shape[1])
    # The last window above the threshold starts with the last active sample.
    end_idx = np.clip(e0 + first_below - 1, start_idx, n_samples - 1)

    # 4. Peak and charge over the window.  Rows are taken in groups of similar window
    # length so the padded gather stays close to the data actually needed.
    peak = np.empty(n)
    peak_idx = np.empty(n, dtype=np.int64)
    inner_sum = np.empty(n)
    at_limit = np.zeros(n, dtype=np.int64)
    hi_limit = None if code_max is None else np.broadcast_to(np.asarray(code_max, dtype=np.float64), (n,))
    lengths = end_idx - start_idx + 1
    for group in _length_groups(lengths):
        p, pk_i, s_in, win = _peak_and_sum(codes[group], start_idx[group], lengths[group], w_peak)
        peak[group], peak_idx[group], inner_sum[group] = p, pk_i, s_in
        if hi_limit is not None:
            # Most records never reach the limit: a maximum is cheaper than a count.
            reach = win.max(axis=1) >= hi_limit[group]
            if reach.any():
                at_limit[group[reach]] = (win[reach] >= hi_limit[group][reach, None]).sum(axis=1)
    peak = (peak - y_off) * y_mult + y_zero
    n_in = lengths.astype(np.float64)
    mean_active = (inner_sum / n_in - y_off) * y_mult + y_zero
    charge = (mean_active - baseline) * n_in * dt
    if code_max is not None or code_min is not None:
        hi = np.broadcast_to(np.asarray(code_max if code_max is not None else np.inf, dtype=np.float64), (n,))
        lo = np.broadcast_to(np.asarray(code_min if code_min is not None else -np.inf, dtype=np.float64), (n,))
        head = codes[:, : max(1, int(n_pre.min()) * block)]
        # A spike can touch the rail for a sample or two without costing the peak; three or
        # more samples at the limit (or any idle sample at either limit) is a clipped record.
        clipped = (at_limit >= CLIP_SAMPLES) | (head.min(axis=1) <= lo) | (head.max(axis=1) >= hi)
        flags[clipped] |= FLAG_CLIPPED

    start_s = t_first + start_idx * dt
    end_s = t_first + end_idx * dt
    nan = np.where(none, np.nan, 1.0)
    return WindowMeasurements(
        baseline_a=baseline,
        local_baseline_a=local_baseline,
        noise_a=sigma_sample,
        level_noise_a=sigma_block,
        post_a=post,
        start_s=start_s * nan,
        end_s=end_s * nan,
        peak_a=peak * nan,
        peak_time_s=(t_first + peak_idx * dt) * nan,
        charge_c=charge * nan,
        mean_active_a=mean_active * nan,
        flags=flags,
        idle_peak_a=idle_peak,
        idle_time_s=idle_time,
    )

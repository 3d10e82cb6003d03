"""The per-capture pass of :func:`charz.analysis.measure_window`, compiled with numba.

Why compiled: the rules of a window (medians before and after the request,
first active block, bridged dips, edges to the sample, w = 20 peak) are a few
dozen small decisions per capture.  As whole-array numpy passes they cost about
ten times ``numpy.sum`` of the same samples on a bench's default 10 000-point
records — the passes over block-level arrays and the padded gathers, not the
arithmetic.  One loop per capture reads each sample once for the block means and
again only at the edges and inside the window, at memory speed.

The rules themselves are documented in :mod:`charz.analysis._window`; this
module holds only their loops.  Pure: arrays in, arrays out, no globals but the
flag bits.
"""

from __future__ import annotations

import numba
import numpy as np

FLAG_NO_ACTIVITY = 1
FLAG_TRUNCATED = 2
FLAG_NO_PRETRIGGER = 4
FLAG_CLIPPED = 8
FLAG_EXTRA_ACTIVITY = 16

W_EDGE = 4  # samples; short, so edges land within a few microseconds
CLIP_SAMPLES = 3  # samples at the ADC limit inside the window that make a record clipped
LOCAL_BLOCKS = 3  # blocks just before the request that give its local idle level
MAX_GAP_BLOCKS = 4  # a request may dip below the end level this long (waiting for a package) and go on
SORT_MAX = 64  # medians of at most this many blocks sort by insertion
SIGMA_HEAD_SAMPLES = 256  # pre-trigger samples for σ of one sample: a few per cent, and cheap
EDGE_GROUPS = 32  # disjoint 4-sample means for the edge averages' σ: enough for a MAD, cheap to sort
PRE_GROUPS = 8  # shorter means a pre-trigger too short for four blocks is split into (one more kept back)
MIN_GROUP = 8  # samples: no shorter means for the idle level (below that one sample's spikes rule them)

# Columns of the float and integer results, one row per capture.
F_BASELINE, F_LOCAL, F_NOISE, F_LEVEL_NOISE, F_POST, F_PEAK_CODES, F_INNER_SUM, F_IDLE_PEAK, F_IDLE_BLOCKS = range(9)
N_F = 9
I_START, I_END, I_PEAK = range(3)
N_I = 3

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _sorted_copy(v, scratch):
    """``v`` sorted into ``scratch`` by insertion: the block counts here are a few dozen, where
    that beats numpy's select (measured 3× at 39 values) and allocates nothing."""
    a = scratch[: v.shape[0]]
    for i in range(v.shape[0]):
        key = v[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


@_jit
def _median(v, scratch):
    """numpy's median: the mean of the two middle values."""
    m = v.shape[0]
    if m > scratch.shape[0]:
        return np.median(v)
    a = _sorted_copy(v, scratch)
    return (a[(m - 1) // 2] + a[m // 2]) / 2.0


@_jit
def _median_mad(v, scratch):
    """Median and robust σ (1.4826·MAD).  The deviations of a sorted array from its median
    are two sorted runs (outward from the middle), so their median is a merge, not a sort."""
    m = v.shape[0]
    if m > scratch.shape[0]:
        med = np.median(v)
        return med, 1.4826 * np.median(np.abs(v - med))
    a = _sorted_copy(v, scratch)
    med = (a[(m - 1) // 2] + a[m // 2]) / 2.0
    i = (m - 1) // 2  # last value at or below the median
    while i + 1 < m and a[i + 1] <= med:
        i += 1
    j = i + 1
    lo_rank, hi_rank = (m - 1) // 2, m // 2
    lo = hi = 0.0
    for rank in range(hi_rank + 1):
        if j >= m or (i >= 0 and med - a[i] <= a[j] - med):
            d = med - a[i]
            i -= 1
        else:
            d = a[j] - med
            j += 1
        if rank == lo_rank:
            lo = d
        hi = d
    return med, 1.4826 * (lo + hi) / 2.0


@_jit
def _median_abs_diff(x, integer_codes, diffs, counts):
    """Median of |x[i+1] - x[i]|.  Integer codes (the usual case) differ by a few codes, so a
    count of each difference finds it without sorting; wide spreads and float samples take
    numpy's median.  ``diffs`` and ``counts`` are scratch space."""
    m = x.shape[0] - 1
    if integer_codes:
        widest = 0
        for i in range(m):
            d = abs(np.int64(x[i + 1]) - np.int64(x[i]))
            if d < 0:  # int64 codes so far apart that the difference wraps: no count for that
                widest = counts.shape[0]
                break
            widest = max(widest, d)
        if widest < counts.shape[0]:
            counts[: widest + 1] = 0
            for i in range(m):
                counts[abs(np.int64(x[i + 1]) - np.int64(x[i]))] += 1
            lo_rank, hi_rank = (m - 1) // 2, m // 2  # numpy's median: the mean of these two
            seen = 0
            lo = -1
            for v in range(widest + 1):
                seen += counts[v]
                if lo < 0 and seen > lo_rank:
                    lo = v
                if seen > hi_rank:
                    return (lo + v) / 2.0
    for i in range(m):
        diffs[i] = abs(float(x[i + 1]) - float(x[i]))
    return np.median(diffs[:m])


@_jit
def _median3(a, b, c):
    return max(min(a, b), min(max(a, b), c))


@_jit
def _sum(x):
    """Exact for integer codes (int64); a plain zero-based loop, which LLVM vectorises."""
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


@_jit
def _extremes(x):
    lowest = x[0]
    highest = x[0]
    for i in range(1, x.shape[0]):
        lowest = min(lowest, x[i])
        highest = max(highest, x[i])
    return lowest, highest


@_jit
def _seg4(x, j):
    """Mean of x[j … j+3] — the edge average."""
    return (x[j] + x[j + 1] + x[j + 2] + x[j + 3]) / 4.0


@_jit
def _highest_seg4(x, base, lo, hi):
    """First j in lo … hi where the edge average at ``base + j`` is highest (0 if none)."""
    anchor = 0
    best = -np.inf
    for j in range(lo, hi + 1):
        v = _seg4(x, base + j)
        if v > best:
            best = v
            anchor = j
    return anchor


@_jit
def _levels(x, ym, yo, yz, n_pre, pre_samples, block, bm, scratch, integer_codes, diffs, counts):
    """Block means (the one pass over every sample), the idle level and its noise, the end level.

    Returns ``(flags, n_idle, baseline, sigma_block, post, top, thr_start, thr_end)``;
    ``n_idle``: how many leading samples are idle (pre-trigger)."""
    nb = bm.shape[0]
    flags = 0
    for k in range(nb):
        bm[k] = (_sum(x[k * block:(k + 1) * block]) / block - yo) * ym + yz

    # Baseline and its noise from the blocks before the request.  A pre-trigger shorter than
    # four blocks (a short record: 125 samples before a 1250-sample read) is still idle
    # current with the idle level's statistics: its median and spread come from PRE_GROUPS
    # shorter means of it, the spread scaled to a block's length (σ/√n) — the quietest blocks
    # of the whole record would sit below the idle level and spread less than it, and a
    # threshold set from them lets idle noise before the request start the window.  Only
    # without that much pre-trigger does the quietest tenth of the record stand in.
    sub = pre_samples // (PRE_GROUPS + 1)  # one group kept back from time zero, as a block is
    if n_pre >= 4:
        baseline, sigma_block = _median_mad(bm[:n_pre], scratch)
        n_idle = n_pre * block
    elif sub >= MIN_GROUP:
        g = scratch[SORT_MAX - PRE_GROUPS:]  # the median sorts into the front of scratch
        for k in range(PRE_GROUPS):
            g[k] = (_sum(x[k * sub:(k + 1) * sub]) / sub - yo) * ym + yz
        baseline, sigma_sub = _median_mad(g[:PRE_GROUPS], scratch)
        n_idle = PRE_GROUPS * sub
        # A MAD of eight means is itself uncertain (it can read a quarter of the true σ): no
        # block mean is quieter than white noise of one sample's σ (from first differences).
        head = min(n_idle, SIGMA_HEAD_SAMPLES)
        white = 1.4826 * _median_abs_diff(x[:head], integer_codes, diffs, counts) / np.sqrt(2.0) * abs(ym)
        sigma_block = max(sigma_sub * np.sqrt(sub / block), white / np.sqrt(block))
    else:
        flags |= FLAG_NO_PRETRIGGER
        n_pre = max(4, nb // 10)
        baseline, sigma_block = _median_mad(np.sort(bm)[: max(n_pre, 1)], scratch)
        n_idle = n_pre * block
    sigma_block = max(sigma_block, 0.3 * ym / np.sqrt(block))
    tail_n = max(4, nb // 10)
    post = _median(bm[max(nb - tail_n, 0):], scratch)
    top = bm.max()
    thr_start = baseline + max(6 * sigma_block, 0.01 * (top - baseline))
    thr_end = max(post + max(6 * sigma_block, 0.01 * (top - post)), thr_start)
    return flags, n_idle, baseline, sigma_block, post, top, thr_start, thr_end


@_jit
def _coarse_window(bm, k_trig, thr_start, thr_end, above, nxt):
    """First and last block of the request, and its busiest block.

    Returns ``(flags, none, first_k, k_hi, last_k)``; ``none``: nothing above the start level."""
    nb = bm.shape[0]
    flags = 0
    # First block after the request above the start threshold ...
    first_k = -1
    for k in range(k_trig, nb):
        if bm[k] > thr_start:
            first_k = k
            break
    none = first_k < 0
    if none:
        flags |= FLAG_NO_ACTIVITY
        first_k = 0
    # ... on to the first block after the busiest one that is below the end level, dips of
    # up to MAX_GAP_BLOCKS bridged.
    for k in range(nb):
        above[k] = bm[k] > thr_end
    following = nb
    for k in range(nb - 1, -1, -1):
        if above[k]:
            following = k
        nxt[k] = following
    k_hi = first_k
    for k in range(first_k + 1, nb):
        if bm[k] > bm[k_hi]:
            k_hi = k
    if not above[k_hi]:
        k_hi = first_k
    stop = nb
    last_true = -1
    for k in range(nb):
        if above[k]:
            last_true = k
        if k > k_hi:
            bridged = last_true >= 0 and nxt[k] < nb and nxt[k] - last_true <= MAX_GAP_BLOCKS + 1
            if not (above[k] or bridged):
                stop = k
                break
    if stop >= nb and not none:
        flags |= FLAG_TRUNCATED
    return flags, none, first_k, k_hi, min(stop, nb) - 1


@_jit
def _hum_end(bm, k_hi, last_k, post, sigma_block):
    """The request's last block when a slow wander holds the current above the end level.

    A slow wander of the idle level (mains hum: 20 ms, a few mA) can hold the current just
    above the end level for milliseconds after the request has ended.  The request ended at
    the last fall after its busiest block that what follows (two blocks or more) cannot
    match: the fall is twice that stretch's wander and twice its height above the end
    level.  A write's last package (one package's height above idle) never passes that.

    Returns ``(last_k, plateau_hi)``; ``plateau_hi`` is -inf when no plateau was cut off."""
    plateau_hi = -np.inf
    if last_k - k_hi > 2:
        # The request's last step down, not its largest: a read's first burst or a write's
        # ramp down falls further than its final step to idle, and the stretch after such an
        # early fall holds the rest of the request — too tall to pass for a wander, so the
        # wander after the real end was kept as well.  Scanning back from the window's end,
        # the first fall that clears twice the wander of what follows it is the end.
        best_fall = 0.0
        best_j = -1
        wander = 0.0
        lo_p = np.inf
        hi_p = -np.inf
        run_max = bm[last_k]
        for j in range(last_k - 1, k_hi, -1):
            # blocks j+1 … last_k: the stretch after a fall at j (its first block, j, may hold
            # the fall itself)
            lo_p = min(lo_p, bm[j + 1])
            hi_p = max(hi_p, bm[j + 1])
            run_max = max(run_max, bm[j])
            if j + 2 > last_k:
                continue
            fall = bm[j - 1] - run_max
            if (j - 2 >= k_hi and bm[j - 2] > bm[j - 1] > run_max and bm[j - 2] - run_max >= 0.5 * (bm[k_hi] - post)
                    and bm[j] <= lo_p + 0.5 * (hi_p - lo_p)):
                # The step may straddle a block boundary: block j-1 then holds part of it (it
                # lies between the levels on either side, not below them as a return to idle
                # does), and the fall is from the block before it.  Only a step of half the
                # request's height or more counts so: over two blocks, a hum's glide falls by
                # a few of their σ too.  And only when the step reaches idle: the block after
                # it sits in the lower half of what follows (a hum rises from there); a read's
                # low shoulder after its bursts holds the upper half.
                fall = max(fall, bm[j - 2] - run_max)
            w = max(hi_p - lo_p, hi_p - post, 6 * sigma_block)
            if fall >= 2 * w:
                best_fall = fall
                best_j = j
                wander = w
                break
        if best_j > 0:
            # A hum glides: at the stretch's end it has come down to the end level slowly, so
            # its last blocks sit near the blocks after it.  A request steps down: a read's
            # controller-busy shoulder (transfers to the host after the bursts) drops at its
            # end from most of its height to the idle level.  Such a stretch is the request.
            nb = bm.shape[0]
            # Only a stretch clear of the idle level (a tenth of the request's height, as an
            # idle burst must be) counts: an idle level that wanders by a few σ steps too.
            # And only one that never comes back towards the idle level before its end step
            # (it holds over half its height): a burst after a return to idle — a background
            # erase — is other activity, not the request's tail.
            # A stretch under a tenth of the request's height counts too when it is flat — a
            # body of four blocks or more that spreads by under 0.15 of its height, which
            # stands 20 σ clear of the end level: a write's last package programming alone
            # after the others have finished (one package of 16 is a sixteenth of the top).
            # A drift's bump is not flat over four blocks, and a hum's crest, flat over a few
            # blocks, glides down instead of stepping (the test below).
            # Heights are measured from the idle level that follows the request where a drift
            # holds it above the record's end level (as the end threshold is).
            steps_down = False
            ref = post
            if last_k + 3 < nb:
                ref = max(post, _median3(bm[last_k + 1], bm[last_k + 2], bm[last_k + 3]))
            height = hi_p - ref
            body_lo = np.inf
            body_hi = -np.inf
            for j in range(best_j + 1, last_k - 2):
                body_lo = min(body_lo, bm[j])
                body_hi = max(body_hi, bm[j])
            flat = last_k - 2 - (best_j + 1) >= 4 and height >= 20 * sigma_block and body_hi - body_lo <= 0.15 * height
            tall = height >= 0.1 * (bm[k_hi] - ref)
            if last_k + 3 < nb and (tall or flat) and body_lo - ref >= 0.5 * height:
                tail_hi = max(bm[last_k], bm[max(last_k - 1, best_j + 1)], bm[max(last_k - 2, best_j + 1)])
                after = _median3(bm[last_k + 1], bm[last_k + 2], bm[last_k + 3])
                steps_down = tail_hi - after >= max(6 * sigma_block, 0.6 * height)
            if best_fall >= 2 * wander and not steps_down:
                last_k = best_j - 1
                plateau_hi = hi_p
    return last_k, plateau_hi


@_jit
def _bursts(bm, none, first_k, last_k, baseline, post, clear):
    """Bursts away from the request: three blocks in a row clear of the level.

    Returns ``(extra, h_pre, h_post)``: any burst, and the highest before and after."""
    nb = bm.shape[0]
    pre_end = nb if none else first_k - 1
    h_pre = 0.0
    h_post = 0.0
    extra = False
    for j in range(nb - 2):
        if j + 2 < pre_end:
            lim = baseline + clear
            if bm[j] > lim and bm[j + 1] > lim and bm[j + 2] > lim:
                extra = True
                h_pre = max(h_pre, bm[j + 1] - baseline)
        if not none and j > last_k + 2:
            lim = post + clear
            if bm[j] > lim and bm[j + 1] > lim and bm[j + 2] > lim:
                extra = True
                h_post = max(h_post, bm[j + 1] - post)
    return extra, h_pre, h_post


@_jit
def _edge_margin(x, ym, n_idle, integer_codes, diffs, counts, scratch):
    """The 4-sample average's clearance over a level, and one sample's σ.

    σ of one sample from first differences of the pre-trigger (a slow hum does not inflate
    them); the 4-sample average must clear 4.5 of its σ too.  Returns ``(margin, sigma_sample)``."""
    head = min(max(2, min(n_idle, SIGMA_HEAD_SAMPLES)), x.shape[0])
    sigma_sample = 1.4826 * _median_abs_diff(x[:head], integer_codes, diffs, counts) / np.sqrt(2.0) * ym
    # The edge averages' own σ, from disjoint 4-sample means of the same head: a bench's
    # noise is correlated over a few samples, which first differences do not see (σ/√3 for
    # 3-sample correlation), and an edge threshold that tight lets noise carry an edge on.
    n_groups = min(head // W_EDGE, EDGE_GROUPS)
    if n_groups >= 8:
        for g in range(n_groups):
            diffs[g] = _seg4(x, g * W_EDGE)
        sigma_edge = _median_mad(diffs[:n_groups], scratch)[1] * ym
    else:
        sigma_edge = 0.0
    # Below one ADC step of noise both σ read zero, yet a 4-sample average still moves by a
    # step's fraction: a step's quantisation σ (0.3 code) is the floor.
    return 4.5 * max(sigma_sample / np.sqrt(W_EDGE), sigma_edge, 0.3 * abs(ym)), sigma_sample


@_jit
def _sample_edges(x, block, first_k, last_k, thr_s, thr_e, thr_a, thr_sa, pre_edge):
    """Start and end sample of the window, from its first and last block (thresholds in codes)."""
    n = x.shape[0]
    span = min(3 * block + W_EDGE + W_EDGE - 1, n)
    n_seg = span - W_EDGE + 1

    # Start: anchored on the edge block's first average above the threshold (or its highest),
    # then back to the last average at or below it.  An edge block wholly before the request
    # (``pre_edge``) cannot hold the request's foot: a slow wander of the idle level lifted it
    # just over the start threshold, and noise on it crossed the threshold early in the
    # block — the start came hundreds of µs before the request.  Then the anchor is the first
    # average in that block or the next that clears the threshold by a margin (``thr_sa``:
    # the request's own edge does, the wander does not), and the foot is where the current
    # leaves the edge block's own level.  A block after time zero may hold a weak first step
    # (the controller's current alone, a few σ): there the rule stays the plain one.
    s_span = min(4 * block + W_EDGE + W_EDGE - 1, n)
    s_seg = s_span - W_EDGE + 1
    s0 = min(max((first_k - 2) * block, 0), n - s_span)
    lo = max(first_k * block - s0, 0)
    hi = min((first_k + 1) * block - W_EDGE - s0, s_seg - 1)
    hi2 = min((first_k + 2) * block - W_EDGE - s0, s_seg - 1)
    anchor = -1
    thr_back = thr_s
    if pre_edge:
        for j in range(lo, hi2 + 1):
            if _seg4(x, s0 + j) > thr_sa:
                anchor = j
                break
        if anchor > hi:
            edge_mean = _sum(x[first_k * block:(first_k + 1) * block]) / block
            thr_back = max(thr_s, edge_mean + (thr_sa - thr_s))
    if anchor < 0:
        for j in range(lo, hi + 1):
            if _seg4(x, s0 + j) > thr_s:
                anchor = j
                break
    if anchor < 0:
        anchor = _highest_seg4(x, s0, lo, hi)
    last_below = -1
    for j in range(anchor, -1, -1):
        if _seg4(x, s0 + j) <= thr_back:
            last_below = j
            break
    start_idx = min(max(s0 + last_below + W_EDGE, 0), n - 1)

    # End: anchored on the edge block's last average above ``thr_a`` (the end threshold and a
    # margin: in the idle part of the edge block a noise excursion may just cross the end
    # level and carry the end on), then on to the first average at or below the end level.
    e0 = min(max((last_k - 1) * block, 0), n - span)
    lo = max(max(last_k * block, start_idx) - e0, 0)
    hi = min(max((last_k + 1) * block - W_EDGE - e0, lo), n_seg - 1)
    anchor = -1
    for j in range(hi, lo - 1, -1):
        if _seg4(x, e0 + j) > thr_a:
            anchor = j
            break
    if anchor < 0:
        anchor = _highest_seg4(x, e0, lo, hi)
    first_below = n_seg
    for j in range(anchor, n_seg):
        if _seg4(x, e0 + j) <= thr_e:
            first_below = j
            break
    return start_idx, min(max(e0 + first_below - 1, start_idx), n - 1)


@_jit
def _peak(x, start_idx, end_idx, w):
    """Max of the w-sample mean centred on a window sample (alignment as in _smooth) and the
    window's sum: ``(peak_codes, peak_idx, inner)``."""
    n = x.shape[0]
    hw = w // 2
    p_lo = max(start_idx, hw)
    p_hi = min(end_idx, n - w + hw)
    inner = _sum(x[start_idx:end_idx + 1])
    if p_lo <= p_hi:
        s = _sum(x[p_lo - hw:p_lo - hw + w])
        best_s = s
        peak_idx = p_lo
        for p in range(p_lo + 1, p_hi + 1):
            s += x[p - hw + w - 1]
            s -= x[p - hw - 1]
            if s > best_s:
                best_s = s
                peak_idx = p
        return best_s / w, peak_idx, inner
    # a window shorter than the average at the record's edge: its mean is its peak
    return inner / (end_idx - start_idx + 1), start_idx, inner


@_jit
def _clipped(x, start_idx, end_idx, w, n_idle, code_min, code_max):
    """A spike may touch the rail for a sample or two; three or more at the limit in the
    window, or any idle sample (the first ``n_idle``) at either limit, is a clipped record."""
    if not (code_max < np.inf or code_min > -np.inf):
        return False
    n = x.shape[0]
    hw = w // 2
    at_limit = 0
    # Extremes first (reductions that vectorise), counting only when the window reaches the limit.
    a, b = max(start_idx - hw, 0), min(end_idx - hw + w, n)
    if code_max < np.inf and _extremes(x[a:b])[1] >= code_max:
        for i in range(a, b):
            if x[i] >= code_max:
                at_limit += 1
    lowest, highest = _extremes(x[: min(max(1, n_idle), n)])
    return at_limit >= CLIP_SAMPLES or lowest <= code_min or highest >= code_max


@_jit
def _row(x, ym, yo, yz, n_pre, pre_samples, k_trig, block, w, code_min, code_max, bm, above, nxt, integer_codes, diffs, counts, scratch, fo, io):
    """One capture: fills ``fo`` (N_F floats) and ``io`` (N_I ints); returns its flags."""
    nb = bm.shape[0]
    # 1. Levels from the block means.
    flags, n_idle, baseline, sigma_block, post, top, thr_start, thr_end = _levels(
        x, ym, yo, yz, n_pre, pre_samples, block, bm, scratch, integer_codes, diffs, counts)
    # 2. Coarse window in blocks, cut short where a hum's plateau follows the request.
    more, none, first_k, k_hi, last_k = _coarse_window(bm, k_trig, thr_start, thr_end, above, nxt)
    flags |= more
    plateau_hi = -np.inf
    if not none:
        last_k, plateau_hi = _hum_end(bm, k_hi, last_k, post, sigma_block)

    # Idle level just before the request: blocks that end before time zero.
    if k_trig >= LOCAL_BLOCKS:
        local = _median3(bm[min(max(k_trig - 1, 0), nb - 1)], bm[min(max(k_trig - 2, 0), nb - 1)],
                         bm[min(max(k_trig - 3, 0), nb - 1)])
    else:
        local = baseline

    clear = max(max(6 * sigma_block, 0.1 * (top - baseline)), 0.005)
    extra, h_pre, h_post = _bursts(bm, none, first_k, last_k, baseline, post, clear)
    if extra and not none:
        flags |= FLAG_EXTRA_ACTIVITY
    idle_blocks = nb if none else max(first_k - 1, 0) + max(nb - last_k - 3, 0)

    # 3. Edges to the sample.
    margin, sigma_sample = _edge_margin(x, ym, n_idle, integer_codes, diffs, counts, scratch)
    # After the end, the idle level may sit above the record's end level (a hum's crest):
    # the end is where the current reaches the level that follows it.
    after = post
    if not none and last_k + 4 < nb:
        after = _median3(bm[last_k + 2], bm[last_k + 3], bm[last_k + 4])
    thr_s = (max(thr_start, baseline + margin) - yz) / ym + yo
    thr_e = (max(thr_end, post + margin, after + margin, plateau_hi + margin) - yz) / ym + yo
    start_idx, end_idx = _sample_edges(x, block, first_k, last_k, thr_s, thr_e, thr_e + margin / ym,
                                       thr_s + margin / ym, (first_k + 1) * block <= pre_samples)

    # 4. Peak and charge, and the rails.
    peak_codes, peak_idx, inner = _peak(x, start_idx, end_idx, w)
    if _clipped(x, start_idx, end_idx, w, n_idle, code_min, code_max):
        flags |= FLAG_CLIPPED

    fo[F_BASELINE] = baseline
    fo[F_LOCAL] = local
    fo[F_NOISE] = sigma_sample
    fo[F_LEVEL_NOISE] = sigma_block
    fo[F_POST] = post
    fo[F_PEAK_CODES] = peak_codes
    fo[F_INNER_SUM] = inner
    fo[F_IDLE_PEAK] = max(h_pre, h_post)
    fo[F_IDLE_BLOCKS] = idle_blocks
    io[I_START] = start_idx
    io[I_END] = end_idx
    io[I_PEAK] = peak_idx
    return flags


@_jit
def measure_rows(codes, y_mult, y_off, y_zero, n_pre, pre_samples, k_trig, block, w, code_min, code_max, flags, fo, io):
    """Run :func:`_row` over every capture (row) of ``codes``; results into ``fo``/``io``, flags OR-ed in."""
    nb = codes.shape[1] // block
    integer_codes = codes.dtype.kind != "f"  # what a scope sends; float samples come from hand-made arrays
    bm = np.empty(nb)
    above = np.empty(nb, dtype=np.bool_)
    nxt = np.empty(nb, dtype=np.int64)
    diffs = np.empty(SIGMA_HEAD_SAMPLES)
    counts = np.empty(4096, dtype=np.int64)
    scratch = np.empty(SORT_MAX)
    for r in range(codes.shape[0]):
        flags[r] |= _row(codes[r], y_mult[r], y_off[r], y_zero[r], n_pre[r], pre_samples[r], k_trig[r], block, w,
                         code_min[r], code_max[r], bm, above, nxt, integer_codes, diffs, counts, scratch, fo[r], io[r])

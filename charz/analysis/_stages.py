"""The later stages of :func:`charz.analysis.characterize`: reads, read-modify-write,
energy and the Power Budget, and the set-up checks.  Each takes the traces and
their per-capture measurements and returns plain results; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.analysis._energy import PowerBudget, power_budget
from charz.analysis._groups import medians_by
from charz.analysis._quantity import MEASURED, Quantity
from charz.analysis._reads import ReadUnitResult, burst_windows, count_peaks, fit_read_unit, one_unit_duration, pattern_window
from charz.analysis._ripple import RippleView, read_ripple, ripple_unit
from charz.analysis._rmw import GRID_S, RmwResult, detect_rmw, head
from charz.analysis._setup import SetupWarning, check_idle_peaks, check_standby_tail, check_write_cache
from charz.analysis._window import FLAG_CLIPPED, FLAG_NO_ACTIVITY, FLAG_NONFINITE, FLAG_TRUNCATED
from charz.analysis._rmw import head_span


def _values(t) -> np.ndarray:
    return t.waveform.values()


def read_stage(traces, table, page_size_bytes: int | None, host_rate_bytes_per_s: float | None = None) -> tuple[Quantity, ReadUnitResult | None]:
    # A read clipped at the ADC's rail still starts and ends where it did: its edges lie far
    # below the rail, so its duration is kept (a scope range set for the writes clipped 120
    # of 123 reads of one drive, and with them every duration); only its bursts and busy
    # time, read from the flattened top, are not.
    timed = (table.flags & (FLAG_NO_ACTIVITY | FLAG_TRUNCATED | FLAG_NONFINITE)) == 0
    reads = np.flatnonzero((table.op == "read") & (table.usable | timed))
    if reads.size == 0:
        return Quantity.undetermined("B", MEASURED, "no read sweep in this session"), None
    if not page_size_bytes:
        return Quantity.undetermined("B", MEASURED, "the page size is not given"), None
    clipped = (table.flags[reads] & FLAG_CLIPPED) != 0
    sizes = table.size_bytes[reads]
    durations = table.duration_s[reads]
    one_unit = one_unit_duration(sizes, durations)
    dt = float(np.median([traces[i].sample_interval_s for i in reads]))
    window = pattern_window(one_unit, dt)
    # Each read's window as codes (the scaling applied after the median and the sums, exactly).
    rows = np.array([(traces[i].t_first_s, traces[i].sample_interval_s, traces[i].y_mult, traces[i].y_offset_codes,
                      traces[i].y_zero) for i in reads], dtype=np.float64).reshape(-1, 5)
    t_first, step = rows[:, 0], rows[:, 1]
    i0 = np.maximum(0, np.rint((table.start_s[reads] - t_first) / step)).astype(np.int64)
    i1 = np.maximum(i0 + 1, np.rint((table.end_s[reads] - t_first) / step).astype(np.int64) + 1)
    segments = [traces[i].codes[a:b] for i, a, b in zip(reads, i0.tolist(), i1.tolist())]
    scale = rows[:, 2:].T
    bw = burst_windows(segments, window, scale=scale)
    # Two bursts cannot be closer than the time each added page adds to a read (the
    # durations' slope over the sweep: a unit of R pages adds R times that), and never
    # closer than half a one-unit read.  Half of a whole one-unit read alone was too
    # long: it also holds the command latency, the host transfer and the status, which do
    # not repeat per unit, and where those are long it dropped every other burst.
    large = sizes == sizes.max()
    per_page = (np.median(durations[large]) - one_unit) / max(1.0, (sizes.max() - sizes.min()) / page_size_bytes)
    distance = max(1, int(min(0.5 * one_unit, 0.5 * per_page) / dt)) if per_page > 0 else max(1, int(0.5 * one_unit / dt))
    bursts = count_peaks(bw, table.noise_a[reads], distance).astype(np.float64)
    bursts[clipped] = np.nan
    busy_us = np.where(clipped, np.nan, bw.busy * dt * 1e6)
    r = fit_read_unit(sizes, durations, bursts, page_size_bytes, host_rate_bytes_per_s, burst_width=bw.high / bursts,
                      busy_us=busy_us, ripple=lambda: _largest_reads_ripple(segments, rows, sizes, clipped, page_size_bytes))
    counted = "" if not clipped.any() else f"; {int(clipped.sum())} clipped reads timed, their bursts not counted"
    evidence = f"{r.reason} (bursts counted on a {window}-sample moving average{counted})"
    if r.unit_bytes is not None:
        return Quantity(r.unit_bytes, "B", MEASURED, confidence=r.confidence, evidence=evidence), r
    if r.at_least_bytes is not None:
        # more_than_bytes: the same bound in the profile's older form (units are whole pages)
        return Quantity.undetermined(
            "B", MEASURED, f"at least the largest read tried ({r.at_least_bytes} B): {evidence}",
            more_than_bytes=int(r.at_least_bytes) - page_size_bytes, at_least_bytes=int(r.at_least_bytes),
            confidence_of_bound=r.confidence,
        ), r
    return Quantity.undetermined("B", MEASURED, evidence), r


def _largest_reads_ripple(segments, rows, sizes, clipped, page_size_bytes: int) -> RippleView:
    """The ripple view (:func:`ripple_unit`) of the largest reads not clipped (codes to amperes)."""
    largest = int(sizes.max())
    which = np.flatnonzero((sizes == largest) & ~clipped)
    ripples = [read_ripple((segments[i] - rows[i, 3]) * rows[i, 2] + rows[i, 4], rows[i, 1]) for i in which.tolist()]
    return ripple_unit(ripples, largest, page_size_bytes)


def rmw_stage(traces, table, write_unit_bytes: int | None, host_rate_bytes_per_s: float | None = None) -> RmwResult | None:
    writes = np.flatnonzero((table.op == "write") & table.usable)
    reads = np.flatnonzero((table.op == "read") & table.usable)
    if writes.size == 0 or reads.size == 0:
        return None
    smallest = reads[table.size_bytes[reads] == table.size_bytes[reads].min()]
    head_s = 0.5 * float(np.median(table.duration_s[smallest]))
    if not head_s > 4 * GRID_S:
        return None

    def heads(idx):
        return _heads(traces, idx, table.start_s, table.local_baseline_a, head_s)

    read_head = np.median(heads(smallest), axis=0)
    noise = float(np.median(table.noise_a[writes]))
    return detect_rmw(table.size_bytes[writes], heads(writes), read_head, write_unit_bytes, noise,
                      write_durations_s=table.duration_s[writes], read_s=2 * head_s,
                      host_rate_bytes_per_s=host_rate_bytes_per_s)


@dataclass(frozen=True)
class EnergyRow:
    op: str
    size_bytes: int
    energy_j: float  # whole request, idle included
    excess_energy_j: float  # above the idle level before it
    duration_s: float
    count: int


def _head(trace, start_s: float, baseline_a: float, head_s: float) -> np.ndarray:
    """:func:`head` of one capture, converting to amperes only the samples it reads."""
    dt, t_first = trace.sample_interval_s, trace.t_first_s
    lo, hi = head_span(trace.codes.shape[0], dt, start_s, t_first, head_s)
    return head(trace.waveform.values(lo, hi), dt, start_s, t_first, baseline_a, head_s, offset=lo)


def _heads(traces, idx, start_s: np.ndarray, baseline_a: np.ndarray, head_s: float) -> np.ndarray:
    """:func:`_head` of each capture in ``idx`` (rows), bit for bit, in whole-array passes:
    the grid's sample indices as :func:`~charz.analysis._rmw._head_index` computes them, the
    spans as :func:`head_span` takes them, and numpy's ``interp`` rule on a unit-spaced grid
    (left of it the first value, from its last point on the last; on a sample its value;
    else slope × (x − j) + value at j, the slope divided by the grid's step of 1).  Records
    whose span :func:`head_span` cannot place keep :func:`_head`."""
    idx = np.asarray(idx, dtype=np.int64)
    n = int(round(head_s / GRID_S))
    if idx.size == 0 or n < 1:
        return np.array([_head(traces[i], start_s[i], baseline_a[i], head_s) for i in idx])
    ts = [traces[i] for i in idx]
    dt = np.array([t.sample_interval_s for t in ts], dtype=np.float64)
    t_first = np.array([t.t_first_s for t in ts], dtype=np.float64)
    size = np.array([t.codes.shape[0] for t in ts], dtype=np.int64)
    x = (start_s[idx][:, None] + GRID_S * np.arange(n)[None, :] - t_first[:, None]) / dt[:, None]
    if not (np.isfinite(x[:, 0]).all() and np.isfinite(x[:, -1]).all() and (size >= 1).all()):
        return np.array([_head(traces[i], start_s[i], baseline_a[i], head_s) for i in idx])
    lo = np.minimum(np.maximum(0, np.floor(x[:, 0])), size - 1).astype(np.int64)
    hi = np.minimum(np.maximum(lo + 1, np.floor(x[:, -1]) + 2), size).astype(np.int64)
    codes = np.concatenate([t.codes[a:b] for t, a, b in zip(ts, lo.tolist(), hi.tolist())])
    m = hi - lo
    first = np.cumsum(m) - m
    rep = lambda v: np.repeat(v, m)  # noqa: E731
    values = (codes.astype(np.float64) - rep(np.array([t.y_offset_codes for t in ts], dtype=np.float64))) \
        * rep(np.array([t.y_mult for t in ts], dtype=np.float64)) + rep(np.array([t.y_zero for t in ts], dtype=np.float64))
    x -= lo[:, None]  # exact, as in head()
    last = (m - 1)[:, None]
    j = np.clip(np.floor(x), 0, last).astype(np.int64)
    at = first[:, None] + j
    y0 = values[at]
    y1 = values[np.minimum(j + 1, last) + first[:, None]]
    out = (y1 - y0) * (x - j) + y0
    out = np.where(x == j, y0, out)
    out = np.where(x < 0, values[first][:, None], out)
    out = np.where(x >= last, values[first + m - 1][:, None], out)
    return out - baseline_a[idx][:, None]


def energy_stage(traces, table, rail_v: float | None) -> tuple[EnergyRow, ...]:
    """Median energy per request size, from a measured voltage when the traces carry one."""
    rows = []
    usable = table.usable & np.isfinite(table.duration_s)
    for op in ("write", "read"):
        idx = np.flatnonzero(usable & (table.op == op))
        if idx.size == 0:
            continue
        volts = np.array([traces[i].voltage_v if traces[i].voltage_v is not None else (rail_v or np.nan) for i in idx])
        if np.all(np.isnan(volts)):
            continue
        duration = table.duration_s[idx]
        # charge_c is measured above the pre-trigger idle level (baseline_a).
        mean_active = table.baseline_a[idx] + table.charge_c[idx] / np.maximum(duration, 1e-12)
        energy = volts * mean_active * duration
        excess = volts * table.charge_c[idx]
        sizes, group, counts = np.unique(table.size_bytes[idx], return_inverse=True, return_counts=True)
        e_med = medians_by(group, counts, energy, np.nanmedian)
        x_med = medians_by(group, counts, excess, np.nanmedian)
        d_med = medians_by(group, counts, duration, np.median)
        for g, size in enumerate(sizes):
            rows.append(EnergyRow(op, int(size), float(e_med[g]), float(x_med[g]), float(d_med[g]), int(counts[g])))
    return tuple(rows)


def budget_stage(levels_a: np.ndarray | None, packages_per_unit: int | None) -> PowerBudget | None:
    if levels_a is None or packages_per_unit is None or len(levels_a) == 0:
        return None
    return power_budget(np.asarray(levels_a), packages_per_unit)


def setup_stage(table) -> tuple[SetupWarning, ...]:
    ok = table.usable
    writes = ok & (table.op == "write")
    found = [
        check_idle_peaks(table.idle_peak_a[ok], table.idle_time_s[ok], table.level_noise_a[ok]),
        check_write_cache(table.size_bytes[writes], table.duration_s[writes]) if writes.any() else None,
        check_standby_tail(table.baseline_a[ok], table.post_a[ok], table.level_noise_a[ok]),
    ]
    return tuple(w for w in found if w is not None)


__all__ = ["read_stage", "rmw_stage", "energy_stage", "budget_stage", "setup_stage", "EnergyRow"]

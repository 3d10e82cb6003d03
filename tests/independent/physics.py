"""Supply current of one request, and what a real bench adds to it.

The controller's walk follows 003 §4.2: the channel a package hangs on is busy for
its register transfer, the next package is selected a channel-switch delay later,
and a package programs after its transfer.  Dies of a package take one page each
and program concurrently; the package draws one program current while any of its
dies is busy (003 §4.1: their peaks do not add).  Reads show one burst per read
unit (003 §4.1, Fig. 9) on the controller's busy level.

The bench nuisances are those of a current probe on a real drive: per-package
program current spread, ISPP ripple, lower/upper page program times, 50 Hz hum,
noise correlated over a few samples, rare spikes, 8-bit quantisation and trigger
jitter.

Issue 22 adds what a real bench showed and the first draft left out (each a switch on
the drive, ``drive.NUISANCES``):

* **transfer current** — NAND I/O toggling draws current on a channel while a page
  moves to a package, before that package programs; 20–70 % of one package's program
  current, per busy channel.  A one-unit write then rises at every transfer and again
  at every program start.
* **read shoulder** — the controller stays busy through the whole read; each array-read
  burst (+13–32 mA, 50–70 µs) is followed by the transfer of what it read, out of the
  package over its channel at the transfer current, so between bursts the level sits
  on a shoulder instead of falling back to the busy level.
* **per-page read** — the read unit is one page and every page takes the same time:
  the duration grows by one step per page, with no treads.
* **die interleave** — the busy dies of one package take turns in the package's ISPP
  charge pump (003 §4.2: "packages perform programming in an interleaved manner"): the
  package draws one program current whatever the number of busy dies, and the pump's
  sawtooth runs faster by the number of dies it serves.
* **slow sampling** — 2 or 4 µs per sample for writes and for reads.
* **bench noise** — white noise σ 2.5–7 mA (a probe at a bench showed ≈ 6 mA).
* **coarse scope** — the 8-bit screen set with the busiest moment anywhere from 40 to
  90 % of full scale (a person rarely sets it exactly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tests.independent.drive import Drive


@dataclass(frozen=True)
class Bench:
    noise_a: float = 0.0025  # white noise σ before the 3-sample correlation
    hum_a: float = 0.003  # 50 Hz amplitude
    spikes_per_capture: float = 0.4
    jitter_us: float = 3.0
    write_dt_s: float = 2e-6
    read_dt_s: float = 4e-6
    n_samples: int = 10_000
    pre_fraction: float = 0.1

    def scaled(self, k: float) -> "Bench":
        return Bench(self.noise_a * k, self.hum_a * k, self.spikes_per_capture, self.jitter_us,
                     self.write_dt_s, self.read_dt_s, self.n_samples, self.pre_fraction)

    @classmethod
    def of(cls, drive: Drive) -> "Bench":
        """The bench a drive is measured on: its sample intervals and noise."""
        return cls(noise_a=drive.noise_a, write_dt_s=drive.write_dt_us * 1e-6, read_dt_s=drive.read_dt_us * 1e-6)


@dataclass
class Activity:
    """Intervals (µs from the host's request) of what draws current."""

    busy: tuple[float, float]
    programs: list[tuple[int, float, float]]  # (package, start, end)
    transfers: list[tuple[float, float]]
    bursts: list[tuple[float, float]]
    die_programs: list[tuple[int, float, float]] = field(default_factory=list)  # (package, start, end) per die


class DriveState:
    """Per-drive hidden constants that stay the same from request to request."""

    def __init__(self, drive: Drive):
        rng = np.random.default_rng([drive.seed, 77])
        self.drive = drive
        self.pkg_gain = 1.0 + drive.i_prog_spread * rng.uniform(-1.0, 1.0, drive.packages)
        # lower pages program fast, upper pages slow (MLC): alternate by page index
        self.cursor = 0  # where a log-structured controller continues its walk


def write_activity(state: DriveState, size_bytes: int, rng: np.random.Generator) -> Activity:
    d = state.drive
    pages = int(math.ceil(size_bytes / d.page_bytes))
    units = int(math.ceil(pages / d.unit_pages))
    order = d.walk_order()
    pkg_index = {cw: i for i, cw in enumerate(order)}
    start_at = d.t_latency_us
    t = start_at
    transfers: list[tuple[float, float]] = []
    bursts: list[tuple[float, float]] = []
    if d.rmw and pages % d.unit_pages:
        # read the rest of the partial unit before anything is programmed (003 Fig. 16)
        t_read = d.t_read_us * rng.uniform(0.95, 1.05)
        bursts.append((t, t + t_read))
        t_out = (d.unit_pages - pages % d.unit_pages) * d.t_xfer_page_us
        if d.read_shoulder:  # what was read leaves the package over a channel
            transfers.append((t + t_read, t + t_read + t_out))
        t += t_read + t_out
    chan_free = np.zeros(d.channels)
    pkg_free = np.zeros(d.packages)
    cursor = t
    programs: list[tuple[int, float, float]] = []
    die_programs: list[tuple[int, float, float]] = []
    page_no = 0
    host_page_us = d.page_bytes / d.host_mb_s  # bytes / (MB/s) = µs
    slot = 0
    for u in range(units):
        unit_transfer_end = cursor
        for k in range(d.packages_per_unit):
            c, w = order[slot % d.packages]
            slot += 1
            p = pkg_index[(c, w)]
            arrival = start_at + (page_no + d.dies) * host_page_us
            start = max(cursor, chan_free[c], pkg_free[p], arrival)
            xfer = d.dies * d.t_xfer_page_us
            transfers.append((start, start + xfer))
            chan_free[c] = start + xfer
            cursor = start + d.t_switch_us
            ends = []
            for die in range(d.dies):
                arrive = start + (die + 1) * d.t_xfer_page_us
                upper = (page_no + die) % 2
                spread = d.t_prog_spread * (1.0 if upper else -1.0) * rng.uniform(0.5, 1.0)
                ends.append(arrive + d.t_prog_us * (1.0 + spread))
                die_programs.append((p, arrive, ends[-1]))
            prog_start, prog_end = start + d.t_xfer_page_us, max(ends)
            programs.append((p, prog_start, prog_end))
            pkg_free[p] = prog_end
            page_no += d.dies
            unit_transfer_end = max(unit_transfer_end, start + xfer)
        if d.in_order:
            cursor = max(cursor, unit_transfer_end)
    end = max(e for _, _, e in programs) + rng.uniform(8.0, 20.0)
    return Activity((d.t_latency_us * 0.5, end), programs, transfers, bursts, die_programs)


def read_activity(state: DriveState, size_bytes: int, rng: np.random.Generator) -> Activity:
    d = state.drive
    pages = int(math.ceil(size_bytes / d.page_bytes))
    n = int(math.ceil(pages / d.read_unit_pages))
    t = d.t_latency_us
    bursts, transfers = [], []
    out_us = d.read_unit_pages * d.page_bytes / d.host_mb_s
    xfer_us = d.read_unit_pages * d.t_xfer_page_us
    for _ in range(n):
        # per-page read: the same sensing time and gap for every page, so the duration
        # grows by one fixed step per page
        tr = d.t_read_us * (1.0 if d.per_page_read else rng.uniform(0.93, 1.07))
        bursts.append((t, t + tr))
        t += tr
        if d.read_shoulder:
            # the unit just sensed moves out of the package over its channel (NAND I/O
            # toggling at the transfer current) on its way to the host
            transfers.append((t, t + xfer_us))
        # 003 §4.1: after sensing, the array drops to standby while the data moves to the
        # host, so the controller's busy level (and the channel, while it moves) remains
        t += max(xfer_us, out_us) + (5.5 if d.per_page_read else rng.uniform(3.0, 8.0))
    return Activity((d.t_latency_us * 0.5, t + rng.uniform(5.0, 15.0)), [], transfers, bursts)


def _box(t_us: np.ndarray, a: float, b: float) -> np.ndarray:
    return (t_us >= a) & (t_us < b)


def current(state: DriveState, act: Activity, t_us: np.ndarray) -> np.ndarray:
    """Noise-free supply current (A) at times ``t_us`` after the request."""
    d = state.drive
    i = np.full(t_us.shape, d.i_idle)
    i += d.i_busy * _box(t_us, *act.busy)
    for a, b in act.transfers:
        i += d.i_xfer * _box(t_us, a, b)
    for a, b in act.bursts:
        i += d.i_burst * _box(t_us, a, b)
    if d.die_interleave and act.die_programs:
        return i + _interleaved_programs(state, act, t_us)
    for p, a, b in act.programs:
        on = _box(t_us, a, b)
        if not on.any():
            continue
        # ISPP: each program pulse ramps and drops, a sawtooth on the program current
        phase = ((t_us[on] - a) / d.ripple_period_us) % 1.0
        saw = d.ripple * (phase - 0.5) * 2.0
        i[on] += d.i_prog * state.pkg_gain[p] * (1.0 + saw)
    return i


def _interleaved_programs(state: DriveState, act: Activity, t_us: np.ndarray) -> np.ndarray:
    """Program current of packages whose busy dies take turns in one charge pump.

    While k ≥ 1 dies of a package program, the pump serves them in turn: the package
    draws one program current (the dies' peaks do not add) and its ISPP sawtooth
    advances k times as fast, since each die still gets its pulse once per period."""
    d = state.drive
    out = np.zeros(t_us.shape)
    dt = float(t_us[1] - t_us[0]) if t_us.size > 1 else 1.0
    for p in sorted({q for q, _, _ in act.die_programs}):
        busy = np.zeros(t_us.shape)
        for q, a, b in act.die_programs:
            if q == p:
                busy += _box(t_us, a, b)
        on = busy > 0
        if not on.any():
            continue
        phase = (np.cumsum(busy) * dt / d.ripple_period_us) % 1.0
        saw = d.ripple * (phase - 0.5) * 2.0
        out[on] += d.i_prog * state.pkg_gain[p] * (1.0 + saw[on])
    return out


def nuisances(clean: np.ndarray, dt_s: float, bench: Bench, rng: np.random.Generator) -> np.ndarray:
    n = clean.size
    white = rng.normal(0.0, bench.noise_a, n + 2)
    corr = (white[:-2] + white[1:-1] + white[2:]) / math.sqrt(3.0)
    t = np.arange(n) * dt_s
    hum = bench.hum_a * np.sin(2 * math.pi * 50.0 * t + rng.uniform(0, 2 * math.pi))
    out = clean + corr + hum
    for _ in range(rng.poisson(bench.spikes_per_capture)):
        k = int(rng.integers(0, n - 2))
        out[k:k + int(rng.integers(1, 3))] += rng.uniform(0.05, 0.15) * rng.choice([-1.0, 1.0], p=[0.2, 0.8])
    return out


def full_scale_a(drive: Drive) -> float:
    """Volts/div set so the busiest moment sits near ``screen_fill`` (70 % unless the coarse
    scope nuisance moved it) of the screen, as a person sets it."""
    busiest = drive.i_idle + drive.i_busy + drive.channels * drive.i_xfer + drive.packages * drive.i_prog * 1.15 * (1 + drive.ripple)
    return busiest / drive.screen_fill


def quantise(amps: np.ndarray, fs_a: float) -> tuple[np.ndarray, float, float]:
    """8-bit codes with 0 A near the bottom of the screen: (codes, y_mult, y_offset_codes)."""
    y_mult = fs_a / 250.0
    offset = -120.0
    codes = np.clip(np.round(amps / y_mult + offset), -128, 127).astype(np.int8)
    return codes, y_mult, offset

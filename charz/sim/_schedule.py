"""What the simulated drive does, and when, for one host request.

This is the simulated firmware and NAND: it splits a request into I/O units,
places each unit's pages on packages (one page per die), and schedules every
page transfer and every die's program on channels and packages, page by page.
It is deliberately more detailed than the latency recurrence of
``charz.analysis._latency`` (dies start programming as soon as their own page
is in, program times differ between lower and upper pages, host data arrives
at the link rate); for uniform program times the two agree exactly, which the
tests check.

Times are microseconds from the moment the host issued the request.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from charz.sim._model import DriveModel, ceil_div, pages_touched
from charz.sim._walk import package_walk

# Interval kinds; the renderer turns each into current.
CONTROLLER = 0
TRANSFER = 1
PROGRAM = 2
READ = 3


@dataclass
class Intervals:
    """Append-only list of (start, end, amperes, kind, package) rows."""

    t0_us: list[float] = field(default_factory=list)
    t1_us: list[float] = field(default_factory=list)
    amps: list[float] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)
    package: list[int] = field(default_factory=list)

    def add(self, t0: float, t1: float, amps: float, kind: int, package: int = -1) -> None:
        if t1 > t0:
            self.t0_us.append(t0)
            self.t1_us.append(t1)
            self.amps.append(amps)
            self.kind.append(kind)
            self.package.append(package)

    def arrays(self):
        return (
            np.asarray(self.t0_us, dtype=np.float64),
            np.asarray(self.t1_us, dtype=np.float64),
            np.asarray(self.amps, dtype=np.float64),
            np.asarray(self.kind, dtype=np.int8),
            np.asarray(self.package, dtype=np.int32),
        )


@dataclass(frozen=True)
class Activity:
    """Everything the drive did for one request; what the renderer draws."""

    op: str
    size_bytes: int
    offset_bytes: int
    intervals: tuple  # arrays from Intervals.arrays()
    end_us: float  # last NAND/controller activity of the request
    nand_start_us: float  # first register transfer (writes) or first tR (reads)
    rmw_read_us: float  # length of the read-modify-write read phase, 0 if none
    visits: int  # package visits (writes)
    bursts: int  # read bursts (reads)
    tail_from_us: float  # when the post-I/O tail current starts
    cached: bool = False


class DriveState:
    """What persists between requests: each die's page counter (lower/upper pages),
    and each package's program current (process variation, fixed per drive)."""

    def __init__(self, model: DriveModel, seed: int = 0):
        g = model.geometry
        self.pages_programmed = np.zeros((g.packages, g.dies_per_package), dtype=np.int64)
        rng = np.random.default_rng([seed, 0x5EED])
        spread = model.currents.package_spread
        self.package_scale = 1.0 + spread * rng.uniform(-1.0, 1.0, g.packages)


def _walk(model: DriveModel, n: int) -> tuple[list[int], list[int]]:
    """Channel and package id (channel × ways + way) of the first ``n`` package visits."""
    g, f = model.geometry, model.firmware
    pairs = package_walk(g.channels, g.ways, f.block_channels, f.block_ways, f.order, n)
    return [c for c, _ in pairs], [c * g.ways + w for c, w in pairs]


def _unit_packages(model: DriveModel, unit_index: int) -> list[tuple[int, int]]:
    """(channel, package) for each package of the ``unit_index``-th unit of a request."""
    k = model.packages_per_unit
    ch, pkg = _walk(model, (unit_index + 1) * k)
    return list(zip(ch[-k:], pkg[-k:]))


def schedule_write(
    model: DriveModel,
    state: DriveState,
    size_bytes: int,
    offset_bytes: int,
    rng: np.random.Generator,
    *,
    write_cache: bool = False,
) -> Activity:
    g, f, t, c = model.geometry, model.firmware, model.timing, model.currents
    iv = Intervals()
    host_us_per_byte = 1e6 / t.host_rate_bytes_per_s
    if write_cache:
        # The data only goes to DRAM; NAND is programmed later, outside any capture.
        end = t.t_cmd_us + size_bytes * host_us_per_byte + t.t_done_us
        iv.add(t.t_wake_us, end, c.controller_a, CONTROLLER)
        iv.add(t.t_cmd_us, end - t.t_done_us, c.transfer_a, TRANSFER)
        return Activity("write", size_bytes, offset_bytes, iv.arrays(), end, end, 0.0, 0, 0, end, cached=True)

    unit = f.write_io_unit_bytes
    first_unit, n_units = pages_touched(offset_bytes, size_bytes, unit)
    missing = n_units * unit - size_bytes  # bytes the controller must read to fill whole units
    t_nand = t.t_cmd_us
    rmw_us = 0.0
    if missing:
        # Read-modify-write: the partial unit is completed from flash before anything is
        # programmed, exactly as a read of that unit starts (003 Fig. 16), but only the
        # missing pages move, so the read phase shrinks as the write grows.
        partial_pkgs = _unit_packages(model, n_units - 1)
        missing_pages = ceil_div(missing, g.page_size_bytes)
        chans = len({ch for ch, _ in partial_pkgs})
        rmw_us = t.t_read_us + missing_pages * t.t_xfer_page_us / chans
        for _, p in partial_pkgs:
            iv.add(t_nand, t_nand + t.t_read_us, c.read_per_package_a, READ, p)
        iv.add(t_nand + t.t_read_us, t_nand + rmw_us, c.transfer_a * chans, TRANSFER)
        t_nand += rmw_us

    dies = g.dies_per_package
    k = model.packages_per_unit
    visit_bytes = dies * g.page_size_bytes
    ch_free: dict[int, float] = {}
    pkg_free: dict[int, float] = {}
    cursor = t_nand
    end = t_nand
    host_bytes = 0
    n_visits = n_units * k
    chans, pkgs = _walk(model, n_visits)
    pkg_scale = state.package_scale
    first_start = None
    for i in range(n_visits):
        ch, p = int(chans[i]), int(pkgs[i])
        host_bytes = min(size_bytes, host_bytes + visit_bytes)
        ready = t.t_cmd_us + host_bytes * host_us_per_byte
        start = max(cursor, ch_free.get(ch, 0.0), pkg_free.get(p, 0.0), ready)
        if first_start is None:
            # The selection cursor starts with the first transfer, which waits for the host's first data.
            first_start = start
        cursor = start + t.t_switch_us
        die_end = start
        for d in range(dies):
            x0 = start + d * t.t_xfer_page_us
            x1 = x0 + t.t_xfer_page_us
            iv.add(x0, x1, c.transfer_a, TRANSFER, p)
            n_done = state.pages_programmed[p, d]
            state.pages_programmed[p, d] += 1
            upper = n_done % 2 == 1
            tprog = t.t_prog_us * (1 + t.t_prog_spread if upper else 1 - t.t_prog_spread)
            tprog *= 1 + t.t_prog_jitter * rng.standard_normal()
            # Each die starts programming as soon as its own page is in its register.
            die_end = max(die_end, x1 + tprog)
        ch_free[ch] = start + dies * t.t_xfer_page_us
        # The package draws program current while any of its dies programs; the dies
        # interleave their pulses, so the package current does not scale with dies.
        iv.add(start + t.t_xfer_page_us, die_end, c.program_per_package_a * pkg_scale[p], PROGRAM, p)
        pkg_free[p] = die_end
        end = max(end, die_end)
    iv.add(t.t_wake_us, end + t.t_done_us, c.controller_a, CONTROLLER)
    return Activity(
        "write",
        size_bytes,
        offset_bytes,
        iv.arrays(),
        end + t.t_done_us,
        first_start,
        rmw_us,
        n_visits,
        0,
        end + t.t_done_us,
    )


def schedule_read(model: DriveModel, size_bytes: int, offset_bytes: int) -> Activity:
    g, f, t, c = model.geometry, model.firmware, model.timing, model.currents
    iv = Intervals()
    unit = f.read_io_unit_bytes
    _, n_bursts = pages_touched(offset_bytes, size_bytes, unit)
    unit_pages = unit // g.page_size_bytes
    pkgs = min(g.packages, ceil_div(unit_pages, g.dies_per_package))
    chans = min(g.channels, pkgs)
    host_us_per_byte = 1e6 / t.host_rate_bytes_per_s
    tt = t.t_cmd_us
    for b in range(n_bursts):
        # One read I/O unit: the packages sense it (tR), then the flash power drops while
        # the data moves to the host (003 §4.1), so each unit draws one burst.
        for p in range(pkgs):
            iv.add(tt, tt + t.t_read_us, c.read_per_package_a, READ, p)
        tt += t.t_read_us
        out_us = max(unit_pages * t.t_xfer_page_us / chans, min(unit, size_bytes) * host_us_per_byte)
        iv.add(tt, tt + out_us, c.transfer_a * chans, TRANSFER)
        tt += out_us
    end = tt + t.t_done_us
    iv.add(t.t_wake_us, end, c.controller_a, CONTROLLER)
    return Activity("read", size_bytes, offset_bytes, iv.arrays(), end, t.t_cmd_us, 0.0, 0, n_bursts, end)



"""One SSD: its NAND parts (datasheet currents and times), its geometry, its controller.

Geometry in paper 003's terms: packages on channels × ways, dies per package, a write
unit of one page per die on each of ``unit_packages`` packages, taken in a walk order
(channels first or ways first), a read unit of ``read_pages`` pages.  What a right
profile says about it is ``Ssd.truth()``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

KIB = 1024
CHANNELS_FIRST = "channel-priority"
WAYS_FIRST = "way-priority"
SEPARATE_CHANNELS = "channel-only"


@dataclass(frozen=True)
class Ssd:
    seed: int
    # geometry
    channels: int
    ways: int
    dies: int
    page_bytes: int
    unit_packages: int
    read_pages: int
    walk: str
    rmw: bool
    # controller
    dispatch: str  # "package-major": all dies of a package, then the next; "die-major": one page per package in turn
    cache_program: bool
    cache_read: bool
    # NAND timing (µs)
    t_io_page_us: float  # one page over the channel at the interface rate
    t_cmd_us: float  # command + address cycles before each page
    t_select_us: float  # the controller moving to another package
    t_prog_us: float  # datasheet tPROG typ
    page_types: tuple[float, ...]  # tPROG multiplier of each page type (LSB, MSB[, CSB])
    t_read_us: float  # tR
    t_erase_us: float
    t_host_us: float  # command latency before the first page is in the buffer
    host_mb_s: float
    t_status_us: float  # last status poll → completion
    # currents (A)
    i_idle: float
    i_ctrl: float  # controller while a request is in flight
    i_host: float  # host link DMA while data crosses it
    icc1: float  # array read, per die sensing
    icc2: float  # program, per package
    icc3: float  # erase
    icc4: float  # I/O toggling on one channel
    pkg_spread: float  # per-package current spread (fraction)
    ispp_depth: float  # program pulse vs verify, fraction of icc2
    ispp_period_us: float
    ispp_duty: float
    # bench
    dt_us: float
    adc_bits: int
    noise_a: float
    drift_a: float  # slow (1/f-like) wander
    hum_a: float
    hum_hz: float
    bandwidth_tau_us: float  # probe / amplifier low-pass
    jitter_us: float
    erase_rate: float  # chance per capture of a background block erase
    repeats: int
    give_timing: bool

    @property
    def packages(self) -> int:
        return self.channels * self.ways

    @property
    def unit_pages(self) -> int:
        return self.dies * self.unit_packages

    @property
    def unit_bytes(self) -> int:
        return self.unit_pages * self.page_bytes

    @property
    def rounds(self) -> int:
        """Units that fit on distinct packages before the walk returns to the first."""
        return self.packages // self.unit_packages

    def order(self, walk: str | None = None) -> list[tuple[int, int]]:
        """(channel, way) in the order the controller takes packages."""
        if (walk or self.walk) == WAYS_FIRST:
            return [(c, w) for c in range(self.channels) for w in range(self.ways)]
        return [(c, w) for w in range(self.ways) for c in range(self.channels)]

    def scheme(self) -> str | None:
        """003 Fig. 4's name for where one unit's packages sit; None when no name fits
        (one package per unit, or both walks give the same packages in the same order)."""
        if self.unit_packages == 1:
            return None
        mine = self.order()[: self.unit_packages]
        if len({c for c, _ in mine}) == len(mine):
            return SEPARATE_CHANNELS
        other = self.order(WAYS_FIRST if self.walk == CHANNELS_FIRST else CHANNELS_FIRST)[: self.unit_packages]
        return None if other == mine else self.walk

    def truth(self) -> dict:
        return {
            "n_step": self.rounds,
            "step_pages": self.unit_pages,
            "dies_per_package": self.dies,
            "write_io_unit_bytes": self.unit_bytes,
            "read_io_unit_bytes": self.read_pages * self.page_bytes,
            "allocation_scheme": self.scheme(),
            "rmw": self.rmw if self.unit_pages > 1 else None,
        }

    def write_sizes(self) -> list[int]:
        top = max(160 * KIB, (self.rounds + 1) * self.unit_bytes)
        return list(range(self.page_bytes, top + 1, self.page_bytes))

    def read_sizes(self) -> list[int]:
        return list(range(self.page_bytes, 160 * KIB + 1, self.page_bytes)) + [512 * KIB]

    def to_json(self) -> dict:
        return asdict(self)


def random_ssd(seed: int) -> Ssd:
    r = np.random.default_rng([seed, 5151])
    while True:
        channels = int(r.choice([1, 2, 2, 4, 4, 4, 8, 8, 16]))
        ways = int(r.choice([1, 2, 2, 4, 4, 8]))
        dies = int(r.choice([1, 1, 2, 2, 4, 8]))
        page = int(r.choice([4, 8, 16])) * KIB
        packages = channels * ways
        if packages < 2 or packages > 32:
            continue
        spans = [u for u in (2, 4, 8, 16) if packages % u == 0 and u < packages]
        # most controllers stripe a unit over several packages; some keep it on one
        ppu = int(r.choice(spans)) if spans and r.random() < 0.8 else 1
        rounds = packages // ppu
        # the sweep (page steps to one unit past every package busy) stays a bench's size
        if (rounds + 1) * ppu * dies > 128 or packages * dies * page > 2048 * KIB:
            continue
        break
    mlc = r.random()
    if mlc < 0.25:  # SLC: one page type
        t_prog, types = r.uniform(200, 500), (1.0,)
    elif mlc < 0.8:  # MLC: lower page fast, upper page slow
        t_prog = r.uniform(600, 1800)
        lo = r.uniform(0.55, 0.85)
        types = (lo, 2.0 - lo)
    else:  # TLC: three page types
        t_prog = r.uniform(900, 2500)
        a = r.uniform(0.5, 0.8)
        types = (a, 1.0, 2.0 - a)
    io_mb_s = {4 * KIB: r.uniform(33, 166), 8 * KIB: r.uniform(100, 266), 16 * KIB: r.uniform(166, 533)}[page]
    icc2 = r.uniform(0.012, 0.050)
    return Ssd(
        seed=seed,
        channels=channels,
        ways=ways,
        dies=dies,
        page_bytes=page,
        unit_packages=ppu,
        read_pages=int(r.choice([1, 1, 2, 4, 8])),
        walk=WAYS_FIRST if r.random() < 0.5 else CHANNELS_FIRST,
        rmw=bool(r.random() < 0.4),
        dispatch="die-major" if r.random() < 0.5 else "package-major",
        cache_program=bool(r.random() < 0.5),
        cache_read=bool(r.random() < 0.35),
        t_io_page_us=float(page / io_mb_s),
        t_cmd_us=float(r.uniform(0.5, 5.0)),
        t_select_us=float(r.uniform(5.0, 60.0)),
        t_prog_us=float(t_prog),
        page_types=tuple(float(x) for x in types),
        t_read_us=float(r.uniform(25.0, 90.0)),
        t_erase_us=float(r.uniform(1500.0, 5000.0)),
        t_host_us=float(r.uniform(8.0, 80.0)),
        host_mb_s=float(r.choice([150.0, 300.0, 550.0, 1000.0, 2000.0])),
        t_status_us=float(r.uniform(3.0, 25.0)),
        i_idle=float(r.uniform(0.03, 0.30)),
        i_ctrl=float(r.uniform(0.015, 0.10)),
        i_host=float(r.uniform(0.0, 0.02)),
        icc1=float(r.uniform(0.008, 0.040)),
        icc2=float(icc2),
        icc3=float(icc2 * r.uniform(0.7, 1.2)),
        icc4=float(icc2 * r.uniform(0.15, 0.8)),
        pkg_spread=float(r.uniform(0.0, 0.2)),
        ispp_depth=float(r.uniform(0.05, 0.35)),
        ispp_period_us=float(r.uniform(8.0, 35.0)),
        ispp_duty=float(r.uniform(0.4, 0.75)),
        dt_us=float(r.choice([1.0, 2.0, 2.0, 4.0])),
        adc_bits=int(r.choice([8, 8, 10, 12])),
        noise_a=float(r.uniform(0.001, 0.008)),
        drift_a=float(r.uniform(0.0, 0.003)),
        hum_a=float(r.uniform(0.0, 0.005)),
        hum_hz=float(r.choice([50.0, 60.0])),
        bandwidth_tau_us=float(r.uniform(0.0, 3.0)),
        jitter_us=float(r.uniform(0.0, 6.0)),
        erase_rate=float(r.choice([0.0, 0.0, 0.02, 0.05])),
        repeats=int(r.choice([3, 4, 5])),
        give_timing=bool(r.random() < 0.75),
    )


def pages_of(size_bytes: int, page_bytes: int) -> int:
    return int(math.ceil(size_bytes / page_bytes))

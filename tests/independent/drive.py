"""A random drive as paper 003 describes one, and the answers a profile should give.

Written from 003's text (§2, §4.1, §4.2, §5) alone: packages on channels and ways,
dies that program concurrently inside a package without adding to its peak
("program operation perform programming in an interleaved manner"), a write I/O unit
of one page per die over one or more packages, a read I/O unit whose array reads show
as bursts, and a controller that walks packages channel first or way first.  Nothing
here comes from charz: not its simulator's presets, not its analysis's names.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

KIB = 1024
CHANNEL_FIRST = "channel-priority"
WAY_FIRST = "way-priority"
ONE_WAY = "channel-only"


@dataclass(frozen=True)
class Drive:
    seed: int
    channels: int
    ways: int
    dies: int
    page_bytes: int
    packages_per_unit: int
    read_unit_pages: int
    walk: str  # CHANNEL_FIRST or WAY_FIRST (ONE_WAY when ways == 1)
    in_order: bool  # the next unit waits for the previous unit's transfers
    rmw: bool  # a write below the unit reads the rest of the unit first
    # timing, µs
    t_xfer_page_us: float  # one page over a channel
    t_switch_us: float  # selecting the next package
    t_prog_us: float  # nominal program time of a page
    t_prog_spread: float  # lower/upper page spread (fraction)
    t_read_us: float  # array read of a read unit (the burst)
    t_latency_us: float  # host command → controller starts
    host_mb_s: float  # interface rate, MB/s
    # current, A
    i_idle: float
    i_busy: float  # controller while a request is in flight (above idle)
    i_xfer: float  # a busy channel
    i_prog: float  # one programming package, nominal
    i_prog_spread: float  # per-package spread (fraction)
    i_burst: float  # an array read above the busy level
    ripple: float  # ISPP sawtooth, fraction of the program current
    ripple_period_us: float
    # bench nuisances of issue 22 (physics.py says what each does); off = the drive as first written
    read_shoulder: bool = False  # each read burst is followed by its transfer at i_xfer
    per_page_read: bool = False  # every page of a read takes the same time (no jitter)
    die_interleave: bool = False  # busy dies of a package take turns in the ISPP pump
    write_dt_us: float = 2.0  # scope sample interval of write captures
    read_dt_us: float = 4.0  # ... and of read captures
    noise_a: float = 0.0025  # white noise σ (before ×noise)
    screen_fill: float = 0.7  # the busiest moment's place on the 8-bit screen

    @property
    def packages(self) -> int:
        return self.channels * self.ways

    @property
    def unit_pages(self) -> int:
        return self.dies * self.packages_per_unit

    @property
    def unit_bytes(self) -> int:
        return self.unit_pages * self.page_bytes

    @property
    def groups(self) -> int:
        """Units that program at once before the walk wraps onto busy packages."""
        return self.packages // self.packages_per_unit

    def walk_order(self) -> list[tuple[int, int]]:
        """(channel, way) of every package in the order the controller takes them."""
        if self.walk == WAY_FIRST:
            return [(c, w) for c in range(self.channels) for w in range(self.ways)]
        return [(c, w) for w in range(self.ways) for c in range(self.channels)]

    def unit_scheme(self) -> str | None:
        """003 §4.2's name for how one unit's packages sit (Fig. 4), ``None`` for one package.

        (a) channel priority: the unit spans ways, channels taken first; (c) way
        priority: packages of one channel taken first; (e) channel only: every package
        of the unit on its own channel.
        """
        if self.packages_per_unit == 1:
            return None
        unit = self.walk_order()[: self.packages_per_unit]
        if len({c for c, _ in unit}) == len(unit):
            return ONE_WAY
        return self.walk

    def truth(self) -> dict:
        """What a right profile says.  ``None``: the field has no defined answer."""
        return {
            "n_step": self.groups,
            "step_pages": self.unit_pages,
            "dies_per_package": self.dies,
            "write_io_unit_bytes": self.unit_bytes,
            "read_io_unit_bytes": self.read_unit_pages * self.page_bytes,
            "allocation_scheme": self.unit_scheme(),
            "rmw": self.rmw if self.unit_pages > 1 else None,
        }

    def to_json(self) -> dict:
        return asdict(self)


NUISANCES = ("transfer_current", "read_shoulder", "per_page_read", "die_interleave", "slow_sampling",
             "bench_noise", "coarse_scope")


def random_drive(seed: int, nuisances: str | dict[str, bool] = "random") -> Drive:
    """Drives of the kind a bench meets: 4–16 packages, 1–4 dies, 4/8/16 KiB pages.

    ``nuisances``: ``"random"`` (each of ``NUISANCES`` on with probability ½, drawn from its
    own stream so the drive's geometry does not depend on it), ``"none"``, ``"all"``, or a
    mapping naming the ones that are on (the rest off).
    """
    return with_nuisances(_base_drive(seed), nuisances)


def with_nuisances(drive: Drive, nuisances: str | dict[str, bool] = "random") -> Drive:
    """``drive`` with issue 22's bench nuisances switched as ``nuisances`` says (see random_drive)."""
    rng = np.random.default_rng([drive.seed, 2222])
    draw = rng.random(len(NUISANCES)) < 0.5
    if nuisances == "random":
        on = {n: bool(x) for n, x in zip(NUISANCES, draw)}
    elif nuisances in ("none", "all"):
        on = {n: nuisances == "all" for n in NUISANCES}
    else:
        unknown = set(nuisances) - set(NUISANCES)
        if unknown:
            raise ValueError(f"unknown nuisances {sorted(unknown)}; known: {NUISANCES}")
        on = {n: bool(nuisances.get(n, False)) for n in NUISANCES}
    # the values are drawn whether or not the switch is on, so switching one nuisance
    # leaves every other number of the drive as it was
    xfer_frac = rng.uniform(0.2, 0.7)  # issue 22: 30–60 % of one package's program current, drawn wider
    burst = rng.uniform(0.013, 0.032)  # issue 22: +15–30 mA per array read
    t_read = rng.uniform(50.0, 70.0)  # ~60 µs
    dts = rng.choice([2.0, 4.0], size=2)
    sigma = rng.uniform(0.0025, 0.007)  # issue 22: σ ≈ 6 mA
    fill = rng.uniform(0.4, 0.9)
    changes: dict = {}
    if on["transfer_current"]:
        changes["i_xfer"] = float(xfer_frac * drive.i_prog)
    if on["read_shoulder"]:
        changes.update(read_shoulder=True, i_burst=float(burst), t_read_us=float(t_read))
    if on["per_page_read"]:
        changes.update(per_page_read=True, read_unit_pages=1)
    if on["die_interleave"]:
        changes["die_interleave"] = True
    if on["slow_sampling"]:
        changes.update(write_dt_us=float(dts[0]), read_dt_us=float(dts[1]))
    if on["bench_noise"]:
        changes["noise_a"] = float(sigma)
    if on["coarse_scope"]:
        changes["screen_fill"] = float(fill)
    return replace(drive, **changes)


def nuisances_of(drive: Drive) -> dict[str, bool]:
    """Which nuisances a drive carries, for the benchmark's breakdown."""
    base = _base_drive(drive.seed)
    return {
        "transfer_current": drive.i_xfer != base.i_xfer,
        "read_shoulder": drive.read_shoulder,
        "per_page_read": drive.per_page_read,
        "die_interleave": drive.die_interleave,
        "slow_sampling": (drive.write_dt_us, drive.read_dt_us) != (base.write_dt_us, base.read_dt_us),
        "bench_noise": drive.noise_a != base.noise_a,
        "coarse_scope": drive.screen_fill != base.screen_fill,
    }


def _base_drive(seed: int) -> Drive:
    rng = np.random.default_rng([seed, 3003])
    while True:
        channels = int(rng.choice([2, 4, 8, 4, 8]))
        ways = int(rng.choice([1, 2, 2, 4])) if channels < 8 else int(rng.choice([1, 2]))
        packages = channels * ways
        if not 4 <= packages <= 16:
            continue
        dies = int(rng.choice([1, 1, 2, 4]))
        page = int(rng.choice([4, 8, 16])) * KIB
        ppu_choices = [d for d in (1, 2, 4, 8) if packages % d == 0 and d * dies <= 32 and d < packages]
        ppu = int(rng.choice(ppu_choices))
        # the sweep must be able to fill every package twice over (003 §4.1 goes to M_peak)
        if packages * dies * page > 1024 * KIB:
            continue
        break
    read_unit = int(rng.choice([1, 1, 2, 4, 8]))
    walk = WAY_FIRST if (ways > 1 and rng.random() < 0.5) else CHANNEL_FIRST
    if ways == 1:
        walk = ONE_WAY
    # NAND generations (ONFI 1.0 → 3.0, Toggle 1 → 2): larger pages came with faster channels
    # and longer MLC programs; SLC programs in a few hundred µs on any of them.
    chan_mb_s = {4 * KIB: rng.uniform(40.0, 133.0), 8 * KIB: rng.uniform(133.0, 200.0),
                 16 * KIB: rng.uniform(200.0, 400.0)}[page]
    mlc = rng.random() < 0.7
    t_prog_mlc = {4 * KIB: (900.0, 1300.0), 8 * KIB: (1200.0, 2000.0), 16 * KIB: (1300.0, 2200.0)}[page]
    return Drive(
        seed=seed,
        channels=channels,
        ways=ways,
        dies=dies,
        page_bytes=page,
        packages_per_unit=ppu,
        read_unit_pages=read_unit,
        walk=walk,
        in_order=bool(rng.random() < 0.4),
        rmw=bool(rng.random() < 0.5),
        t_xfer_page_us=float(page / chan_mb_s),  # bytes / (MB/s) = µs
        t_switch_us=float(rng.uniform(10.0, 40.0)),
        t_prog_us=float(rng.uniform(*t_prog_mlc) if mlc else rng.uniform(200.0, 500.0)),
        t_prog_spread=float(rng.uniform(0.08, 0.15)),
        t_read_us=float(rng.uniform(45.0, 75.0)),
        t_latency_us=float(rng.uniform(15.0, 60.0)),
        host_mb_s=float(rng.choice([250.0, 550.0, 1000.0])),
        i_idle=float(rng.uniform(0.04, 0.12)),
        i_busy=float(rng.uniform(0.03, 0.07)),
        i_xfer=float(rng.uniform(0.008, 0.02)),
        i_prog=float(rng.uniform(0.025, 0.09)),
        i_prog_spread=0.15,
        i_burst=float(rng.uniform(0.017, 0.025)),
        ripple=float(rng.uniform(0.05, 0.15)),
        ripple_period_us=float(rng.uniform(18.0, 26.0)),
    )


def write_sizes(drive: Drive) -> list[int]:
    """Page steps from one page until every package has been busy, and a unit beyond."""
    top = max(160 * KIB, (drive.groups + 1) * drive.unit_bytes)
    top = int(math.ceil(top / drive.page_bytes)) * drive.page_bytes
    return list(range(drive.page_bytes, top + 1, drive.page_bytes))


def read_sizes(drive: Drive) -> list[int]:
    """Page steps to 160 KiB and 512 KiB, as 003 §5.2 reads."""
    top = 160 * KIB
    return list(range(drive.page_bytes, top + 1, drive.page_bytes)) + [512 * KIB]

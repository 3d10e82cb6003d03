"""What a simulated drive is: geometry, firmware choices, timing, current, nuisances.

A drive model is data.  The four replicas of 003 live as TOML files in the
repository's ``profiles/`` folder (``x25m``, ``mxp``, ``qpro``, ``840``); tests
build random ones.  ``given`` holds what a vendor's spec sheet tells a user
(channels, packages, page size, interface); everything else is what charz has
to find out and must never read.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from charz.errors import UsageError
from charz.sim._walk import package_walk

CHANNEL_PRIORITY = "channel-priority"
WAY_PRIORITY = "way-priority"
CHANNEL_ONLY = "channel-only"


@dataclass(frozen=True)
class Geometry:
    channels: int
    ways: int  # packages per channel
    dies_per_package: int
    planes_per_die: int
    page_size_bytes: int

    @property
    def packages(self) -> int:
        return self.channels * self.ways


@dataclass(frozen=True)
class Firmware:
    """The controller's hidden choices.

    A write I/O unit is spread over ``write_io_unit_bytes / (page × dies)``
    packages, one page per die.  Packages are taken from a block of
    ``block_channels × block_ways`` packages in ``order``; blocks tile the grid
    channels first, then ways.  ``order`` is irrelevant when the block has one
    way (003's *channel-only*).
    """

    write_io_unit_bytes: int
    read_io_unit_bytes: int
    block_channels: int
    block_ways: int
    order: str = CHANNEL_PRIORITY


@dataclass(frozen=True)
class Timing:
    t_xfer_page_us: float  # register transfer of one page over the channel
    t_switch_us: float  # channel-switch (selection) delay
    t_prog_us: float  # nominal page program time
    t_prog_spread: float = 0.03  # lower pages faster, upper pages slower, by this fraction
    t_prog_jitter: float = 0.005  # random, per program
    t_read_us: float = 50.0  # tR
    t_cmd_us: float = 25.0  # command decode before the first NAND operation
    t_wake_us: float = 4.0  # the command reaching the controller (FIS transfer) before its current rises
    t_done_us: float = 15.0  # completion after the last program
    host_rate_bytes_per_s: float = 300e6  # interface payload rate (SATA 2 ≈ 300 MB/s)


@dataclass(frozen=True)
class Currents:
    """Supply current in amperes, on the rail the probe sits on."""

    idle_a: float
    controller_a: float  # controller busy with a request
    program_per_package_a: float  # one package programming; its dies interleave, peaks do not add
    transfer_a: float  # one channel transferring
    read_per_package_a: float
    package_spread: float = 0.04  # fixed per-package variation of the program current
    ispp_ripple: float = 0.12  # program current ripple (ISPP pulses), fraction
    ispp_period_us: float = 24.0
    tail_a: float = 0.0  # stays on after an I/O (MXP's 80 mA)
    tail_s: float = 0.0
    rise_time_us: float = 2.0  # supply decoupling + probe bandwidth, first-order


@dataclass(frozen=True)
class Nuisances:
    white_noise_a: float = 0.004
    hum_a: float = 0.002
    hum_hz: float = 60.0
    spike_rate_hz: float = 5.0
    spike_a: float = 0.15
    idle_peak_period_s: float = 0.05
    idle_peak_a: float = 0.1
    idle_peak_width_s: float = 0.0006


@dataclass(frozen=True)
class Digitizer:
    """How the simulated scope front end turns amperes into ADC codes (Tek style)."""

    scale_a_per_div: float = 0.1
    position_div: float = -4.0
    bits: int = 8
    write_sample_interval_s: float = 2e-6
    read_sample_interval_s: float = 4e-6
    record_length: int = 10_000
    pre_trigger_fraction: float = 0.1


@dataclass(frozen=True)
class DriveModel:
    name: str
    description: str
    given: dict[str, Any]
    geometry: Geometry
    firmware: Firmware
    timing: Timing
    currents: Currents
    nuisances: Nuisances = field(default_factory=Nuisances)
    digitizer: Digitizer = field(default_factory=Digitizer)
    source: str = ""  # where the numbers came from

    def __post_init__(self) -> None:
        check_model(self)

    def given_si(self) -> dict[str, Any]:
        """The spec-sheet values as an archive holds them (``drive.given``): SI units
        (µs keys become seconds), identity fields left out."""
        out = {}
        for key, value in self.given.items():
            if key.endswith("_us"):
                out[key[:-3] + "_s"] = value * 1e-6
            elif key not in ("model", "interface", "capacity_bytes"):
                out[key] = value
        return out

    # Derived firmware facts, used by the scheduler and by tests as ground truth.
    @property
    def unit_pages(self) -> int:
        return self.firmware.write_io_unit_bytes // self.geometry.page_size_bytes

    @property
    def packages_per_unit(self) -> int:
        return self.unit_pages // self.geometry.dies_per_package

    @property
    def t_reg_us(self) -> float:
        return self.geometry.dies_per_package * self.timing.t_xfer_page_us

    @property
    def scheme(self) -> str:
        """003's name for the simulated firmware's walk, from its own package order (``_walk``).

        The simulator holds its own model of the controller: naming the truth through the
        analysis's walk enumeration would let the two agree by construction.  Names follow
        003: with several packages per unit, the unit's own packages (§4.2 Fig. 4: all on
        one way → channel-only); with one, the walk across units (§5.3, X-25M); one package
        per channel → channel-only, unless a unit fills the dies of one package first (§5.2,
        Q Pro: way priority).
        """
        g, f, k = self.geometry, self.firmware, self.packages_per_unit
        if g.ways == 1:
            return WAY_PRIORITY if k == 1 and g.dies_per_package > 1 else CHANNEL_ONLY
        first = package_walk(g.channels, g.ways, f.block_channels, f.block_ways, f.order, max(2, k))
        if k > 1:
            unit = first[:k]
            if len({w for _, w in unit}) == 1:
                return CHANNEL_ONLY
            return CHANNEL_PRIORITY if unit[1][0] != unit[0][0] else WAY_PRIORITY
        return CHANNEL_PRIORITY if first[1][0] != first[0][0] else WAY_PRIORITY

    @property
    def n_step(self) -> int:
        return self.geometry.packages // self.packages_per_unit

    def with_changes(self, **sections: dict[str, Any]) -> "DriveModel":
        """A copy with some fields of some sections replaced, e.g. ``nuisances={"hum_a": 0}``."""
        updates = {}
        for name, changes in sections.items():
            current = getattr(self, name)
            updates[name] = replace(current, **changes) if changes is not None else current
        return replace(self, **updates)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_model(m: DriveModel) -> None:
    g, f = m.geometry, m.firmware
    problems = []
    for name in ("channels", "ways", "dies_per_package", "planes_per_die", "page_size_bytes"):
        if getattr(g, name) < 1:
            problems.append(f"geometry.{name} must be >= 1")
    if problems:
        raise UsageError(f"drive model {m.name!r}: " + "; ".join(problems))
    page = g.page_size_bytes
    if f.write_io_unit_bytes % page:
        problems.append("the write I/O unit must be a whole number of pages")
    elif (f.write_io_unit_bytes // page) % g.dies_per_package:
        problems.append("the write I/O unit must give every die of a package one page")
    if f.read_io_unit_bytes < page or f.read_io_unit_bytes % page:
        problems.append("the read I/O unit must be a whole number of pages")
    if g.channels % f.block_channels or g.ways % f.block_ways:
        problems.append(f"a {f.block_channels}×{f.block_ways} allocation block does not tile the grid")
    if f.order not in (CHANNEL_PRIORITY, WAY_PRIORITY):
        problems.append(f"firmware.order must be {CHANNEL_PRIORITY!r} or {WAY_PRIORITY!r}")
    if not problems:
        k = (f.write_io_unit_bytes // page) // g.dies_per_package
        block = f.block_channels * f.block_ways
        if k > g.packages or (block % k and k % block):
            problems.append(
                f"{k} packages per I/O unit do not fit {f.block_channels}×{f.block_ways} blocks of {g.packages} packages"
            )
        elif g.packages % k:
            problems.append(f"{g.packages} packages are not a whole number of {k}-package I/O units")
    if problems:
        raise UsageError(f"drive model {m.name!r}: " + "; ".join(problems))


_SECTIONS = {
    "geometry": Geometry,
    "firmware": Firmware,
    "timing": Timing,
    "currents": Currents,
    "nuisances": Nuisances,
    "digitizer": Digitizer,
}


def model_from_dict(data: dict[str, Any], *, origin: str = "<dict>") -> DriveModel:
    """Build a model from parsed TOML, with errors that name the file and the key."""
    if data.get("schema") != "charz.preset/1":
        raise UsageError(f"{origin}: not a charz preset (schema = {data.get('schema')!r}, expected 'charz.preset/1')")
    kwargs: dict[str, Any] = {}
    for key, cls in _SECTIONS.items():
        section = data.get(key)
        if section is None:
            if key in ("nuisances", "digitizer"):
                kwargs[key] = cls()
                continue
            raise UsageError(f"{origin}: missing section [{key}]")
        known = {f.name for f in fields(cls)}
        unknown = set(section) - known
        if unknown:
            raise UsageError(f"{origin}: unknown key(s) in [{key}]: {', '.join(sorted(unknown))}")
        try:
            kwargs[key] = cls(**section)
        except TypeError as exc:
            raise UsageError(f"{origin}: [{key}]: {exc}") from None
    return DriveModel(
        name=str(data.get("name", Path(origin).stem)),
        description=str(data.get("description", "")),
        given=dict(data.get("given", {})),
        source=str(data.get("source", "")),
        **kwargs,
    )


def default_presets_dir() -> Path:
    # profiles/ at the top of the checkout, reached through charz/_data (a copy in a wheel).
    return Path(__file__).resolve().parents[1] / "_data" / "profiles"


def list_presets(presets_dir: Path | None = None) -> list[str]:
    d = presets_dir or default_presets_dir()
    names = []
    for p in sorted(d.glob("*.toml")):
        try:
            if tomllib.loads(p.read_text()).get("schema") == "charz.preset/1":
                names.append(p.stem)
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return names


def load_preset(name: str, presets_dir: Path | None = None) -> DriveModel:
    """Load the preset ``profiles/NAME.toml``.

    Example
    -------
    >>> load_preset("mxp").geometry.packages
    16
    """
    d = presets_dir or default_presets_dir()
    path = d / f"{name}.toml"
    if not path.is_file():
        available = ", ".join(list_presets(d)) or "none"
        raise UsageError(f"no preset named {name!r} in {d}", hint=f"choose one of: {available} (charz simulate --list)")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    return model_from_dict(data, origin=str(path))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def pages_touched(offset_bytes: int, size_bytes: int, unit_bytes: int) -> tuple[int, int]:
    """First unit index and number of units a byte range touches."""
    first = offset_bytes // unit_bytes
    last = (offset_bytes + size_bytes - 1) // unit_bytes
    return first, last - first + 1


__all__ = [
    "Geometry",
    "Firmware",
    "Timing",
    "Currents",
    "Nuisances",
    "Digitizer",
    "DriveModel",
    "model_from_dict",
    "load_preset",
    "list_presets",
    "default_presets_dir",
    "ceil_div",
    "pages_touched",
]

"""Parse ``lsblk -J -b -O DEV`` (util-linux) into :class:`LsblkDevice` trees.

Both the modern output (numbers and booleans, ``mountpoints`` list; util-linux
≥ 2.37) and the old one (every value a string, a single ``mountpoint``) are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from charz.device._values import as_bool, as_int, as_str, load_json_object, need
from charz.errors import DeviceError

def lsblk_argv(path: str) -> tuple[str, ...]:
    """``lsblk`` arguments for one device and its partitions.

    ``-O`` asks for every column the installed lsblk knows, so the same call works
    on old and new util-linux.

    >>> lsblk_argv("/dev/sda")
    ('lsblk', '-J', '-b', '-O', '/dev/sda')
    """
    return ("lsblk", "-J", "-b", "-O", path)


@dataclass(frozen=True)
class LsblkDevice:
    """One row of lsblk (a disk, a partition, a loop device, ...) and its children."""

    name: str
    kname: str
    path: str | None
    major: int
    minor: int
    type: str
    size_bytes: int
    model: str | None
    serial: str | None
    revision: str | None
    vendor: str | None
    wwn: str | None
    transport: str | None
    subsystems: str | None
    rotational: bool | None
    removable: bool | None
    logical_sector_bytes: int | None
    physical_sector_bytes: int | None
    minimum_io_bytes: int | None
    optimal_io_bytes: int | None
    discard_granularity_bytes: int | None
    scheduler: str | None
    fstype: str | None
    pttype: str | None
    mountpoints: tuple[str, ...]
    children: tuple["LsblkDevice", ...]

    @property
    def maj_min(self) -> str:
        return f"{self.major}:{self.minor}"

    def walk(self):
        """This device, then every descendant, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()


def parse_lsblk(text: str) -> tuple[LsblkDevice, ...]:
    """Parse lsblk's JSON output.

    Parameters
    ----------
    text : str
        What ``lsblk -J -b -O ...`` printed.

    Returns
    -------
    tuple of LsblkDevice
        The top-level devices, each with its ``children``.

    Raises
    ------
    DeviceError
        Not JSON, no ``blockdevices`` list, or a row without name/size/maj:min.

    Examples
    --------
    >>> devs = parse_lsblk('{"blockdevices": [{"name": "loop0", "kname": "loop0", '
    ...     '"maj:min": "7:0", "type": "loop", "size": 67108864, "rota": false}]}')
    >>> devs[0].kname, devs[0].maj_min, devs[0].size_bytes, devs[0].rotational
    ('loop0', '7:0', 67108864, False)
    """
    doc = load_json_object(text, "lsblk")
    rows = need(doc, "blockdevices", "lsblk")
    if not isinstance(rows, list):
        raise DeviceError("lsblk: 'blockdevices' is not a list")
    return tuple(_parse_row(row) for row in rows)


def _parse_row(row: Any) -> LsblkDevice:
    if not isinstance(row, Mapping):
        raise DeviceError(f"lsblk: a device entry is not an object: {row!r}")
    name = as_str(need(row, "name", "lsblk"), "name")
    if name is None:
        raise DeviceError("lsblk: a device has an empty name")
    major, minor = _parse_maj_min(need(row, "maj:min", "lsblk"))
    children = row.get("children") or ()
    if not isinstance(children, list | tuple):
        raise DeviceError(f"lsblk: children of {name} is not a list")
    return LsblkDevice(
        name=name,
        kname=as_str(row.get("kname"), "kname") or name,
        path=as_str(row.get("path"), "path"),
        major=major,
        minor=minor,
        type=as_str(need(row, "type", "lsblk"), "type") or "unknown",
        size_bytes=as_int(need(row, "size", "lsblk"), "size", default=0),
        model=as_str(row.get("model"), "model"),
        serial=as_str(row.get("serial"), "serial"),
        revision=as_str(row.get("rev"), "rev"),
        vendor=as_str(row.get("vendor"), "vendor"),
        wwn=as_str(row.get("wwn"), "wwn"),
        transport=as_str(row.get("tran"), "tran"),
        subsystems=as_str(row.get("subsystems"), "subsystems"),
        rotational=as_bool(row.get("rota"), "rota"),
        removable=as_bool(row.get("rm"), "rm"),
        logical_sector_bytes=as_int(row.get("log-sec"), "log-sec"),
        physical_sector_bytes=as_int(row.get("phy-sec"), "phy-sec"),
        minimum_io_bytes=as_int(row.get("min-io"), "min-io"),
        optimal_io_bytes=as_int(row.get("opt-io"), "opt-io"),
        discard_granularity_bytes=as_int(row.get("disc-gran"), "disc-gran"),
        scheduler=as_str(row.get("sched"), "sched"),
        fstype=as_str(row.get("fstype"), "fstype"),
        pttype=as_str(row.get("pttype"), "pttype"),
        mountpoints=_parse_mountpoints(row),
        children=tuple(_parse_row(child) for child in children),
    )


def _parse_maj_min(value: Any) -> tuple[int, int]:
    text = as_str(value, "maj:min") or ""
    major, sep, minor = text.partition(":")
    if not sep:
        raise DeviceError(f"lsblk: maj:min {value!r} is not 'MAJOR:MINOR'")
    return as_int(major, "maj:min"), as_int(minor, "maj:min")


def _parse_mountpoints(row: Mapping[str, Any]) -> tuple[str, ...]:
    # util-linux >= 2.37 has "mountpoints" (a list, [null] when unmounted); older
    # versions only "mountpoint".
    points = row.get("mountpoints")
    if points is None:
        points = [row.get("mountpoint")]
    if not isinstance(points, list):
        raise DeviceError(f"lsblk: mountpoints is not a list: {points!r}")
    return tuple(p for p in (as_str(p, "mountpoints") for p in points) if p)

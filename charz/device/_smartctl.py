"""Parse ``smartctl -j -i -A DEV`` (smartmontools ≥ 7.0 JSON output).

smartctl's exit status is a bit mask: bit 0 = the command line did not parse or
the device type is unknown, bit 1 = the device could not be opened; the higher
bits report the drive's health and do not stop identification.  The same mask
is repeated in the JSON as ``smartctl.exit_status``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from charz.device._values import as_int, as_str, load_json_object, need
from charz.errors import DeviceError

#: exit-status bits that mean "smartctl could not talk to the device at all".
FATAL_EXIT_BITS = 0b11


def smartctl_argv(path: str) -> tuple[str, ...]:
    """The smartctl arguments: JSON, identity and attributes.

    >>> smartctl_argv("/dev/sda")
    ('smartctl', '-j', '-i', '-A', '/dev/sda')
    """
    return ("smartctl", "-j", "-i", "-A", path)


@dataclass(frozen=True)
class SmartAttribute:
    """One row of the ATA SMART attribute table."""

    id: int
    name: str
    value: int
    worst: int
    thresh: int
    raw_value: int


@dataclass(frozen=True)
class SmartInfo:
    """Identity and wear counters as smartctl reports them."""

    protocol: str | None
    model: str | None
    serial: str | None
    firmware: str | None
    capacity_bytes: int | None
    logical_block_bytes: int | None
    physical_block_bytes: int | None
    #: 0 for solid state, rpm for a spinning disk, None when not reported.
    rotation_rate_rpm: int | None
    ata_attributes: tuple[SmartAttribute, ...]
    #: NVMe SMART/Health log, field name → value (numbers only).
    nvme_health: tuple[tuple[str, int], ...]
    exit_status: int

    def nvme_health_value(self, name: str) -> int | None:
        return dict(self.nvme_health).get(name)


def parse_smartctl(text: str) -> SmartInfo:
    """Parse smartctl's JSON output.

    Raises
    ------
    DeviceError
        Not JSON, or smartctl could not open or recognise the device (its own
        messages are quoted, e.g. "Unable to detect device type" on a loop device).

    Examples
    --------
    >>> info = parse_smartctl('{"smartctl": {"exit_status": 0}, "device": {"protocol": "NVMe"}, '
    ...                       '"model_name": "X", "serial_number": "S1", "user_capacity": {"bytes": 1000}}')
    >>> info.protocol, info.serial, info.capacity_bytes
    ('NVMe', 'S1', 1000)
    """
    doc = load_json_object(text, "smartctl")
    meta = need(doc, "smartctl", "smartctl")
    if not isinstance(meta, Mapping):
        raise DeviceError("smartctl: 'smartctl' is not an object")
    exit_status = as_int(meta.get("exit_status"), "exit_status", default=0)
    if exit_status & FATAL_EXIT_BITS:
        messages = meta.get("messages") or []
        said = "; ".join(str(m.get("string", m)) for m in messages if isinstance(m, Mapping)) or "no message"
        raise DeviceError(
            f"smartctl cannot read this device (exit status {exit_status}): {said}",
            hint="smartctl only knows ATA, NVMe and SCSI devices; loop and virtio devices have no SMART",
            code=exit_status,
        )
    device = doc.get("device") or {}
    capacity = doc.get("user_capacity") or {}
    if not isinstance(device, Mapping) or not isinstance(capacity, Mapping):
        raise DeviceError("smartctl: 'device' or 'user_capacity' is not an object")
    return SmartInfo(
        protocol=as_str(device.get("protocol"), "device.protocol"),
        model=as_str(doc.get("model_name"), "model_name"),
        serial=as_str(doc.get("serial_number"), "serial_number"),
        firmware=as_str(doc.get("firmware_version"), "firmware_version"),
        capacity_bytes=as_int(capacity.get("bytes"), "user_capacity.bytes"),
        logical_block_bytes=as_int(doc.get("logical_block_size"), "logical_block_size"),
        physical_block_bytes=as_int(doc.get("physical_block_size"), "physical_block_size"),
        rotation_rate_rpm=as_int(doc.get("rotation_rate"), "rotation_rate"),
        ata_attributes=_parse_ata_attributes(doc.get("ata_smart_attributes")),
        nvme_health=_parse_nvme_health(doc.get("nvme_smart_health_information_log")),
        exit_status=exit_status,
    )


def _parse_ata_attributes(block: Any) -> tuple[SmartAttribute, ...]:
    if block is None:
        return ()
    table = block.get("table") if isinstance(block, Mapping) else None
    if not isinstance(table, list):
        raise DeviceError("smartctl: ata_smart_attributes.table is not a list")
    rows = []
    for row in table:
        if not isinstance(row, Mapping):
            raise DeviceError(f"smartctl: an attribute row is not an object: {row!r}")
        raw = row.get("raw") or {}
        rows.append(SmartAttribute(
            id=as_int(need(row, "id", "smartctl attribute"), "id"),
            name=as_str(row.get("name"), "name") or "",
            value=as_int(row.get("value"), "value", default=0),
            worst=as_int(row.get("worst"), "worst", default=0),
            thresh=as_int(row.get("thresh"), "thresh", default=0),
            raw_value=as_int(raw.get("value") if isinstance(raw, Mapping) else raw, "raw", default=0),
        ))
    return tuple(rows)


def _parse_nvme_health(block: Any) -> tuple[tuple[str, int], ...]:
    if block is None:
        return ()
    if not isinstance(block, Mapping):
        raise DeviceError("smartctl: nvme_smart_health_information_log is not an object")
    # lists (temperature_sensors) and nested objects are left out: only counters are kept
    return tuple((k, v) for k, v in block.items() if isinstance(v, int) and not isinstance(v, bool))

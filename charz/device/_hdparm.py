"""Parse hdparm's text: ``hdparm -I`` (IDENTIFY DEVICE) and the one-line flag replies.

Formats are those of hdparm 9.x (``identify.c`` and ``hdparm.c``): section headers
start in column 0 and end with a colon; the feature list marks enabled features
with ``*``; the Security section prints one line per bit of word 128, prefixed
with ``not`` when the bit is clear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from charz.errors import DeviceError


@dataclass(frozen=True)
class AtaSecurity:
    """Word 128 of IDENTIFY DEVICE, as ``hdparm -I`` prints it."""

    supported: bool
    enabled: bool
    locked: bool
    frozen: bool
    count_expired: bool
    enhanced_erase_supported: bool
    erase_time_min: int | None
    enhanced_erase_time_min: int | None


@dataclass(frozen=True)
class AtaIdentity:
    """What charz needs from ``hdparm -I``."""

    model: str | None
    serial: str | None
    firmware: str | None
    transport: str | None
    sectors: int | None
    logical_sector_bytes: int | None
    physical_sector_bytes: int | None
    solid_state: bool | None
    #: feature name → enabled, for every feature listed (all are supported).
    features: tuple[tuple[str, bool], ...]
    security: AtaSecurity | None

    def feature(self, name: str) -> bool | None:
        """``True``/``False`` = supported and enabled/disabled, ``None`` = not supported."""
        for feature_name, enabled in self.features:
            if feature_name == name:
                return enabled
        return None


_SECURITY_BITS = {
    "supported": "supported",
    "enabled": "enabled",
    "locked": "locked",
    "frozen": "frozen",
    "expired: security count": "count_expired",
    "supported: enhanced erase": "enhanced_erase_supported",
}
_FEATURE_LINE = re.compile(r"^\s+(\*)?\s+(\S.*?)\s*$")
_ERASE_TIME = re.compile(r"(more than )?(\d+)min for (ENHANCED )?SECURITY ERASE UNIT")


def parse_identify(text: str) -> AtaIdentity:
    """Parse ``hdparm -I DEV``.

    Raises
    ------
    DeviceError
        When the text holds no IDENTIFY data (hdparm prints only the device name
        for devices that are not ATA, e.g. a loop device).

    Examples
    --------
    >>> ident = parse_identify('''
    ... /dev/sda:
    ...
    ... ATA device, with non-removable media
    ... \\tModel Number:       CHARZ SSD 128GB
    ... \\tSerial Number:      CZ0001
    ... \\tFirmware Revision:  1.0
    ... Commands/features:
    ... \\tEnabled\\tSupported:
    ... \\t   *\\tWrite cache
    ... \\t    \\tLook-ahead
    ... Security:
    ... \\t\\tsupported
    ... \\tnot\\tenabled
    ... \\tnot\\tlocked
    ... \\t\\tfrozen
    ... ''')
    >>> ident.model, ident.feature("Write cache"), ident.feature("Look-ahead"), ident.security.frozen
    ('CHARZ SSD 128GB', True, False, True)
    """
    if not isinstance(text, str):
        raise DeviceError("hdparm -I: expected text")
    sections = _split_sections(text)
    head = sections.get("", [])
    fields = _colon_fields(head)
    model = fields.get("Model Number")
    if model is None:
        raise DeviceError(
            "hdparm -I printed no IDENTIFY data (the device does not answer ATA IDENTIFY)",
            hint="hdparm only works on ATA/SATA drives (and some USB bridges); "
            "use nvme-cli for NVMe drives",
        )
    config = _colon_fields(sections.get("Configuration", []))
    return AtaIdentity(
        model=model,
        serial=fields.get("Serial Number"),
        firmware=fields.get("Firmware Revision"),
        transport=fields.get("Transport"),
        sectors=_first_int(config.get("LBA48  user addressable sectors") or config.get("LBA    user addressable sectors")),
        logical_sector_bytes=_first_int(config.get("Logical  Sector size") or config.get("Logical/Physical Sector size")),
        physical_sector_bytes=_first_int(config.get("Physical Sector size") or config.get("Logical/Physical Sector size")),
        solid_state=_solid_state(config.get("Nominal Media Rotation Rate")),
        features=_parse_features(sections.get("Commands/features", [])),
        security=_parse_security(sections["Security"]) if "Security" in sections else None,
    )


def _split_sections(text: str) -> dict[str, list[str]]:
    """Lines grouped under their column-0 header ("" for the lines before any)."""
    sections: dict[str, list[str]] = {"": []}
    current = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace() and line.rstrip().endswith(":") and not line.startswith("/dev/"):
            current = line.strip().rstrip(":").strip()
            sections.setdefault(current, [])
            continue
        sections[current].append(line)
    return sections


def _colon_fields(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.strip().partition(":")
        key = key.strip()
        # the first occurrence wins: later lines reuse words such as "Transport"
        if sep and key and key not in fields:
            fields[key] = value.strip()
    return fields


def _first_int(text: str | None) -> int | None:
    if not text:
        return None
    match = re.search(r"\d+", text)
    return int(match.group()) if match else None


def _solid_state(text: str | None) -> bool | None:
    if text is None:
        return None
    return "Solid State" in text


def _parse_features(lines: list[str]) -> tuple[tuple[str, bool], ...]:
    features = []
    for line in lines:
        if "Enabled" in line and "Supported" in line:
            continue
        match = _FEATURE_LINE.match(line)
        if match:
            features.append((match.group(2), match.group(1) == "*"))
    return tuple(features)


def _parse_security(lines: list[str]) -> AtaSecurity:
    bits: dict[str, bool] = {}
    erase_min: int | None = None
    enhanced_min: int | None = None
    for line in lines:
        stripped = line.strip()
        for match in _ERASE_TIME.finditer(stripped):
            minutes = int(match.group(2))
            if match.group(3):
                enhanced_min = minutes
            else:
                erase_min = minutes
        if _ERASE_TIME.search(stripped):
            continue
        parts = [p for p in re.split(r"\t+|\s{2,}", stripped) if p]
        if not parts:
            continue
        state = True
        if parts[0] in ("not", "(?)"):
            state = False
            parts = parts[1:]
        name = " ".join(parts)
        if name in _SECURITY_BITS:
            bits[_SECURITY_BITS[name]] = state
    if "supported" not in bits or "frozen" not in bits:
        raise DeviceError(
            "hdparm -I: the Security section has no 'supported'/'frozen' lines",
            hint="hdparm may be too old; install hdparm >= 9.31",
        )
    return AtaSecurity(
        supported=bits["supported"],
        enabled=bits.get("enabled", False),
        locked=bits.get("locked", False),
        frozen=bits["frozen"],
        count_expired=bits.get("count_expired", False),
        enhanced_erase_supported=bits.get("enhanced_erase_supported", False),
        erase_time_min=erase_min,
        enhanced_erase_time_min=enhanced_min,
    )


_FLAG = re.compile(r"^\s*(?P<key>[a-z-]+)\s*=\s*(?:(?P<value>-?\d+)\s*\((?:on|off)\)|(?P<unsupported>not supported))\s*$")


def parse_flag(text: str, key: str) -> int | None:
    """The value in a flag reply such as `` write-caching =  1 (on)``.

    Parameters
    ----------
    text : str
        What ``hdparm -W DEV`` (or ``-A``, ``-a``, or a set command) printed.
    key : {"write-caching", "look-ahead", "readahead"}

    Returns
    -------
    int or None
        The value, or ``None`` when hdparm says ``not supported``.

    Raises
    ------
    DeviceError
        The reply has no line for ``key`` (hdparm printed only the device name,
        which it does when the device does not answer IDENTIFY).

    Examples
    --------
    >>> parse_flag("\\n/dev/sda:\\n setting drive write-caching to 0 (off)\\n write-caching =  0 (off)\\n",
    ...            "write-caching")
    0
    >>> parse_flag("\\n/dev/sda:\\n readahead     = 256 (on)\\n", "readahead")
    256
    >>> parse_flag("\\n/dev/sdb:\\n look-ahead    = not supported\\n", "look-ahead") is None
    True
    """
    value_seen: int | None = None
    found = False
    for line in text.splitlines():
        match = _FLAG.match(line)
        if match and match.group("key") == key:
            found = True
            value_seen = None if match.group("unsupported") else int(match.group("value"))
    if not found:
        raise DeviceError(
            f"hdparm printed no '{key}' value",
            hint="the device does not answer ATA commands (loop, virtio, or a USB bridge "
            "without SAT pass-through)",
        )
    return value_seen


_POWER_MODES = ("standby", "idle", "active/idle", "NVcache_spindown", "NVcache_spinup", "unknown")


def parse_power_mode(text: str) -> str:
    """The state in ``hdparm -C``'s reply.

    >>> parse_power_mode("\\n/dev/sda:\\n drive state is:  standby\\n")
    'standby'
    """
    match = re.search(r"drive state is:\s+(\S+)", text)
    if not match or match.group(1) not in _POWER_MODES:
        raise DeviceError(f"hdparm -C: no drive state in {text.strip()!r}")
    return match.group(1)

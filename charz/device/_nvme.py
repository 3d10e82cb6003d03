"""Parse nvme-cli output: ``id-ctrl -o json``, ``id-ns -o json`` and ``get-feature``.

Field names are those of the NVMe base specification as nvme-cli prints them
(``vwc``, ``oacs``, ``fna``, ``flbas``, ``lbafs[].ds``...); strings such as ``sn``
are space-padded to their fixed widths and are stripped here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from charz.device._values import as_int, as_str, load_json_object, need
from charz.errors import DeviceError

#: Feature identifiers charz reads or sets.
FEATURE_VOLATILE_WRITE_CACHE = 0x06
FEATURE_APST = 0x0C


@dataclass(frozen=True)
class NvmeController:
    """The parts of Identify Controller charz uses."""

    model: str | None
    serial: str | None
    firmware: str | None
    vendor_id: int
    #: VWC bit 0: a volatile write cache is present (feature 0x06 applies).
    volatile_write_cache_present: bool
    #: APSTA bit 0: autonomous power state transitions are supported.
    apst_supported: bool
    #: OACS bit 1: the Format NVM command is supported.
    format_supported: bool
    #: FNA bit 0: a format applies to all namespaces of the controller.
    format_applies_to_all_namespaces: bool
    #: FNA bit 1: a secure erase (format --ses) applies to all namespaces.
    secure_erase_applies_to_all_namespaces: bool
    #: FNA bit 2: cryptographic erase is supported (--ses=2).
    crypto_erase_supported: bool
    max_namespaces: int
    power_states: int


@dataclass(frozen=True)
class NvmeNamespace:
    """The parts of Identify Namespace charz uses."""

    size_blocks: int
    capacity_blocks: int
    utilization_blocks: int
    #: index of the LBA format in use (FLBAS bits 3:0, plus bits 6:5 above 16 formats).
    lba_format_index: int
    #: (data size in bytes, metadata bytes) of every LBA format.
    lba_formats: tuple[tuple[int, int], ...]
    #: NPWG + 1 blocks when reported (NSFEAT bit 4), the drive's preferred write granularity.
    preferred_write_granularity_blocks: int | None
    preferred_write_alignment_blocks: int | None

    @property
    def lba_bytes(self) -> int:
        return self.lba_formats[self.lba_format_index][0]


def parse_id_ctrl(text: str) -> NvmeController:
    """Parse ``nvme id-ctrl DEV -o json``.

    Examples
    --------
    >>> c = parse_id_ctrl('{"vid": 5197, "sn": "S4EVNX0R000000A     ", "mn": "Samsung SSD 970 EVO Plus 500GB", '
    ...                   '"fr": "2B2QEXM7", "vwc": 1, "apsta": 1, "oacs": 23, "fna": 0, "nn": 1, "npss": 4}')
    >>> c.serial, c.volatile_write_cache_present, c.format_supported, c.power_states
    ('S4EVNX0R000000A', True, True, 5)
    """
    doc = load_json_object(text, "nvme id-ctrl")
    vwc = as_int(need(doc, "vwc", "nvme id-ctrl"), "vwc")
    oacs = as_int(need(doc, "oacs", "nvme id-ctrl"), "oacs")
    fna = as_int(doc.get("fna"), "fna", default=0)
    return NvmeController(
        model=as_str(need(doc, "mn", "nvme id-ctrl"), "mn"),
        serial=as_str(need(doc, "sn", "nvme id-ctrl"), "sn"),
        firmware=as_str(doc.get("fr"), "fr"),
        vendor_id=as_int(doc.get("vid"), "vid", default=0),
        volatile_write_cache_present=bool(vwc & 0x1),
        apst_supported=bool(as_int(doc.get("apsta"), "apsta", default=0) & 0x1),
        format_supported=bool(oacs & 0x2),
        format_applies_to_all_namespaces=bool(fna & 0x1),
        secure_erase_applies_to_all_namespaces=bool(fna & 0x2),
        crypto_erase_supported=bool(fna & 0x4),
        max_namespaces=as_int(doc.get("nn"), "nn", default=1),
        power_states=as_int(doc.get("npss"), "npss", default=0) + 1,
    )


def parse_id_ns(text: str) -> NvmeNamespace:
    """Parse ``nvme id-ns DEV -o json``.

    Examples
    --------
    >>> ns = parse_id_ns('{"nsze": 976773168, "ncap": 976773168, "nuse": 1024, "nsfeat": 0, '
    ...                  '"nlbaf": 0, "flbas": 0, "lbafs": [{"ms": 0, "ds": 9, "rp": 0}]}')
    >>> ns.lba_bytes, ns.size_blocks * ns.lba_bytes
    (512, 500107862016)
    """
    doc = load_json_object(text, "nvme id-ns")
    flbas = as_int(need(doc, "flbas", "nvme id-ns"), "flbas")
    lbafs = need(doc, "lbafs", "nvme id-ns")
    if not isinstance(lbafs, list) or not lbafs:
        raise DeviceError("nvme id-ns: 'lbafs' is not a non-empty list")
    formats = tuple(_parse_lbaf(entry) for entry in lbafs)
    # NVMe 2.0: with more than 16 formats, FLBAS bits 6:5 are the index's high bits.
    index = (flbas & 0xF) | (((flbas >> 5) & 0x3) << 4)
    if index >= len(formats):
        raise DeviceError(f"nvme id-ns: flbas selects format {index} but only {len(formats)} are listed")
    nsfeat = as_int(doc.get("nsfeat"), "nsfeat", default=0)
    has_granularity = bool(nsfeat & 0x10)
    npwg = as_int(doc.get("npwg"), "npwg")
    npwa = as_int(doc.get("npwa"), "npwa")
    return NvmeNamespace(
        size_blocks=as_int(need(doc, "nsze", "nvme id-ns"), "nsze"),
        capacity_blocks=as_int(doc.get("ncap"), "ncap", default=0),
        utilization_blocks=as_int(doc.get("nuse"), "nuse", default=0),
        lba_format_index=index,
        lba_formats=formats,
        # the fields are 0-based counts, meaningful only when NSFEAT bit 4 says so
        preferred_write_granularity_blocks=npwg + 1 if has_granularity and npwg is not None else None,
        preferred_write_alignment_blocks=npwa + 1 if has_granularity and npwa is not None else None,
    )


def _parse_lbaf(entry: Any) -> tuple[int, int]:
    if not isinstance(entry, Mapping):
        raise DeviceError(f"nvme id-ns: an LBA format is not an object: {entry!r}")
    ds = as_int(need(entry, "ds", "nvme id-ns lbaf"), "ds")
    if not 9 <= ds <= 16:
        # ds is log2 of the block size; 0 marks an unused slot, others are nonsense
        return (0, as_int(entry.get("ms"), "ms", default=0))
    return (1 << ds, as_int(entry.get("ms"), "ms", default=0))


_GET_FEATURE = re.compile(
    r"get-feature:\s*(?:0x)?(?P<fid>[0-9a-fA-F]+)\b.*?Current value:\s*(?:0x)?(?P<value>[0-9a-fA-F]+)"
)


def parse_get_feature(text: str, feature_id: int) -> int:
    """The current value in ``nvme get-feature DEV -f FID``'s reply.

    Examples
    --------
    >>> parse_get_feature("get-feature:0x06 (Volatile Write Cache), Current value:0x00000001", 0x06)
    1
    >>> parse_get_feature("get-feature:0x6 (Volatile Write Cache), Current value:0x000000", 6)
    0
    """
    match = _GET_FEATURE.search(text)
    if not match:
        raise DeviceError(f"nvme get-feature: no 'Current value' in {text.strip()[:200]!r}")
    fid = int(match.group("fid"), 16)
    if fid != feature_id:
        raise DeviceError(f"nvme get-feature: asked for feature {feature_id:#04x}, the reply is for {fid:#04x}")
    return int(match.group("value"), 16)

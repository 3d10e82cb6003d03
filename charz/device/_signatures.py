"""Parse what ``wipefs --no-act --json`` and ``blkid -p -o export`` find on a device.

A signature is anything that says "this device holds something": a file system,
a partition table, a RAID/LVM/ZFS member, a LUKS header, swap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from charz.device._values import as_int, as_str, load_json_object, need
from charz.errors import DeviceError


_EXPORT_KEY = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True)
class Signature:
    """One signature on a device."""

    type: str
    offset_bytes: int | None = None
    label: str | None = None
    uuid: str | None = None

    def describe(self) -> str:
        """A short text for messages.

        >>> Signature("ext4", 1080, "data").describe()
        'ext4 (label data) at byte 1080'
        """
        text = self.type
        if self.label:
            text += f" (label {self.label})"
        if self.offset_bytes is not None:
            text += f" at byte {self.offset_bytes}"
        return text


def wipefs_argv(path: str) -> tuple[str, ...]:
    """``wipefs`` in list-only mode (``-n`` also makes a typo harmless).

    >>> wipefs_argv("/dev/loop0")
    ('wipefs', '--no-act', '--json', '/dev/loop0')
    """
    return ("wipefs", "--no-act", "--json", path)


def blkid_argv(path: str) -> tuple[str, ...]:
    """``blkid`` in low-level probe mode, KEY=value output (the fallback to wipefs).

    >>> blkid_argv("/dev/loop0")
    ('blkid', '-p', '-o', 'export', '/dev/loop0')
    """
    return ("blkid", "-p", "-o", "export", path)


def parse_wipefs(text: str) -> tuple[Signature, ...]:
    """Parse ``wipefs --no-act --json``; empty output means no signature.

    Examples
    --------
    >>> parse_wipefs('{"signatures": [{"device": "loop0", "offset": "0x438", "type": "ext4", '
    ...              '"uuid": "1b2c", "label": null}]}')
    (Signature(type='ext4', offset_bytes=1080, label=None, uuid='1b2c'),)
    >>> parse_wipefs("")
    ()
    """
    if not text.strip():
        # some wipefs versions print nothing at all when there is nothing to list
        return ()
    doc = load_json_object(text, "wipefs")
    rows = need(doc, "signatures", "wipefs")
    if not isinstance(rows, list):
        raise DeviceError("wipefs: 'signatures' is not a list")
    found = []
    for row in rows:
        if not isinstance(row, Mapping):
            raise DeviceError(f"wipefs: a signature is not an object: {row!r}")
        sig_type = as_str(need(row, "type", "wipefs"), "type")
        if sig_type is None:
            raise DeviceError("wipefs: a signature has no type")
        found.append(Signature(
            type=sig_type,
            offset_bytes=as_int(row.get("offset"), "offset"),
            label=as_str(row.get("label"), "label"),
            uuid=as_str(row.get("uuid"), "uuid"),
        ))
    return tuple(found)


def parse_blkid_export(text: str) -> tuple[Signature, ...]:
    """Parse ``blkid -p -o export`` (KEY=value lines; empty when nothing is found).

    >>> parse_blkid_export("DEVNAME=/dev/loop0\\nPTUUID=4ac4\\nPTTYPE=gpt\\n")
    (Signature(type='gpt', offset_bytes=None, label=None, uuid='4ac4'),)
    """
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not _EXPORT_KEY.fullmatch(key):
            raise DeviceError(f"blkid: unexpected line {line!r}")
        values[key] = value.strip()
    found = []
    if "TYPE" in values:
        found.append(Signature(values["TYPE"], label=values.get("LABEL"), uuid=values.get("UUID")))
    if "PTTYPE" in values:
        found.append(Signature(values["PTTYPE"], uuid=values.get("PTUUID")))
    return tuple(found)

"""Coercing the loosely typed values the tools print into Python types.

lsblk before util-linux 2.33 prints every JSON value as a string, newer versions
print numbers and booleans; nvme-cli pads strings with spaces.  Every parser goes
through these helpers so a missing or odd field becomes a clear
:class:`~charz.errors.DeviceError`, never a ``KeyError`` or ``ValueError``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from charz.errors import DeviceError


def load_json_object(text: str, source: str) -> Mapping[str, Any]:
    """Parse ``text`` as a JSON object, or raise :class:`DeviceError` naming ``source``.

    >>> load_json_object('{"a": 1}', "lsblk")
    {'a': 1}
    """
    if not isinstance(text, str) or not text.strip():
        raise DeviceError(f"{source} printed nothing", hint="run the command by hand to see why")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeviceError(
            f"{source} output is not JSON ({exc.msg} at line {exc.lineno})",
            hint="the tool may be too old for JSON output; upgrade it",
        ) from exc
    if not isinstance(value, Mapping):
        raise DeviceError(f"{source} output is JSON but not an object")
    return value


def need(obj: Mapping[str, Any], key: str, source: str) -> Any:
    """``obj[key]``, or a :class:`DeviceError` naming the missing field."""
    if not isinstance(obj, Mapping) or key not in obj:
        raise DeviceError(f"{source}: field {key!r} is missing")
    return obj[key]


def as_int(value: Any, field: str, *, default: int | None = None) -> int | None:
    """An integer from an int, a numeric string or ``None`` (→ ``default``).

    >>> as_int("512", "log-sec"), as_int(None, "x", default=0), as_int("0x1f", "vwc")
    (512, 0, 31)
    """
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 0) if text.lower().startswith("0x") else int(text)
        except ValueError:
            pass
    raise DeviceError(f"field {field!r}: expected an integer, got {value!r}")


def as_bool(value: Any, field: str, *, default: bool | None = None) -> bool | None:
    """A boolean from ``true``/``false``, ``1``/``0`` or ``"1"``/``"0"``.

    >>> as_bool("1", "rota"), as_bool(False, "rm"), as_bool(None, "x")
    (True, False, None)
    """
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return value.strip() == "1"
    raise DeviceError(f"field {field!r}: expected a boolean, got {value!r}")


def as_str(value: Any, field: str) -> str | None:
    """A stripped string, ``None`` for null or blank.

    >>> as_str("  Samsung SSD 860  ", "mn"), as_str("", "serial")
    ('Samsung SSD 860', None)
    """
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise DeviceError(f"field {field!r}: expected a string, got {value!r}")
    text = value.strip()
    return text or None

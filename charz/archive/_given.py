"""What the user gave about the drive and the bench: checked where it enters.

The same ranges apply on the command line (``charz characterize``), in a profile or
preset, and in an archive's ``session.json`` (``drive.given``, ``bench.rail_v``): a
value outside them is refused with one error naming where it came from, the field
and the accepted range, never analysed as if it were meant.

The ranges are physical bounds, not typical values: NAND pages of 512 B to 64 KiB,
register transfers of 0.1 µs to 1 ms, page programs of 10 µs to 20 ms, up to 64
channels and 1024 packages, a host link of 1 MB/s to 100 GB/s, a rail of 0.5-60 V.

Example
-------
>>> check_given({"channels": 8, "packages": 16, "page_size_bytes": 4096}, where="x")["packages"]
16
>>> check_given({"channels": 10**12, "packages": 4}, where="session.json")
Traceback (most recent call last):
ValueError: session.json: drive.given.channels = 1000000000000 is out of range: accepted an integer 1 ... 64
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["GIVEN_RANGES", "RAIL_V_RANGE", "check_given", "check_rail_v"]

# name: (integer?, low, high, unit) - inclusive bounds
GIVEN_RANGES: dict[str, tuple[bool, float, float, str]] = {
    "channels": (True, 1, 64, ""),
    "packages": (True, 1, 1024, ""),
    "page_size_bytes": (True, 512, 65536, " B"),
    "t_xfer_page_s": (False, 1e-7, 1e-3, " s"),
    "t_switch_s": (False, 0.0, 1e-3, " s"),
    "t_prog_s": (False, 1e-5, 2e-2, " s"),
    "host_rate_bytes_per_s": (False, 1e6, 1e11, " B/s"),
}
RAIL_V_RANGE = (0.5, 60.0)


def _accepted(integer: bool, lo: float, hi: float, unit: str) -> str:
    return f"{'an integer' if integer else 'a number'} {lo:g} ... {hi:g}{unit}"


def _check(name: str, value: Any, spec: tuple[bool, float, float, str], where: str, field: str) -> float | int:
    integer, lo, hi, unit = spec

    def fail():
        raise ValueError(f"{where + ': ' if where else ''}{field} = {value!r:.40} is out of range: "
                         f"accepted {_accepted(*spec)}")

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail()
    if integer and not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
        fail()
    if not math.isfinite(value) or not lo <= value <= hi:
        fail()
    return int(value) if integer else float(value)


def check_given(values: Any, *, where: str, prefix: str = "drive.given.") -> dict[str, Any]:
    """``values`` with every known field checked (unknown fields are passed through).

    Raises ValueError with one sentence: where, the field, the accepted range.
    """
    if not isinstance(values, dict):
        raise ValueError(f"{where + ': ' if where else ''}{prefix.rstrip('.')} = {values!r:.40} is not a table of values")
    out = dict(values)
    for name, spec in GIVEN_RANGES.items():
        if values.get(name) is not None:
            out[name] = _check(name, values[name], spec, where, prefix + name)
    # Written by hand in microseconds (``t_prog_us``): the same bounds, in µs.
    for name, spec in GIVEN_RANGES.items():
        if name.endswith("_s") and values.get(name[:-2] + "_us") is not None:
            integer, lo, hi, _ = spec
            _check(name, values[name[:-2] + "_us"], (integer, lo * 1e6, hi * 1e6, " µs"), where,
                   prefix + name[:-2] + "_us")
    ch, pk = out.get("channels"), out.get("packages")
    if ch is not None and pk is not None and ch > pk:
        raise ValueError(f"{where + ': ' if where else ''}{prefix}channels = {ch} is more than {prefix}packages = {pk}: "
                         "every channel serves at least one package (accepted: channels <= packages)")
    return out


def check_rail_v(value: Any, *, where: str, field: str = "bench.rail_v") -> float:
    return float(_check("rail_v", value, (False, *RAIL_V_RANGE, " V"), where, field))

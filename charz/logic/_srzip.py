"""sigrok session files (``.sr``, "srzip" version 2): write and read, pure and round-trip tested.

The layout, as libsigrok 0.5's ``src/output/srzip.c`` writes it and its
``session_file.c`` reads it (checked against a file ``sigrok-cli -d demo -o x.sr``
made on this machine): a zip archive holding

* ``version`` — the text ``2``;
* ``metadata`` — an INI file::

      [global]
      sigrok version=0.5.2

      [device 1]
      capturefile=logic-1
      total probes=1
      samplerate=1 MHz
      total analog=0
      probe1=RB
      unitsize=1

* ``logic-1-1``, ``logic-1-2``, … — the raw samples, ``unitsize`` bytes each,
  bit k of a unit is ``probe{k+1}``, chunk files numbered from 1 in order.

charz writes one probe (R/B) with unitsize 1; the reader takes any unitsize.
"""

from __future__ import annotations

import configparser
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from charz.errors import LogicError

__all__ = ["SessionMeta", "format_metadata", "parse_metadata", "format_samplerate", "parse_samplerate",
           "write_session", "read_session_chunks"]

_SR_VERSION = "0.5.2"  # what Debian bookworm's libsigrok writes; readers do not check it


@dataclass(frozen=True)
class SessionMeta:
    """The ``[device 1]`` section of ``metadata``."""

    samplerate_hz: float
    probes: tuple[str, ...]
    unitsize: int = 1
    capturefile: str = "logic-1"


_UNITS = (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3), ("Hz", 1.0))


def format_samplerate(hz: float) -> str:
    """libsigrok's ``sr_samplerate_string``: the largest unit that divides exactly.

    >>> format_samplerate(1e6), format_samplerate(24e6), format_samplerate(250e3), format_samplerate(1500)
    ('1 MHz', '24 MHz', '250 kHz', '1500 Hz')
    """
    if not (hz > 0 and float(hz).is_integer()):
        raise ValueError(f"a sigrok samplerate is a whole number of Hz, not {hz}")
    n = int(hz)
    for unit, scale in _UNITS:
        if n % int(scale) == 0:
            return f"{n // int(scale)} {unit}"
    raise AssertionError("unreachable")


def parse_samplerate(text: str) -> float:
    """``"1 MHz"`` → 1e6; also sigrok-cli's ``1m``/``24M``/``250k`` spellings.

    >>> parse_samplerate("24 MHz"), parse_samplerate("250k"), parse_samplerate("1000000")
    (24000000.0, 250000.0, 1000000.0)
    """
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgG]?)(?:Hz)?\s*", text)
    if not m:
        raise ValueError(f"not a samplerate: {text!r}")
    scale = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    return float(m.group(1)) * scale


def format_metadata(meta: SessionMeta) -> str:
    lines = ["[global]", f"sigrok version={_SR_VERSION}", "", "[device 1]",
             f"capturefile={meta.capturefile}", f"total probes={len(meta.probes)}",
             f"samplerate={format_samplerate(meta.samplerate_hz)}", "total analog=0"]
    lines += [f"probe{i + 1}={name}" for i, name in enumerate(meta.probes)]
    lines += [f"unitsize={meta.unitsize}", ""]
    return "\n".join(lines)


def parse_metadata(text: str) -> SessionMeta:
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(text)
        dev = cp["device 1"]
        n = int(dev["total probes"])
        probes = tuple(dev.get(f"probe{i + 1}", "") for i in range(n))
        return SessionMeta(parse_samplerate(dev["samplerate"]), probes, int(dev.get("unitsize", "1")),
                           dev.get("capturefile", "logic-1"))
    except (configparser.Error, KeyError, ValueError) as exc:
        raise LogicError(f"sigrok session metadata is malformed: {exc}",
                         hint="the .sr file is damaged or not a sigrok session") from exc


def write_session(path: str | Path, chunks: Iterable[np.ndarray], meta: SessionMeta, *,
                  chunk_bytes: int = 4 << 20) -> int:
    """Write ``chunks`` (uint8, ``meta.unitsize`` bytes per sample) as a session file; returns samples.

    Chunks are regrouped into ``logic-1-k`` members of ``chunk_bytes`` (sigrok reads any size).
    Deflate level 1: R/B streams are long runs, which it shrinks ~100× at little cost.
    """
    if meta.unitsize != 1:
        raise ValueError("charz writes unitsize 1 (up to 8 probes)")
    k, total = 0, 0
    pending: list[np.ndarray] = []
    size = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("version", "2")
        z.writestr("metadata", format_metadata(meta))

        def flush(buf: bytes) -> None:
            nonlocal k
            k += 1
            z.writestr(f"{meta.capturefile}-{k}", buf)

        for c in chunks:
            a = np.ascontiguousarray(c, dtype=np.uint8)
            total += a.size
            pending.append(a)
            size += a.size
            while size >= chunk_bytes:
                joined = np.concatenate(pending)
                flush(joined[:chunk_bytes].tobytes())
                rest = joined[chunk_bytes:]
                pending, size = ([rest] if rest.size else []), rest.size
        if size:
            flush(np.concatenate(pending).tobytes())
    return total


def read_session_chunks(path: str | Path) -> tuple[SessionMeta, Iterator[np.ndarray]]:
    """charz's own reader (tests compare it with ``sigrok-cli -i``): metadata and the chunks in order."""
    try:
        z = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise LogicError(f"{path}: not a sigrok session file ({exc})") from exc
    with z:
        if z.read("version").strip() != b"2":
            raise LogicError(f"{path}: sigrok session version {z.read('version')!r}, charz reads 2")
        meta = parse_metadata(z.read("metadata").decode())
        pat = re.compile(re.escape(meta.capturefile) + r"-([0-9]+)")
        names = sorted((int(m.group(1)), n) for n in z.namelist() if (m := pat.fullmatch(n)))
        data = [np.frombuffer(z.read(n), np.uint8) for _, n in names]

    def it() -> Iterator[np.ndarray]:
        yield from data

    return meta, it()

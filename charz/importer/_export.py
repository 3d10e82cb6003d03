"""An archive → files as a scope saves them, plus the manifest ``charz import`` reads back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tomli_w

from charz.archive import read_archive, write_atomic
from charz.errors import UsageError
from charz.importer._isf import format_isf
from charz.importer._keysight import format_bin
from charz.importer._manifest import MANIFEST_NAME
from charz.waveform import Waveform

FORMATS = {"tek-csv": ".csv", "isf": ".isf", "tek-wfm": ".wfm", "keysight-bin": ".bin"}


def _scope_model(bench: dict) -> str:
    """The model of the session's scope (``TEKTRONIX,DPO3014,C01,FV:v2.14`` → ``DPO3014``); "" if unknown."""
    idn = bench.get("scope")
    if isinstance(idn, dict):
        idn = idn.get("model", "")
    parts = [p.strip() for p in str(idn or "").split(",")]
    return parts[1] if len(parts) >= 2 else parts[0]


def _tek_csv_model(path: Path, model: str) -> None:
    """tm_data_types writes ``Model,MSO54`` whatever the scope was: say the session's own
    model, or none (a reader then falls back to the layout, as for any scope's file)."""
    lines = path.read_text("utf-8").split("\n")
    if lines and lines[0].startswith("Model,"):
        if model:
            lines[0] = f"Model,{model}"
        else:
            del lines[0]
        text = "\n".join(lines)
        write_atomic(path, lambda f: f.write(text.encode("utf-8")))


def _tek_file(path: Path, w: Waveform, model: str) -> None:
    import tm_data_types  # lazy: tm_data_types

    wf = tm_data_types.AnalogWaveform()
    wf.source_name = w.source
    wf.y_axis_values = np.asarray(w.codes)
    wf.y_axis_spacing = w.y_mult
    wf.y_axis_offset = w.y_zero - w.y_offset_codes * w.y_mult   # value = code * spacing + offset
    wf.y_axis_units = w.unit
    wf.x_axis_spacing = w.sample_interval_s
    wf.trigger_index = -w.t_first_s / w.sample_interval_s
    tm_data_types.write_file(str(path), wf)
    if path.suffix == ".csv":
        _tek_csv_model(path, model)


def export_archive(session: Path, out: Path, fmt: str, *, progress=None) -> int:
    """Write every capture of ``session`` into ``out`` as ``fmt`` files and a manifest; returns the count."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", hint="one of " + ", ".join(FORMATS))
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} exists and is not empty", hint="choose a new directory")
    archive = read_archive(session)
    model = _scope_model(archive.metadata.get("bench") or {})
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for cap in archive.captures:
        w = cap.channel("current").waveform
        name = f"{cap.index:06d}-{cap.op}-{cap.size_bytes}{FORMATS[fmt]}"
        path = out / name
        if fmt == "isf":
            data = format_isf(w)
            write_atomic(path, lambda f, d=data: f.write(d))
        elif fmt == "keysight-bin":
            data = format_bin(w)
            write_atomic(path, lambda f, d=data: f.write(d))
        else:
            _tek_file(path, w, model)
        entries.append({"file": name, "op": cap.op, "size_bytes": cap.size_bytes,
                        "offset_bytes": cap.offset_bytes, "repeat": cap.repeat})
        if progress is not None:
            progress.advance()
    meta = archive.metadata
    doc = {"time_reference": archive.captures[0].time_reference if archive.captures else "trigger",
           "drive": _toml_safe(meta.get("drive") or {}), "bench": _toml_safe(meta.get("bench") or {}),
           "capture": entries}
    text = f"# written by charz export from {session}\n" + tomli_w.dumps(doc)
    write_atomic(out / MANIFEST_NAME, lambda f: f.write(text.encode("utf-8")))
    return len(entries)


def _toml_safe(d: dict) -> dict:
    """TOML has no null: drop None values (nested too)."""
    return {k: _toml_safe(v) if isinstance(v, dict) else v for k, v in d.items() if v is not None}

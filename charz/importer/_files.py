"""One scope-saved file → a :class:`Waveform`, by its suffix (and a CSV by its first line)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from charz.errors import UsageError
from charz.importer._isf import parse_isf
from charz.importer._keysight import parse_bin, parse_keysight_csv
from charz.importer._waveform import Waveform

SUFFIXES = (".csv", ".isf", ".wfm", ".bin")


def _tek(path: Path) -> Waveform:
    import tm_data_types  # Tektronix's own reader/writer for its CSV and WFM files

    wf = tm_data_types.read_file(str(path))
    if not hasattr(wf, "normalized_vertical_values"):
        raise ValueError(f"holds a {type(wf).__name__}, not an analog waveform")
    values = np.asarray(wf.normalized_vertical_values, dtype=np.float64)
    t = np.asarray(wf.normalized_horizontal_values, dtype=np.float64)
    if values.size < 2:
        raise ValueError("fewer than two samples")
    return Waveform(sample_interval_s=float(wf.x_axis_spacing), t_first_s=float(t[0]),
                    unit=str(wf.y_axis_units or "V"), source=str(wf.source_name or "CH1"), values=values)


def _is_tek_csv(path: Path) -> bool:
    with path.open("r", encoding="utf-8", errors="replace") as f:
        head = "".join(f.readline() for _ in range(12))
    return any(k in head for k in ("Record Length", "Sample Interval", "Model,", "Waveform Type"))


def read_waveform(path: Path) -> Waveform:
    """The record in ``path``; a :class:`UsageError` naming the file when it cannot be read."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"{path}: unknown suffix {path.suffix!r}",
                         hint="charz import reads " + ", ".join(SUFFIXES) + " files")
    try:
        if suffix == ".isf":
            w = parse_isf(path.read_bytes())
        elif suffix == ".bin":
            w = parse_bin(path.read_bytes())
        elif suffix == ".wfm" or _is_tek_csv(path):
            w = _tek(path)
        else:
            w = parse_keysight_csv(path.read_text("utf-8", errors="replace"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except Exception as exc:  # a parser's complaint (ours or tm_data_types'), whatever its type
        raise UsageError(f"{path}: not a readable {suffix[1:].upper()} waveform: {exc}",
                         hint="save it again from the scope, or remove it from the manifest") from None
    if not (np.isfinite(w.sample_interval_s) and w.sample_interval_s > 0):
        raise UsageError(f"{path}: sample interval {w.sample_interval_s!r} is not a positive number")
    return w

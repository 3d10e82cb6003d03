"""One scope-saved file → its records (:class:`Saved` waveforms), by suffix and content.

Tek WFM goes through Tektronix's tm_data_types.  A Tek CSV goes through charz's own parser
(:mod:`charz.importer._tekcsv`): tm_data_types 0.5 reads neither the six-column TDS/TBS
layout nor several channels, fails on some blank rows (IndexError) and, worse, misreads a
TBS1000C's trailing-comma rows without a word (``0.04,0.02,0.06`` → ``0.04,3e-7,3e-7``;
tests/unit/test_importer_formats.py keeps that file), and re-quantizes what it reads to
float32.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from charz.errors import UsageError
from charz.importer._isf import parse_isf_records
from charz.importer._keysight import parse_bin_records, parse_keysight_csv_records
from charz.importer._tekcsv import is_tek_csv, parse_tek_csv
from charz.importer._waveform import Saved, saved_from_values, unit_symbol

SUFFIXES = (".csv", ".isf", ".wfm", ".bin")
_KINDS = {"IQWaveform": "an RF I/Q record", "DigitalWaveform": "a digital (logic) record"}


def _tm_read(path: Path):
    import tm_data_types  # Tektronix's own reader/writer for its CSV and WFM files

    with warnings.catch_warnings():   # its complex-to-float cast on IQ files warns before failing
        warnings.simplefilter("ignore")
        return tm_data_types.read_file(str(path))


def _tek_wfm(path: Path) -> Saved:
    wf = _tm_read(path)
    kind = type(wf).__name__
    if kind != "AnalogWaveform":
        raise _NotAnalog(_KINDS.get(kind, f"a {kind}"))
    values = np.asarray(wf.normalized_vertical_values, dtype=np.float64)
    t = np.asarray(wf.normalized_horizontal_values, dtype=np.float64)
    if values.size < 2:
        raise ValueError("fewer than two samples")
    return saved_from_values(values, float(wf.x_axis_spacing), float(t[0]), unit=unit_symbol(str(wf.y_axis_units or "V")),
                             source=str(wf.source_name or "CH1"))


class _NotAnalog(Exception):
    """The file holds something other than sampled analog channels (said in one sentence)."""


def _head(path: Path) -> str:
    with path.open("r", encoding="utf-8", errors="replace") as f:
        return "".join(f.readline() for _ in range(12))


def read_records(path: Path) -> list[Saved]:
    """Every record in ``path`` (one per saved channel); a :class:`UsageError` naming the file otherwise."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"{path}: unknown suffix {path.suffix!r}",
                         hint="charz import reads " + ", ".join(SUFFIXES) + " files")
    try:
        if suffix == ".isf":
            records = parse_isf_records(path.read_bytes())
        elif suffix == ".bin":
            records = parse_bin_records(path.read_bytes())
        elif suffix == ".wfm":
            records = [_tek_wfm(path)]
        elif is_tek_csv(_head(path)):
            records = parse_tek_csv(path.read_text("utf-8", errors="replace"))
        else:
            records = parse_keysight_csv_records(path.read_text("utf-8", errors="replace"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except _NotAnalog as exc:
        raise UsageError(f"{path} holds {exc}, not sampled analog channels; charz imports a current "
                         "probe's samples only.", hint="save the probe's channel (CH1…) as CSV, ISF or WFM, "
                         "or remove the file from the manifest") from None
    except Exception as exc:  # a parser's complaint (ours or tm_data_types'), whatever its type
        if "waveform, not an analog one" in str(exc):
            raise UsageError(f"{path}: {exc}.", hint="remove it from the manifest") from None
        raise UsageError(f"{path}: not a readable {suffix[1:].upper()} waveform: {exc}",
                         hint="save it again from the scope, or remove it from the manifest") from None
    for w in records:
        if not (np.isfinite(w.sample_interval_s) and w.sample_interval_s > 0):
            raise UsageError(f"{path}: sample interval {w.sample_interval_s!r} is not a positive number")
    return records


def read_waveform(path: Path) -> Saved:
    """The first record in ``path`` (see :func:`read_records` for all of them)."""
    return read_records(path)[0]

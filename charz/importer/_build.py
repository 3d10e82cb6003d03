"""A folder of scope files + manifest → a capture archive, through the archive writer."""

from __future__ import annotations

from pathlib import Path

from charz.archive import ArchiveWriter, Capture, Channel, Scaling
from charz.errors import UsageError
from charz.importer._files import read_waveform
from charz.importer._manifest import MANIFEST_NAME, Manifest, load_manifest
from charz.importer._quantize import to_codes
from charz.importer._waveform import Waveform


def _channel(w: Waveform, path: Path, amps_per_volt: float | None) -> tuple[Channel, list[str]]:
    warnings: list[str] = []
    if w.codes is not None:
        codes, mult, off, zero = w.codes, w.y_mult, w.y_offset_codes, w.y_zero
        lo, hi = w.code_min, w.code_max
    else:
        q = to_codes(w.values)
        codes, mult, off, zero = q.codes, q.y_mult, q.y_offset_codes, q.y_zero
        lo, hi = -(1 << 15), (1 << 15) - 1   # the file does not say where the ADC clipped
        if not q.exact:
            warnings.append("samples on no grid, quantized to 16 bits over their range")
        warnings.append("the file does not give the ADC's limits; clipped samples cannot be recognised")
    unit = w.unit
    if unit not in ("A",):
        if unit != "V" and unit:
            raise UsageError(f"{path}: samples in {unit!r}", hint="save the current channel in A or V")
        if amps_per_volt is None:
            raise UsageError(f"{path}: samples in volts and the manifest has no amps_per_volt",
                             hint="add amps_per_volt = … (current probe or shunt: A per V) to the manifest")
        mult, zero, unit = mult * amps_per_volt, zero * amps_per_volt, "A"
    ch = Channel("current", codes, Scaling(y_mult=mult, y_offset_codes=off, y_zero=zero, unit=unit),
                 source=w.source or "CH1", code_min=int(lo), code_max=int(hi))
    return ch, warnings


def import_folder(folder: Path, out: Path, *, manifest: Path | None = None,
                  progress=None) -> tuple[int, list[str]]:
    """Write the archive ``out`` from ``folder``; returns (captures written, each warning once).

    Every file is read and checked before the archive is created, so a malformed file
    leaves nothing behind.
    """
    man: Manifest = load_manifest(manifest or folder / MANIFEST_NAME)
    captures, warnings = [], []
    for e in man.entries:
        path = folder / e.file
        if not path.is_file():
            raise UsageError(f"{path}: listed in the manifest but not there")
        w = read_waveform(path)
        ch, warn = _channel(w, path, man.amps_per_volt)
        warnings += warn
        captures.append(Capture(step=len(captures), op=e.op, size_bytes=e.size_bytes, offset_bytes=e.offset_bytes,
                                repeat=e.repeat, sample_interval_s=w.sample_interval_s,
                                t_first_sample_s=w.t_first_s, time_reference=man.time_reference,
                                channels=[ch], warnings=warn, extra={"imported_from": e.file}))
        if progress is not None:
            progress.advance()
    bench = {"kind": "real", **man.bench, "imported_from": str(folder)}
    plan = {"steps": [{"id": c.step, "op": c.op, "size_bytes": c.size_bytes, "offset_bytes": c.offset_bytes,
                       "repeat": c.repeat} for c in captures]}
    with ArchiveWriter.create(out, {"drive": man.drive, "bench": bench, "plan": plan}) as writer:
        for c in captures:
            writer.append(c)
        writer.update_metadata(tool_command="charz import")
    return len(captures), list(dict.fromkeys(warnings))

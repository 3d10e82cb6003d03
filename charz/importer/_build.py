"""A folder of scope files + manifest → a capture archive, through the archive writer."""

from __future__ import annotations

import re
from pathlib import Path

from charz.archive import ArchiveWriter, Capture, Channel
from charz.errors import UsageError
from charz.importer._files import read_records
from charz.importer._manifest import MANIFEST_NAME, Entry, Manifest, load_manifest
from charz.importer._waveform import Saved
from charz.waveform import Waveform


def _channel(w: Saved, path: Path, name: str, amps_per_volt: float | None,
             axis: Waveform) -> tuple[Channel, list[str]]:
    """The archive channel of ``w``, on ``axis``'s time axis (a capture's channels share the
    current's; the others were checked to have its length and sample interval)."""
    warnings: list[str] = []
    mult, zero = w.y_mult, w.y_zero
    lo, hi = w.code_min, w.code_max
    if not w.on_grid:
        warnings.append("samples on no grid, quantized to 16 bits over their range")
    if lo is None or hi is None:
        lo, hi = -(1 << 15), (1 << 15) - 1   # the file does not say where the ADC clipped
        warnings.append("the file does not give the ADC's limits; clipped samples cannot be recognised")
    unit = w.unit or "V"
    if unit not in ("A", "V"):
        raise UsageError(f"{path}: {w.source} holds samples in {unit!r}", hint="save the current channel in A or V")
    if name == "current" and unit == "V":
        if amps_per_volt is None:
            raise UsageError(f"{path}: samples in volts and the manifest has no amps_per_volt",
                             hint="add amps_per_volt = … (current probe or shunt: A per V) to the manifest")
        mult, zero, unit = mult * amps_per_volt, zero * amps_per_volt, "A"
    ch = Channel(name, Waveform(w.codes, mult, w.y_offset_codes, zero, axis.sample_interval_s, axis.t_first_s,
                                unit=unit, source=w.source or "CH1", code_min=lo, code_max=hi))
    return ch, warnings


def channel_name(source: str) -> str:
    """An archive channel name for a saved channel (``CH2`` → ``ch2``, ``Channel 2`` → ``channel_2``).

    >>> channel_name("CH2"), channel_name("Channel 2"), channel_name("2"), channel_name("MATH1")
    ('ch2', 'channel_2', 'ch2', 'math1')
    """
    name = re.sub(r"[^a-z0-9_]+", "_", source.strip().lower()).strip("_")[:32]
    return name if name[:1].isalpha() else ("ch" + name)[:32]


def _canonical(source: str) -> str:
    """``CH2``, ``Channel 2``, ``chan2`` and a Keysight CSV's column ``2`` are one channel."""
    name = channel_name(source)
    m = re.fullmatch(r"(?:ch|chan|channel)_?(\d+)", name)
    return f"ch{int(m.group(1))}" if m else name


def _same(a: str, b: str) -> bool:
    return _canonical(a) == _canonical(b)


def _pick(records: list[Saved], path: Path, e: Entry, man: Manifest) -> tuple[Saved, list[Saved], list[str]]:
    """(the current's record, the others to keep, warnings); refusals name the channels."""
    warnings = []
    names = [w.source for w in records]
    # skip names channels, or "digital" for every logic channel (an MDO saves D0…D15 together)
    kept = [w for w in records if not any(_same(w.source, s) or (s.lower() in ("digital", "logic")
                                                                 and w.mode == "digital") for s in man.skip)]
    if len(kept) < len(records):
        left = [w.source for w in records if w not in kept]
        warnings.append("left out as the manifest's skip says: " + ", ".join(left[:6])
                        + (f" … ({len(left)} channels)" if len(left) > 6 else ""))
    if len({w.source for w in kept}) < len(kept):        # a TDS T0000CH1.ISF: the same channel twice
        warnings.append(f"{path.name} holds {len(kept)} records of {kept[0].source}; the first is imported")
        kept = [kept[0]]
    want = e.channel or man.channel
    if want is not None:
        chosen = [w for w in kept if _same(w.source, want)]
        if not chosen:
            raise UsageError(f"{path}: no channel {want!r}; the file holds {', '.join(names)}")
        current = chosen[0]
    else:
        analog = [w for w in kept if w.mode != "digital"] or kept
        amps = [w for w in analog if w.unit == "A" and w.mode == "sample"]
        if len(analog) == 1:
            current = analog[0]
        elif len(amps) == 1:
            current = amps[0]
        else:
            raise UsageError(f"{path} holds {len(analog)} analog channels ({', '.join(w.source for w in analog)}) "
                             "and does not say which is the current",
                             hint=f'add channel = "{analog[0].source}" to the manifest (all captures) or to '
                                  'this [[capture]]; the other channels are kept beside it')
    for w in kept:
        if w.mode == "envelope":
            raise UsageError(f"{path}: {w.source} was saved in peak-detect (envelope) mode: min/max pairs, "
                             "not samples of the current",
                             hint="acquire in sample or high-res mode and save again" + (
                                 f", or add skip = [\"{w.source}\"] to the manifest" if w is not current else ""))
        if w.mode == "digital":
            logic = [x.source for x in kept if x.mode == "digital"]
            shown = ", ".join(logic[:4]) + (f" … ({len(logic)} in all)" if len(logic) > 4 else "")
            raise UsageError(f"{path}: {shown} {'is a logic channel' if len(logic) == 1 else 'are logic channels'}; "
                             "a session keeps analog channels only",
                             hint=f'add skip = ["{logic[0]}"] to the manifest to import the file without it'
                             if len(logic) == 1 else 'add skip = ["digital"] to the manifest to import the file '
                                                     'without its logic channels')
        if w.n_samples != current.n_samples or w.sample_interval_s != current.sample_interval_s:
            raise UsageError(f"{path}: {w.source} has {w.n_samples} samples every {w.sample_interval_s:g} s, "
                             f"{current.source} {current.n_samples} every {current.sample_interval_s:g} s",
                             hint=f'one capture holds channels of one time base: add skip = ["{w.source}"]')
    if current.math:
        warnings.append(f"{path.name}: {current.source} is a Math/Reference trace (computed by the scope), "
                        "imported as the current")
    return current, [w for w in kept if w is not current], warnings


def import_folder(folder: Path, out: Path, *, manifest: Path | None = None,
                  progress=None) -> tuple[int, list[str]]:
    """Write the archive ``out`` from ``folder``; returns (captures written, each warning once).

    Every file is read and checked before the archive is created, so a malformed file
    leaves nothing behind.
    """
    man: Manifest = load_manifest(manifest or folder / MANIFEST_NAME)
    captures, warnings, models = [], [], set()
    for e in man.entries:
        path = folder / e.file
        if not path.is_file():
            raise UsageError(f"{path}: listed in the manifest but not there")
        current, others, warn = _pick(read_records(path), path, e, man)
        models |= {current.model} - {""}
        ch, w1 = _channel(current, path, "current", man.amps_per_volt, current)
        channels, warn = [ch], warn + w1
        for w in others:
            name = channel_name(w.source)
            if name == "current" or name in {c.name for c in channels}:
                name = channel_name("ch_" + w.source)
            extra, w2 = _channel(w, path, name, man.amps_per_volt, current)
            channels.append(extra)
            warn += w2
        if others:
            warn.append(f"{len(others) + 1} channels per file kept: current ({current.source}), "
                        + ", ".join(f"{c.name} ({c.waveform.source})" for c in channels[1:]))
        warnings += warn
        captures.append(Capture(step=len(captures), op=e.op, size_bytes=e.size_bytes, offset_bytes=e.offset_bytes,
                                repeat=e.repeat, time_reference=man.time_reference,
                                channels=channels, warnings=list(dict.fromkeys(warn)),
                                extra={"imported_from": e.file}))
        if progress is not None:
            progress.advance()
    bench = {"kind": "real", **man.bench, "imported_from": str(folder)}
    if models and "scope" not in bench:    # the scope that saved the files, as the files say
        bench["scope"] = " / ".join(sorted(models))
    plan = {"steps": [{"id": c.step, "op": c.op, "size_bytes": c.size_bytes, "offset_bytes": c.offset_bytes,
                       "repeat": c.repeat} for c in captures]}
    with ArchiveWriter.create(out, {"drive": man.drive, "bench": bench, "plan": plan}) as writer:
        for c in captures:
            writer.append(c)
        writer.update_metadata(tool_command="charz import")
    return len(captures), list(dict.fromkeys(warnings))

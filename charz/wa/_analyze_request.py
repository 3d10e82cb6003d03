"""What a ``charz wa analyze`` is asked to do, read and checked here rather than in the CLI.

One R/B recording per step, the host's written bytes for each (Eq. 7's L_Volume_Data is
not in a recording), M_p given or found by 000 §3.5's calibration run, the windows and
the stop rule with 000's defaults and what to say of them.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from charz.analysis import PulseWindows, WaGeometry
from charz.errors import UsageError
from charz.logic import parse_samplerate
from charz.wa._jobs import parse_size
from charz.wa._records import HostVolume, WaSettings, WaStep
from charz.wa._request import die_notes, parse_window, resolve_geometry, settle_notes

__all__ = ["WaAnalyzeRequest", "volumes_for"]


def volumes_for(n_files: int, host_bytes: Sequence[str], fio_json: Sequence[Path],
                blockstat: Sequence[str]) -> list[HostVolume]:
    """One host volume per file, from exactly one of the three options (given once per file)."""
    given = [(name, v) for name, v in (("--host-bytes", host_bytes), ("--fio-json", fio_json),
                                        ("--blockstat", blockstat)) if v]
    if len(given) != 1:
        raise UsageError("give the host's written bytes one way: --host-bytes N, --fio-json FILE or "
                         "--blockstat BEFORE,AFTER (once per FILE, in order)",
                         hint="L_Volume_Data of Eq. 7 is not in an R/B recording")
    name, vals = given[0]
    if len(vals) != n_files:
        raise UsageError(f"{n_files} file{'s' if n_files != 1 else ''} but {len(vals)} {name}: give one per FILE, "
                         "in the same order")
    out = []
    for v in vals:
        if name == "--host-bytes":
            out.append(HostVolume(host_bytes=parse_size(v)))
        elif name == "--fio-json":
            out.append(HostVolume(fio_json=str(Path(v).resolve())))
        else:
            before, sep, after = v.partition(",")
            if not sep:
                raise UsageError(f"--blockstat wants BEFORE,AFTER (two files with /sys/block/X/stat), not {v!r}")
            out.append(HostVolume(blockstat=(str(Path(before).resolve()), str(Path(after).resolve()))))
    return out


@dataclass(frozen=True)
class WaAnalyzeRequest:
    """A checked ``charz wa analyze``: one recorded step per file, the R/B channels to count,
    the windows, the stop rule and Eq. 7's constants.  Build it with :meth:`build`."""

    out: Path
    plan: tuple[WaStep, ...]
    channels: tuple[str, ...]  # the R/B channels in the files, one per die counted
    windows: PulseWindows
    samplerate_hz: float | None  # None: each file says its own
    settle_s: float
    min_gap_us: float
    geometry: WaGeometry
    notes: tuple[str, ...]
    m_p_given: int | None = None
    planes: int | None = None
    pages_per_block: int | None = None

    @classmethod
    def build(cls, files: Sequence[Path], *, input_format: str | None = None, channel: str = "D0",
              samplerate: str | None = None, host_bytes: Sequence[str] = (), fio_json: Sequence[Path] = (),
              blockstat: Sequence[str] = (), calibration: bool = False, mp: int | None = None,
              channels: int | None = None, chips: int | None = None, dies: int | None = None,
              page_size: str | None = None, planes: int | None = None, pages_per_block: int | None = None,
              profile: Path | None = None, program_window: str = "200,2200", read_window: str = "2,200",
              erase_window: str = "2200,20000", glitch: float = 2.0, min_gap: float | None = None,
              settle: float | None = None, out: Path | None = None,
              now: datetime.datetime | None = None) -> "WaAnalyzeRequest":
        """Check the options as ``charz wa analyze`` takes them; bad ones raise :class:`UsageError`."""
        if mp is None and not calibration:
            raise UsageError("give --mp N, or --calibration with the sequential calibration recording first",
                             hint="000 §3.5: M_p is 1 (single-plane programs) or the number of planes")
        if mp is not None and calibration:
            raise UsageError("--mp and --calibration both set M_p: give one")
        try:
            rate = parse_samplerate(samplerate) if samplerate else None
            windows = PulseWindows(program_us=parse_window(program_window), read_us=parse_window(read_window),
                                   erase_us=parse_window(erase_window), glitch_us=glitch)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        names = tuple(x.strip() for x in channel.split(",") if x.strip())
        if not names or len(set(names)) != len(names):
            raise UsageError(f"--channel names each R/B channel once, not {channel!r}")
        for f in files:
            if not Path(f).is_file():
                raise UsageError(f"{f}: no such file")
        volumes = volumes_for(len(files), host_bytes, fio_json, blockstat)
        geometry = resolve_geometry(channels, chips, dies, page_size, profile)
        settle, min_gap, notes = settle_notes(settle, min_gap)
        notes += die_notes(len(names), geometry.dies, "--channel D0,D1,…")
        plan = tuple(WaStep("calibrate" if calibration and k == 0 else "benchmark", str(Path(f).resolve()),
                            recorded=True, input_format=input_format, label=Path(f).name, host_volume=v)
                     for k, (f, v) in enumerate(zip(files, volumes)))
        out = out or Path("runs") / f"wa-{(now or datetime.datetime.now()):%Y%m%d-%H%M%S}"
        return cls(out=Path(out), plan=plan, channels=names, windows=windows, samplerate_hz=rate,
                   settle_s=settle, min_gap_us=min_gap, geometry=geometry, notes=tuple(notes), m_p_given=mp,
                   planes=planes, pages_per_block=pages_per_block)

    def settings(self, bench: Mapping[str, Any]) -> WaSettings:
        """The run's settings with the file bench's description (recordings have no settle timeout)."""
        return WaSettings(plan=self.plan, windows=self.windows, samplerate_hz=self.samplerate_hz,
                          settle_s=self.settle_s, settle_timeout_s=None, geometry=self.geometry, bench=bench,
                          m_p_given=self.m_p_given, planes=self.planes, pages_per_block=self.pages_per_block,
                          min_gap_us=self.min_gap_us, notes=self.notes)

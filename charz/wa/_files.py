"""Recorded R/B traces as a WA bench: ``charz wa analyze FILE…``, one file per step.

A recording charz did not make — a PulseView / ``sigrok-cli -o x.sr`` session, a VCD
or CSV from another analyser, raw binary — is read through the real ``sigrok-cli
-i FILE [-I FORMAT:OPTIONS] -O binary``, exactly as ``charz wa run`` reads its stream,
so the same counter, checks, Eq. 7 and archive apply.  What the file does not hold
comes from the user and keeps its origin: the geometry, the channel(s) (by the name
``sigrok-cli --show`` lists, or D<k>/k for bit k), and the host's written bytes
(given, fio's JSON, or two ``/sys/block/X/stat`` readings).

A recording has no workload running any more: the stop rule (000 §4.2) is read off
its end — R/B must have been high for the settle time when it ends.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from charz.errors import UsageError, WorkloadError
from charz.logic import FileInfo, SigrokStream, StepOutcome, file_argv, show_file
from charz.wa._device import SECTOR, sectors_written
from charz.wa._records import HostVolume, WaStep
from charz.workload import parse_fio_json

__all__ = ["HostVolume", "FileWaBench", "volume_outcome", "resolve_channels"]


def volume_outcome(v: HostVolume) -> StepOutcome:
    """L_Volume_Data, its uncertainty and its origin, from what the user gave."""
    if v.host_bytes is not None:
        return StepOutcome(int(v.host_bytes), 0.0, f"given: {v.host_bytes} B written by the host")
    if v.fio_json is not None:
        try:
            text = Path(v.fio_json).read_text()
        except OSError as exc:
            raise UsageError(f"cannot read fio's JSON {v.fio_json}: {exc}") from None
        try:
            report = parse_fio_json(text)
        except WorkloadError as exc:
            raise UsageError(f"{v.fio_json}: {exc.message}",
                             hint="give the file fio wrote with --output-format=json") from None
        written = sum(j.write.io_bytes for j in report.jobs)
        return StepOutcome(written, 0.0, f"fio's JSON {os.path.basename(v.fio_json)} (write io_bytes {written} B)",
                           fio_json=text)
    if v.blockstat is not None:
        try:
            before, after = (sectors_written(Path(p).read_text()) for p in v.blockstat)
        except (OSError, WorkloadError) as exc:
            raise UsageError(f"cannot read the block stat files {', '.join(v.blockstat)}: {exc}",
                             hint="each holds one line of /sys/block/X/stat, read before and after the workload")
        if after < before:
            raise UsageError(f"{v.blockstat[1]} shows fewer written sectors than {v.blockstat[0]}",
                             hint="give the reading before the workload first (BEFORE,AFTER); a reboot resets it")
        n = (after - before) * SECTOR
        # the counter counts 512 B sectors: exact, but it counts every writer of the device
        return StepOutcome(n, 0.0, f"/sys/block stat deltas: {after - before} sectors × 512 B (measured; "
                                   "includes any other writer of the device)")
    raise UsageError("no host volume: give --host-bytes, --fio-json or --blockstat")


def resolve_channels(wanted: list[str], listed: tuple[str, ...], path: str) -> list[int]:
    """The bit of each wanted channel: by its name in the file, else D<k> / k is bit k.

    >>> resolve_channels(["RB1", "D0"], ("RB0", "RB1"), "x.vcd")
    [1, 0]
    """
    bits = []
    for ch in wanted:
        if ch in listed and listed.count(ch) == 1:
            bits.append(listed.index(ch))
            continue
        m = re.fullmatch(r"(?:D|CH)?([0-9]+)", ch, re.I)
        if not m or int(m.group(1)) >= len(listed):
            raise UsageError(f"{path} has no logic channel {ch!r} (it has {', '.join(listed) or 'none'})",
                             hint="name a channel as sigrok-cli --show -i FILE lists it, or by number (D0, 1, ...)")
        bits.append(int(m.group(1)))
    return bits


class _Running:
    """A recording read through sigrok-cli (``charz.wa.RunningStep``)."""

    counters = None  # a recording has no drive to ask

    def __init__(self, stream: SigrokStream, outcome: StepOutcome, rate: float, bits: list[int],
                 channels: list[str], info: FileInfo, rate_given: bool) -> None:
        self.stream = stream
        self.rate_given = rate_given
        self._outcome = outcome
        self.samplerate_hz = rate
        self.bits = bits
        self.channels = channels
        self.train = {"file": stream.argv[2], "samples": info.samples, "channels_in_file": list(info.channels)}

    def workload_done(self) -> bool:
        return True  # a recording: the workload ended before it was read

    def progress(self, samples_seen: int) -> tuple[float, str]:
        total = self.train["samples"]
        return (min(1.0, samples_seen / total) if total else 1.0), "reading the recording"

    def finish(self) -> StepOutcome:
        return self._outcome


class FileWaBench:
    """One recorded file per step (``step.file``; ``charz.wa.WaBench``); see the module docstring."""

    kind = "recorded"

    def __init__(self, channels: list[str], *, sigrok: str = "sigrok-cli", samplerate_hz: float | None = None) -> None:
        self.channels = channels
        self.sigrok = sigrok
        self.samplerate_hz = samplerate_hz  # given: overrides (or supplies) the file's own

    def describe(self) -> dict:
        return {"kind": "recorded", "sigrok": self.sigrok, "channels": self.channels,
                "samplerate_given_hz": self.samplerate_hz}

    def check(self, plan: list[WaStep]) -> None:
        """Every file readable, its samplerate known, the channels in it and the host volume
        readable — before an archive is made, so a typo leaves no half-made archive behind
        (which the same --out would then refuse)."""
        for step in plan:
            path, fmt = step.file, step.input_format
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such file")
            info = show_file(path, sigrok=self.sigrok, input_format=fmt)
            if not (self.samplerate_hz or info.samplerate_hz):
                raise UsageError(f"{path} does not say its samplerate",
                                 hint="give it: --samplerate 1M, or in the format's options (csv:samplerate=1000000)")
            resolve_channels(self.channels, info.channels, path)
            volume_outcome(step.host_volume)

    def start(self, index: int, step: WaStep, job) -> _Running:
        path, fmt = step.file, step.input_format
        if not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        info = show_file(path, sigrok=self.sigrok, input_format=fmt)
        rate = self.samplerate_hz or info.samplerate_hz
        if not rate:
            raise UsageError(f"{path} does not say its samplerate",
                             hint="give it: --samplerate 1M, or in the format's options (csv:samplerate=1000000)")
        bits = resolve_channels(self.channels, info.channels, path)
        outcome = volume_outcome(step.host_volume)
        stream = SigrokStream(file_argv(path, sigrok=self.sigrok, input_format=fmt), unitsize=info.unitsize,
                              strip_meta=True)
        # the user's --samplerate overrides the file's
        return _Running(stream, outcome, float(rate), bits, list(self.channels), info, self.samplerate_hz is not None)

    def cleanup(self, index: int) -> None:
        """Nothing to drop: the recordings are the user's."""

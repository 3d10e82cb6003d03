"""What ``run_plan`` asks of a bench: the :class:`WaBench` and :class:`RunningStep` protocols.

Three benches answer them: a real drive with fio and sigrok-cli (``charz.wa.DeviceWaBench``),
recordings charz did not make (``charz.wa.FileWaBench``), and the simulated FTL behind
the real sigrok-cli (``charz.sim.MockWaBench``, which the CLI wires in: runtime code
never imports the simulator).  The executor tells them apart by nothing but these
methods; what a bench is stays in its ``describe()``, stored in the archive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from charz.logic import SigrokStream, StepOutcome
from charz.wa._jobs import WaJob
from charz.wa._records import WaStep

__all__ = ["WaBench", "RunningStep"]


@runtime_checkable
class RunningStep(Protocol):
    """One step under way: its R/B stream, which bits of it are dies, and the workload.

    ``samplerate_hz`` is the rate the counter counts at; ``rate_given`` says the user
    set it over what the stream's own metadata says.  ``train`` describes a replayed or
    recorded trace (e.g. ``{"file": "x.sr", "samples": 120000}``), ``counters`` the
    drive's own counters read around the step (``{"before": ..., "after": ...}``,
    ``{"error": ...}``), each None where the bench has none.
    """

    stream: SigrokStream
    samplerate_hz: float
    rate_given: bool
    bits: list[int]
    channels: list[str]
    train: Mapping[str, Any] | None
    counters: Mapping[str, Any] | None

    def workload_done(self) -> bool: ...

    def progress(self, samples_seen: int) -> tuple[float, str]:
        """How far the step is, e.g. ``(0.4, "fio writing")``."""

    def finish(self) -> StepOutcome:
        """L_Volume_Data and its origin once the stream has ended; raises what the workload raised."""


@runtime_checkable
class WaBench(Protocol):
    """Where a WA run's steps run.  ``describe()`` is archived as ``bench``, e.g.
    ``{"kind": "device", "drive": {...}, "analyser": {...}}``."""

    kind: str

    def describe(self) -> dict[str, Any]: ...

    def start(self, index: int, step: WaStep, job: WaJob | None) -> RunningStep: ...

    def cleanup(self, index: int) -> None:
        """After step ``index`` is committed: drop what only the step needed."""

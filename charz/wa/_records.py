"""A WA run's settings, steps and step records as frozen values; JSON only at the archive.

``charz.archive.WaArchive`` stores plain JSON documents (``wa.json``, ``steps/NNNN.json``);
this module is their one (de)serialiser on the charz.wa side: :meth:`WaSettings.from_dict`
reads the settings as every ``charz-wa/1`` archive wrote them (old ones too: a key a
later charz added is optional), :meth:`WaRecord.to_dict` writes a step's record in the
layout docs/wa.md describes.

A plan step is one of three kinds: ``calibrate`` (000 §3.5's M_p run), ``benchmark``
(a Table 3 job file at one request size) and ``subtest`` (sub-test ``k`` of one
workload, 000 Fig. 10, at an OP ``op_percent`` of 000 Table 4's sweep or the drive's
own).  A step of ``charz wa analyze`` is ``recorded``: its R/B trace is a file
(``file``, read with ``input_format``) and its host volume is a :class:`HostVolume`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from charz.analysis import PulseCounts, PulseWindows, Quantity, WaEstimate, WaGeometry
from charz.archive import read_wa_archive
from charz.wa._jobs import WaJob

__all__ = ["HostVolume", "WaStep", "WaSettings", "DieCount", "WaRecord", "closed_form_of", "read_wa"]

STEP_KINDS = ("calibrate", "benchmark", "subtest")


@dataclass(frozen=True)
class HostVolume:
    """Where one recorded step's L_Volume_Data comes from: exactly one of the three."""

    host_bytes: int | None = None
    fio_json: str | None = None
    blockstat: tuple[str, str] | None = None  # files holding /sys/block/X/stat before and after

    def to_dict(self) -> dict:
        return {"host_bytes": self.host_bytes, "fio_json": self.fio_json,
                "blockstat": list(self.blockstat) if self.blockstat else None}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "HostVolume":
        return cls(d.get("host_bytes"), d.get("fio_json"), tuple(d["blockstat"]) if d.get("blockstat") else None)


@dataclass(frozen=True)
class WaStep:
    """One step of a plan (see the module docstring for the kinds).

    >>> WaStep("benchmark", "wa-w100-rd-align.fio", bs=4096, volume=2**27).to_dict()["bs"]
    4096
    """

    kind: str
    file: str
    bs: int | None = None
    volume: int | None = None                 # bytes the job writes (a run's steps)
    subtest: int | None = None                # 0-based, subtest steps only
    op_percent: float | None = None           # 000 Table 4's OP of the sub-test's series; None: the drive's own
    recorded: bool = False                    # charz wa analyze: ``file`` is the R/B recording
    input_format: str | None = None
    label: str | None = None
    host_volume: HostVolume | None = None     # recorded steps: L_Volume_Data as the user gave it

    def __post_init__(self) -> None:
        if self.kind not in STEP_KINDS:
            raise ValueError(f"a WA step is one of {', '.join(STEP_KINDS)}, not {self.kind!r}")

    def to_dict(self) -> dict:
        """The archive's layout (``wa.json``'s ``plan``, each record's ``step``)."""
        if self.recorded:
            return {"kind": self.kind, "recorded": True, "file": self.file, "input_format": self.input_format,
                    "label": self.label, "volume": self.host_volume.to_dict() if self.host_volume else None}
        d: dict[str, Any] = {"kind": self.kind, "file": self.file, "bs": self.bs, "volume": self.volume}
        if self.kind == "subtest":
            d.update(subtest=self.subtest, op_percent=self.op_percent)
        if self.label is not None:
            d["label"] = self.label
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WaStep":
        if d.get("recorded"):
            return cls(d["kind"], d["file"], recorded=True, input_format=d.get("input_format"), label=d.get("label"),
                       host_volume=HostVolume.from_dict(d["volume"]) if d.get("volume") else None)
        return cls(d["kind"], d["file"], bs=d.get("bs"), volume=d.get("volume"), subtest=d.get("subtest"),
                   op_percent=d.get("op_percent"), label=d.get("label"))


@dataclass(frozen=True)
class WaSettings:
    """What a run counts with: the plan, the windows, the analyser's rate, the stop rule,
    M_p if given, Eq. 7's geometry, and the bench's description as archived."""

    plan: tuple[WaStep, ...]
    windows: PulseWindows
    samplerate_hz: float | None
    settle_s: float
    settle_timeout_s: float | None
    geometry: WaGeometry
    bench: Mapping[str, Any] = field(default_factory=dict)
    m_p_given: int | None = None
    planes: int | None = None
    pages_per_block: int | None = None
    min_gap_us: float | None = None
    notes: tuple[str, ...] = ()
    schema: str | None = None  # the archive's (``charz-wa/1``), read back; the archive writes it

    def to_dict(self) -> dict:
        return {"plan": [s.to_dict() for s in self.plan], "windows": self.windows.to_dict(),
                "samplerate_hz": self.samplerate_hz, "settle_s": self.settle_s,
                "settle_timeout_s": self.settle_timeout_s, "m_p_given": self.m_p_given, "planes": self.planes,
                "pages_per_block": self.pages_per_block, "min_gap_us": self.min_gap_us, "notes": list(self.notes),
                "bench": dict(self.bench), "geometry": self.geometry.to_dict()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WaSettings":
        """An archive's ``wa.json`` (schema, tool and creation time are the archive's own)."""
        return cls(plan=tuple(WaStep.from_dict(s) for s in d["plan"]), windows=PulseWindows.from_dict(d["windows"]),
                   samplerate_hz=d.get("samplerate_hz"), settle_s=d["settle_s"],
                   settle_timeout_s=d.get("settle_timeout_s"), geometry=WaGeometry.from_dict(d["geometry"]),
                   bench=d.get("bench") or {}, m_p_given=d.get("m_p_given"), planes=d.get("planes"),
                   pages_per_block=d.get("pages_per_block"), min_gap_us=d.get("min_gap_us"),
                   notes=tuple(d.get("notes") or ()), schema=d.get("schema"))


@dataclass(frozen=True)
class DieCount:
    """One counted die's pulses: programs are the program window's count less the erases
    counted apart in it; ``cut`` the pulses the stream's ends cut."""

    channel: str
    counts: PulseCounts
    erases_in_window: int
    programs: int
    cut: int

    def to_dict(self) -> dict:
        return {"channel": self.channel, "counts": self.counts.to_dict(), "erases_in_window": self.erases_in_window,
                "programs": self.programs, "cut": self.cut}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "DieCount":
        return cls(d["channel"], PulseCounts.from_dict(d["counts"]), int(d["erases_in_window"]), d["programs"],
                   int(d["cut"]))


@dataclass(frozen=True)
class WaRecord:
    """One committed step: its counts per die, L_Volume_Data, M_p (calibration) or WA by
    Eq. 7, the checks' errors and warnings, and what the bench adds (the mock's truth,
    the drive's own counters, the replayed train).  Trusted when it has no error."""

    step: WaStep
    job: WaJob | None
    label: str
    counts: PulseCounts
    settled: bool
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    logical_bytes: int
    u_logical_bytes: float
    volume_evidence: str
    truth: Mapping[str, Any] | None
    stream: Mapping[str, Any] | None
    dies: tuple[DieCount, ...]
    die_spread: Mapping[str, Any] | None = None
    m_p: Quantity | None = None
    estimate: WaEstimate | None = None
    counters: Mapping[str, Any] | None = None
    re_wa: float | None = None
    fio_json_file: str | None = None  # set by the archive: fio's own JSON beside the record

    @property
    def trusted(self) -> bool:
        return not self.errors

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WaRecord":
        """A committed ``steps/NNNN.json`` (its ``index`` and ``trusted`` are the archive's
        and the errors' to say)."""
        return cls(step=WaStep.from_dict(d["step"]), job=WaJob(**d["job"]) if d.get("job") else None,
                   label=d["label"], counts=PulseCounts.from_dict(d["counts"]), settled=bool(d["settled"]),
                   errors=tuple(d.get("errors") or ()), warnings=tuple(d.get("warnings") or ()),
                   logical_bytes=d["logical_bytes"], u_logical_bytes=d.get("u_logical_bytes", 0.0),
                   volume_evidence=d.get("volume_evidence", ""), truth=d.get("truth"), stream=d.get("stream"),
                   dies=tuple(DieCount.from_dict(x) for x in d.get("dies") or ()), die_spread=d.get("die_spread"),
                   m_p=_quantity(d["m_p"]) if d.get("m_p") else None,
                   estimate=_estimate(d["estimate"]) if d.get("estimate") else None, counters=d.get("counters"),
                   re_wa=d.get("re_wa"), fio_json_file=d.get("fio_json_file"))

    def to_dict(self) -> dict:
        """The layout of ``steps/NNNN.json`` (less the index the archive adds)."""
        d: dict[str, Any] = {
            "step": self.step.to_dict(), "job": self.job.to_dict() if self.job else None, "label": self.label,
            "counts": self.counts.to_dict(), "settled": self.settled, "errors": list(self.errors),
            "warnings": list(self.warnings), "logical_bytes": self.logical_bytes,
            "u_logical_bytes": self.u_logical_bytes, "volume_evidence": self.volume_evidence, "truth": self.truth,
            "stream": self.stream, "dies": [x.to_dict() for x in self.dies]}
        if self.die_spread is not None:
            d["die_spread"] = dict(self.die_spread)
        if self.m_p is not None:
            d["m_p"] = self.m_p.to_dict()
        if self.estimate is not None:
            d["estimate"] = self.estimate.to_dict()
        if self.counters is not None:
            d["counters"] = self.counters
        if self.re_wa is not None:
            d["re_wa"] = self.re_wa
        d["trusted"] = self.trusted
        if self.fio_json_file is not None:
            d["fio_json_file"] = self.fio_json_file
        return d


def _quantity(d: Mapping[str, Any]) -> Quantity:
    return Quantity(d["value"], d["unit"], d["origin"], uncertainty=d.get("uncertainty"),
                    confidence=d.get("confidence", "high"), evidence=d.get("evidence", ""),
                    best_guess=d.get("best_guess"), details=d.get("details") or {})


def _estimate(d: Mapping[str, Any]) -> WaEstimate:
    return WaEstimate(wa=_quantity(d["wa"]), physical_bytes=_quantity(d["physical_bytes"]),
                      logical_bytes=_quantity(d["logical_bytes"]), n_tprogram=_quantity(d["n_tprogram"]),
                      m_p=_quantity(d["m_p"]), u_counting=d["u_counting"], u_volume=d["u_volume"])


def read_wa(path: str | os.PathLike) -> tuple[WaSettings, dict[int, WaRecord]]:
    """A WA archive's settings and committed steps as typed values (any ``charz-wa/1`` archive)."""
    settings, records = read_wa_archive(path)
    return WaSettings.from_dict(settings), {i: WaRecord.from_dict(r) for i, r in records.items()}


def closed_form_of(bench: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The drive's closed-form inputs as its archived bench description states them
    (``closed_form``, written by the simulator), or None (a bench drive, or a simulated one
    the uniform closed forms do not describe).  See :func:`charz.wa.steady_series`."""
    if "closed_form" in bench:
        return bench["closed_form"]
    if bench.get("kind") == "mock" and bench.get("ftl"):
        return _closed_form_v1(bench["ftl"])
    return None


def _closed_form_v1(ftl: Mapping[str, Any]) -> dict | None:
    """A mock archive written before the simulator stated its closed-form inputs: they
    are read off its archived ``FtlConfig`` fields, as charz then did (the simulator's
    ``closed_form_inputs`` gives the same; tests/unit/test_wa_report_reason.py checks)."""
    if ftl.get("policy", "plain") != "plain" or ftl.get("gc", "greedy") != "greedy" or ftl.get("write_cache"):
        return None
    planes = int(ftl["planes"])
    dies = int(ftl["channels"]) * int(ftl["chips_per_channel"]) * int(ftl["dies_per_chip"])
    per_unit = int(ftl["pages_per_block"]) * (planes * dies if ftl.get("lines") else
                                              planes if ftl.get("multi_plane", True) else 1)
    return {"physical_pages": dies * planes * int(ftl["blocks_per_plane"]) * int(ftl["pages_per_block"]),
            "page_size": int(ftl["page_size"]), "pages_per_unit": per_unit,
            "units_per_pool": int(ftl["blocks_per_plane"]), "held_units": [1.0, 2.0]}

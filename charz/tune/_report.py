"""A whole ``charz tune`` answer: the shared basis and limits, then one Advice per target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from charz.device import QueueLimits
from charz.tune._advise import TARGETS, advise_targets, make_context
from charz.tune._basis import Basis
from charz.tune._context import DEFAULT_BLOCK_BYTES
from charz.tune._limits import KernelLimits, compare_limits
from charz.tune._model import Advice

TUNE_SCHEMA_ID = "charz.tune/1"
RUNS_NOTHING = ("charz tune prints commands; it runs nothing. Check the device in every command before you run it: "
                "they erase what is on it.")


@dataclass(frozen=True)
class TuneReport:
    """Everything ``charz tune`` prints, as data."""

    profile_path: str
    basis: Basis
    limits: KernelLimits | None
    limit_disagreements: tuple[str, ...]
    advice: tuple[Advice, ...]
    block_size_bytes: int = DEFAULT_BLOCK_BYTES

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``charz tune --json`` (schema ``charz.tune/1``)."""
        b, f = self.basis, self.basis.facts
        limits = None
        if self.limits is not None:
            q = self.limits.queue
            limits = {
                "origin": self.limits.origin, "sectors_assumed": self.limits.sectors_assumed,
                "disk": self.limits.disk, "partition": self.limits.partition,
                "logical_block_size_bytes": q.logical_block_size_bytes,
                "physical_block_size_bytes": q.physical_block_size_bytes,
                "minimum_io_size_bytes": q.minimum_io_size_bytes, "optimal_io_size_bytes": q.optimal_io_size_bytes,
                "discard_granularity_bytes": q.discard_granularity_bytes, "rotational": q.rotational,
            }
        return {
            "schema": TUNE_SCHEMA_ID,
            "runs_nothing": True,
            "notice": RUNS_NOTHING,
            "profile": self.profile_path,
            "device": {"model": f.model, "serial": f.serial},
            "block_size_bytes": self.block_size_bytes,
            "basis": {
                "kind": b.kind, "align_bytes": b.align_bytes, "parallel_units": b.parallel_units,
                "full_bytes": b.full_bytes, "page_bytes": b.page_bytes, "summary": b.summary,
                "missing": b.missing or None, "warnings": list(b.warnings),
                "source": b.align_source.to_dict() if b.align_source else None,
            },
            "limits": limits,
            "limit_disagreements": list(self.limit_disagreements),
            "advice": [a.to_dict() for a in self.advice],
        }


def build_report(
    profile: dict[str, Any],
    *,
    fs: str,
    limits: QueueLimits | KernelLimits | None,
    block_size_bytes: int = DEFAULT_BLOCK_BYTES,
    data_disks: int | None = None,
    device: str | None = None,
    profile_path: str = "",
    host=None,
) -> TuneReport:
    """Advice for ``fs`` (or every target for ``"all"``) with the shared header facts (pure).

    Example
    -------
    >>> from charz.tune.testing import preset_profile
    >>> r = build_report(preset_profile("x25m"), fs="all", limits=None)
    >>> [a.target for a in r.advice][:3], r.basis.kind
    (['ext4', 'xfs', 'zfs'], 'page')
    """
    # host: a charz.tune._tool_limits.Host (None: the running machine), what the commands must mount on
    ctx = make_context(profile, limits=limits, block_size_bytes=block_size_bytes, data_disks=data_disks, device=device,
                       host=host)
    advice = advise_targets(ctx, TARGETS if fs == "all" else (fs,))
    disagreements = compare_limits(ctx.limits, ctx.basis) if ctx.limits is not None else ()
    return TuneReport(profile_path, ctx.basis, ctx.limits, disagreements, advice, block_size_bytes)

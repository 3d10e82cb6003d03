"""A characterization plan as data: which request, of which size, where, in which order.

Testable without hardware, stored in the archive's metadata, replayed by
``charz resume``.  Writes go to fresh, stride-aligned LBAs (no LBA is written
twice in one session, so no overwrite or garbage collection sneaks into a
capture); reads go to a region that a ``fill`` step wrote first, because a
drive answers reads of never-written LBAs without touching flash.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable

from charz.errors import UsageError
# Sizes as people write them ("4k", "4k:160k:4k,512k"): parsed where requests are made.
from charz.workload import parse_size, parse_sizes  # noqa: F401 (exported from here too)

MIB = 1 << 20


def default_write_sizes(page_size_bytes: int, largest_bytes: int = 160 * 1024) -> list[int]:
    """One page up to 160 KB in page steps (003 §5: 4 KB to 160 KB)."""
    return list(range(page_size_bytes, largest_bytes + 1, page_size_bytes))


def default_read_sizes(page_size_bytes: int) -> list[int]:
    """Page steps to 160 KB, plus 512 KB (003 reads up to 512 KB to see units above the sweep)."""
    return default_write_sizes(page_size_bytes) + [512 * 1024]


@dataclass(frozen=True)
class Step:
    id: int
    op: str  # "write", "read", or "fill" (not captured: prepares the read region)
    size_bytes: int
    offset_bytes: int
    repeat: int = 0

    @property
    def captured(self) -> bool:
        return self.op in ("write", "read")


@dataclass(frozen=True)
class SweepPlan:
    steps: tuple[Step, ...]
    write_sizes: tuple[int, ...]
    read_sizes: tuple[int, ...]
    repeats: int
    stride_bytes: int
    span_bytes: int  # bytes of the device the plan touches, from offset 0

    @property
    def captured_steps(self) -> list[Step]:
        return [s for s in self.steps if s.captured]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["steps"] = [asdict(s) for s in self.steps]
        d["write_sizes"] = list(self.write_sizes)
        d["read_sizes"] = list(self.read_sizes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SweepPlan":
        try:
            steps = tuple(Step(**s) for s in d["steps"])
            return cls(steps, tuple(d["write_sizes"]), tuple(d["read_sizes"]), int(d["repeats"]),
                       int(d["stride_bytes"]), int(d["span_bytes"]))
        except (KeyError, TypeError) as exc:
            raise UsageError(f"the stored sweep plan is malformed ({exc})", hint="the archive's session.json was edited or damaged") from None


def _round_up(value: int, to: int) -> int:
    return -(-value // to) * to


def build_sweep(
    write_sizes: Iterable[int],
    read_sizes: Iterable[int] = (),
    repeats: int = 5,
    *,
    base_offset_bytes: int = 0,
    align_bytes: int = MIB,
) -> SweepPlan:
    """Writes of every size ``repeats`` times (ascending sizes within a repeat), then a fill, then the reads.

    Example
    -------
    >>> p = build_sweep([4096, 8192], [4096], repeats=2)
    >>> [(s.op, s.size_bytes, s.offset_bytes // MIB, s.repeat) for s in p.steps]
    [('write', 4096, 0, 0), ('write', 8192, 1, 0), ('write', 4096, 2, 1), ('write', 8192, 3, 1), ('fill', 2097152, 4, 0), ('read', 4096, 4, 0), ('read', 4096, 5, 1)]
    """
    write_sizes = sorted(set(int(s) for s in write_sizes))
    read_sizes = sorted(set(int(s) for s in read_sizes))
    if repeats < 1:
        raise UsageError("repeats must be at least 1")
    if not write_sizes and not read_sizes:
        raise UsageError("the plan has no requests")
    if base_offset_bytes % align_bytes:
        raise UsageError(f"the base offset must be a multiple of {align_bytes} bytes")
    stride = _round_up(max(write_sizes + read_sizes), align_bytes)
    steps: list[Step] = []
    offset = base_offset_bytes
    for r in range(repeats):
        for size in write_sizes:
            steps.append(Step(len(steps), "write", size, offset, r))
            offset += stride
    if read_sizes:
        n_reads = repeats * len(read_sizes)
        steps.append(Step(len(steps), "fill", n_reads * stride, offset, 0))
        for r in range(repeats):
            for size in read_sizes:
                steps.append(Step(len(steps), "read", size, offset, r))
                offset += stride
    return SweepPlan(tuple(steps), tuple(write_sizes), tuple(read_sizes), repeats, stride, offset)

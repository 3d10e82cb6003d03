"""Fresh LBAs: never write the same place twice in one session.

A rewrite of a page the drive already holds may trigger read-modify-write or
garbage collection and show in the capture as something else (003 §5.6), so a
sweep takes every request from untouched space.
"""

from __future__ import annotations

from dataclasses import dataclass

from charz.errors import WorkloadError

MIB = 1 << 20


@dataclass(frozen=True)
class Extent:
    """One handed-out region."""

    offset_bytes: int
    size_bytes: int

    @property
    def end_bytes(self) -> int:
        return self.offset_bytes + self.size_bytes


def _arg_positive_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise WorkloadError(f"{name} must be a positive int, got {value!r}")
    return value


def _align_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


class FreshLbaAllocator:
    """Hands out non-overlapping, ``unit_bytes``-aligned offsets in ``[start, end)``.

    Parameters
    ----------
    capacity_bytes : int
        Size of the device or scratch file.
    unit_bytes : int
        Alignment of every offset (1 MiB by default: larger than any flash
        page, stripe or I/O unit charz looks for, so requests never share one).
    start_bytes : int
        First usable offset (e.g. where a resumed session stopped).
    end_bytes : int, optional
        End of the usable range; ``capacity_bytes`` by default.

    Examples
    --------
    >>> lba = FreshLbaAllocator(8 * MIB)
    >>> lba.allocate(20480), lba.allocate(4096), lba.allocate(MIB + 4096)
    (0, 1048576, 2097152)
    >>> lba.next_offset_bytes, lba.remaining_bytes
    (4194304, 4194304)
    """

    def __init__(self, capacity_bytes: int, *, unit_bytes: int = MIB, start_bytes: int = 0,
                 end_bytes: int | None = None):
        self.capacity_bytes = _arg_positive_int(capacity_bytes, "capacity_bytes")
        self.unit_bytes = _arg_positive_int(unit_bytes, "unit_bytes")
        if isinstance(start_bytes, bool) or not isinstance(start_bytes, int) or start_bytes < 0:
            raise WorkloadError(f"start_bytes must be a non-negative int, got {start_bytes!r}")
        end = capacity_bytes if end_bytes is None else end_bytes
        if not 0 <= end <= capacity_bytes:
            raise WorkloadError(f"end_bytes {end_bytes} is outside [0, {capacity_bytes}]")
        self.end_bytes = end
        self._cursor = _align_up(start_bytes, unit_bytes)
        self._extents: list[Extent] = []

    @property
    def next_offset_bytes(self) -> int:
        return self._cursor

    @property
    def remaining_bytes(self) -> int:
        return max(0, self.end_bytes - self._cursor)

    @property
    def extents(self) -> tuple[Extent, ...]:
        """Every region handed out, in order (for the archive)."""
        return tuple(self._extents)

    def allocate(self, size_bytes: int) -> int:
        """The offset for a fresh request of ``size_bytes``.

        Raises
        ------
        WorkloadError
            The range is used up.
        """
        _arg_positive_int(size_bytes, "size_bytes")
        offset = self._cursor
        if offset + size_bytes > self.end_bytes:
            raise WorkloadError(
                f"no fresh space left for {size_bytes} bytes: {len(self._extents)} requests used "
                f"[{self._extents[0].offset_bytes if self._extents else offset}, {offset}) of "
                f"{self.end_bytes} bytes",
                hint="erase the drive (discard or secure erase) and start a new session, "
                "or use a smaller unit_bytes",
            )
        self._extents.append(Extent(offset, size_bytes))
        self._cursor = _align_up(offset + size_bytes, self.unit_bytes)
        return offset

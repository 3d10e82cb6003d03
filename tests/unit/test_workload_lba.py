"""The fresh-LBA allocator never hands out the same place twice."""

from __future__ import annotations


import pytest
from hypothesis import given
from hypothesis import strategies as st

from charz.errors import WorkloadError
from charz.workload import FreshLbaAllocator

pytestmark = pytest.mark.unit

MIB = 1 << 20


@given(capacity=st.integers(1, 64 * MIB), unit_shift=st.integers(9, 22), start=st.integers(0, 8 * MIB),
       sizes=st.lists(st.integers(1, 3 * MIB), max_size=40))
def test_offsets_are_aligned_disjoint_and_inside(capacity, unit_shift, start, sizes):
    unit = 1 << unit_shift
    lba = FreshLbaAllocator(capacity, unit_bytes=unit, start_bytes=start)
    handed = []
    for size in sizes:
        try:
            offset = lba.allocate(size)
        except WorkloadError as exc:
            assert "no fresh space" in str(exc)
            assert lba.next_offset_bytes + size > capacity
            continue
        assert offset % unit == 0 and offset >= start and offset + size <= capacity
        handed.append((offset, offset + size))
    handed.sort()
    for (_, end), (begin, _) in zip(handed, handed[1:]):
        assert end <= begin
    # extents are recorded in allocation order, which is ascending
    assert [(e.offset_bytes, e.end_bytes) for e in lba.extents] == handed


def test_exhaustion_says_what_to_do():
    lba = FreshLbaAllocator(4 * MIB)
    for _ in range(4):
        lba.allocate(4096)
    assert lba.remaining_bytes == 0
    with pytest.raises(WorkloadError, match="no fresh space left for 4096 bytes: 4 requests") as info:
        lba.allocate(4096)
    assert "erase the drive" in info.value.hint


def test_end_and_start_bounds():
    lba = FreshLbaAllocator(16 * MIB, start_bytes=MIB + 1, end_bytes=4 * MIB)
    assert lba.allocate(MIB) == 2 * MIB          # start rounded up to the unit
    with pytest.raises(WorkloadError):
        lba.allocate(MIB + 1)
    with pytest.raises(WorkloadError, match="end_bytes"):
        FreshLbaAllocator(MIB, end_bytes=2 * MIB)


@pytest.mark.parametrize("kw", [dict(capacity_bytes=0), dict(capacity_bytes=MIB, unit_bytes=0),
                                dict(capacity_bytes=MIB, start_bytes=-1), dict(capacity_bytes=1.5)])
def test_argument_checks(kw):
    with pytest.raises(WorkloadError):
        FreshLbaAllocator(**kw)
    with pytest.raises(WorkloadError, match="size_bytes"):
        FreshLbaAllocator(MIB).allocate(0)

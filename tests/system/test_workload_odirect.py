"""One O_DIRECT request on a scratch file and on a real loop device."""

from __future__ import annotations

import os

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools

from charz.device import SubprocessRunner, claim_target, hold_exclusive
from charz.errors import UnsafeTarget, WorkloadError
from charz.workload import FreshLbaAllocator, open_direct

pytestmark = pytest.mark.system


def fd_flags(fd: int) -> int:
    with open(f"/proc/self/fdinfo/{fd}") as f:
        for line in f:
            if line.startswith("flags:"):
                return int(line.split()[1], 8)
    raise AssertionError("no flags in fdinfo")


@pytest.fixture
def scratch(tmp_path):
    path = tmp_path / "scratch.dat"
    try:
        dio = open_direct(path, create_size_bytes=8 * MIB)
    except WorkloadError as exc:
        pytest.skip(f"the temp directory's file system refuses O_DIRECT: {exc}")
    with dio:
        yield dio


def test_scratch_file_write_then_read_back(scratch):
    assert fd_flags(scratch._fd) & os.O_DIRECT
    assert (scratch.alignment_bytes, scratch.capacity_bytes, scratch.is_block_device) == (4096, 8 * MIB, False)
    w = scratch.write(20480, MIB)
    assert (w.op, w.size_bytes, w.offset_bytes) == ("write", 20480, MIB)
    assert w.t_end_ns > w.t_start_ns and w.duration_ns > 0 and w.wall_start_ns > 0
    written = scratch.last_data(20480)
    r = scratch.read(20480, MIB)
    assert r.op == "read" and scratch.last_data(20480) == written
    with open(scratch.path, "rb") as f:
        f.seek(MIB)
        assert f.read(20480) == written


def test_every_write_carries_fresh_data(scratch):
    scratch.write(4096, 0)
    first = scratch.last_data(4096)
    scratch.write(4096, 0)
    assert scratch.last_data(4096) != first
    assert len(set(first)) > 200            # random bytes, not a pattern a drive could compress


def test_before_io_hook_runs_just_before_the_request(scratch):
    calls = []
    result = scratch.write(8192, 2 * MIB, before_io=lambda *a: calls.append(a))
    assert calls == [("write", 8192, 2 * MIB)] and result.size_bytes == 8192


@pytest.mark.parametrize("size, offset, fragment", [
    (1000, 0, "multiples of 4096"),
    (4096, 512, "multiples of 4096"),
    (0, 0, "positive int"),
    (4096, -4096, "non-negative"),
    (2 * MIB, 0, "exceeds the buffer"),
    (8192, 8 * MIB - 4096, "runs past the end"),
])
def test_bad_requests_are_refused_before_the_system_call(scratch, size, offset, fragment):
    with pytest.raises(WorkloadError, match=fragment):
        scratch.write(size, offset)


def test_short_io_is_an_error(scratch, monkeypatch):
    monkeypatch.setattr(os, "pwrite", lambda fd, data, offset: len(data) - 4096)
    with pytest.raises(WorkloadError, match="short write on .*: 4096 of 8192 bytes"):
        scratch.write(8192, 0)


def test_read_only_and_closed(tmp_path):
    path = tmp_path / "ro.dat"
    with open_direct(path, create_size_bytes=MIB):
        pass
    with open_direct(path, writable=False) as dio:
        dio.read(4096, 0)
        with pytest.raises(WorkloadError, match="read-only"):
            dio.write(4096, 0)
    with pytest.raises(WorkloadError, match="closed"):
        dio.read(4096, 0)


def test_o_direct_refused_by_the_file_system_is_explained(tmp_path, monkeypatch):
    # File systems without O_DIRECT (tmpfs before Linux 6.6, some FUSE) answer the open with
    # EINVAL; this kernel's tmpfs accepts it, so the refusal is played by os.open itself.
    import errno

    real_open = os.open

    def refusing_open(path, flags, *args):
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(WorkloadError, match="cannot open .* with O_DIRECT: Invalid argument") as info:
        open_direct(tmp_path / "scratch.bin", create_size_bytes=MIB)
    assert "does not support O_DIRECT" in info.value.hint and "ext4/xfs" in info.value.hint
    assert info.value.code == errno.EINVAL


@pytest.mark.root
def test_loop_device_needs_the_claim_and_then_writes_exactly_there(tmp_path):
    need_root()
    need_tools("losetup", "wipefs")
    loop = LoopDevice(tmp_path)
    try:
        with pytest.raises(UnsafeTarget, match="exclusive hold"):
            open_direct(loop.path)
        with hold_exclusive(loop.path) as bare:        # claimed but never checked: not enough
            with pytest.raises(UnsafeTarget):
                open_direct(loop.path, claim=bare)
        with claim_target(loop.path, output_dir=tmp_path / "out", runner=SubprocessRunner()) as hold:
            lba = FreshLbaAllocator(32 * MIB)
            with open_direct(loop.path, claim=hold) as dio:
                assert dio.is_block_device and dio.capacity_bytes == 32 * MIB and dio.alignment_bytes == 512
                assert fd_flags(dio._fd) & os.O_DIRECT
                results = []
                for size in (4096, 20480, 163840):
                    offset = lba.allocate(size)
                    results.append((dio.write(size, offset), dio.last_data(size)))
                os.fsync(dio._fd)
                for result, data in results:
                    dio.read(result.size_bytes, result.offset_bytes)
                    assert dio.last_data(result.size_bytes) == data
            assert [r.offset_bytes for r, _ in results] == [0, MIB, 2 * MIB]
        with open(loop.image, "rb") as f:             # the bytes landed in the image, at those offsets
            for result, data in results:
                f.seek(result.offset_bytes)
                assert f.read(result.size_bytes) == data
        # a claim on a different device does not cover this one
        (tmp_path / "other").mkdir()
        other = LoopDevice(tmp_path / "other")
        try:
            with claim_target(other.path, output_dir=tmp_path / "out", runner=SubprocessRunner()) as other_hold:
                with pytest.raises(UnsafeTarget):
                    open_direct(loop.path, claim=other_hold)
        finally:
            other.close()
    finally:
        loop.close()


def test_ctrl_c_inside_the_hook_leaves_the_buffer_closable(scratch):
    # Ctrl-C while the scope is being armed (inside before_io) used to leave the slice of the
    # buffer exported, and closing then raised BufferError over the user's interrupt.
    dio = scratch

    def interrupted(op, size, offset):
        raise KeyboardInterrupt

    try:
        dio.write(4096, 0, before_io=interrupted)
    except KeyboardInterrupt:
        dio.close()  # as a `with` block's exit does: the interrupted frame is still alive here
    assert dio.closed

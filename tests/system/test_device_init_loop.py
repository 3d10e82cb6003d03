"""Identify and initialize a real loop device end to end with the real tools."""

from __future__ import annotations

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools, run

from charz.device import SubprocessRunner, claim_target, hold_exclusive, identify, initialize, plan_initialization
from charz.errors import ConfirmationRequired, UnsafeTarget

pytestmark = [pytest.mark.system, pytest.mark.root]

RUNNER = SubprocessRunner()


@pytest.fixture
def loop(tmp_path):
    need_root()
    need_tools("losetup", "wipefs", "blockdev", "blkdiscard", "lsblk")
    dev = LoopDevice(tmp_path)
    try:
        yield dev
    finally:
        dev.close()


def test_identify_a_real_loop_device(loop):
    ident = identify(loop.path, runner=RUNNER)
    assert (ident.path, ident.kernel_name, ident.transport) == (loop.path, loop.kname, "loop")
    assert ident.size_bytes == 32 * MIB
    assert ident.loop_backing_file == str(loop.image)
    assert ident.queue.logical_block_size_bytes == ident.logical_sector_bytes == 512
    assert ident.serial is None and ident.ata is None and ident.nvme is None
    # smartctl cannot read a loop device (or is not installed): a note, not a failure
    assert any(note.startswith("smartctl") for note in ident.notes)


def test_initialize_discards_sets_read_ahead_and_puts_it_back(loop, tmp_path):
    with open(loop.image, "r+b") as f:            # data that the discard must remove
        f.write(b"\xa5" * MIB)
    original_ra = run("blockdev", "--getra", loop.path).stdout.strip()
    with claim_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER) as hold:
        assert hold.checked
        ident = identify(hold.path, runner=RUNNER)
        plan = plan_initialization(ident, erase="discard")
        assert len(plan.warnings) == 1            # the write cache cannot be disabled on a loop device
        with pytest.raises(ConfirmationRequired):
            initialize(plan, runner=RUNNER, hold=hold, confirm_serial="loopX").__enter__()
        with initialize(plan, runner=RUNNER, hold=hold, confirm_serial=ident.kernel_name) as init:
            assert run("blockdev", "--getra", loop.path).stdout.strip() == "0"
            assert init.erase.method == "discard"
        assert run("blockdev", "--getra", loop.path).stdout.strip() == original_ra
    record = init.record()
    assert record["restore_failures"] == [] and record["warnings"] == list(plan.warnings)
    with open(loop.image, "rb") as f:
        assert f.read(MIB) == b"\0" * MIB          # a loop discard punches a hole in the image


def test_initialize_without_the_checked_hold_is_refused(loop, tmp_path):
    plan = plan_initialization(identify(loop.path, runner=RUNNER))
    with pytest.raises(UnsafeTarget):
        initialize(plan, runner=RUNNER, hold=None).__enter__()
    with hold_exclusive(loop.path) as bare:      # claimed, but the guard's checks never ran
        with pytest.raises(UnsafeTarget, match="checked exclusive hold"):
            initialize(plan, runner=RUNNER, hold=bare).__enter__()
    with claim_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER) as hold:
        pass
    with pytest.raises(UnsafeTarget):            # a released hold proves nothing
        initialize(plan, runner=RUNNER, hold=hold).__enter__()

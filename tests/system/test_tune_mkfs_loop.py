"""Issue 15 (3): every mkfs command ``charz tune`` prints runs, and what it makes mounts here;
every command it withdraws would have failed — both decided by the real tools and this kernel.

For each file system and block size, on a fresh loop device: ``charz tune --device LOOP --json``
(the device's own queue limits, its path in the command).  A printed command is run as
printed (argv, stdin closed) and the result mounted.  A withdrawn one is rebuilt as charz
would have printed it before the check (the target's advisor without the vetting) and run
the same way: the tool must refuse it or the kernel must refuse to mount what it made.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools

from charz.tune._advise import _ADVISORS, make_context
from charz.tune.testing import preset_profile

pytestmark = [pytest.mark.system, pytest.mark.root]

TOOLS = {"ext4": "mkfs.ext4", "xfs": "mkfs.xfs", "btrfs": "mkfs.btrfs"}
# 1 GiB (sparse): mkfs.xfs wants 300 MB at least, and with a stripe unit on 512 MiB its
# AGs are too small for the 64 MiB log xfsprogs >= 5.19 requires ("Log size must be at least 64MB")
SIZE = 1024 * MIB


def _run(argv, timeout=120):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _mounts(loop: LoopDevice, fs: str, where) -> subprocess.CompletedProcess:
    where.mkdir(exist_ok=True)
    proc = _run(["mount", "-t", fs, loop.path, str(where)])
    if proc.returncode == 0:
        _run(["umount", str(where)])
    return proc


@pytest.mark.parametrize("block", ["1k", "4k", "8k", "64k"])
@pytest.mark.parametrize("fs", ["ext4", "xfs", "btrfs"])
def test_printed_commands_run_and_mount_withdrawn_ones_would_not(fs, block, tmp_path):
    need_root()
    need_tools("losetup", "mount", "umount", TOOLS[fs])
    if fs not in open("/proc/filesystems").read():
        pytest.skip(f"this kernel has no {fs}")
    profile = tmp_path / "mxp.toml"
    from charz.profile import write_profile

    write_profile(preset_profile("mxp"), profile)
    loop = LoopDevice(tmp_path, size_bytes=SIZE)
    try:
        proc = _run([sys.executable, "-m", "charz", "tune", str(profile), "--fs", fs, "--block-size", block,
                     "--device", loop.path, "--json"])
        assert proc.returncode == 0, proc.stderr
        [advice] = json.loads(proc.stdout)["advice"]
        if advice["commands"]:
            assert not advice["refused"]
            for command in advice["commands"]:
                made = _run(command["argv"])
                assert made.returncode == 0, (command["display"], made.stderr)
            mounted = _mounts(loop, fs, tmp_path / "mnt")
            assert mounted.returncode == 0, (advice["commands"][0]["display"], mounted.stderr)
        else:
            assert advice["refused"], advice
            # What charz printed before the check: the advisor alone.
            bytes_ = int(block[:-1]) * 1024
            ctx = make_context(preset_profile("mxp"), limits=None, block_size_bytes=bytes_, device=loop.path)
            [command] = _ADVISORS[fs](ctx).commands
            made = _run(list(command.argv))
            if made.returncode == 0:
                mounted = _mounts(loop, fs, tmp_path / "mnt")
                assert mounted.returncode != 0, (f"{command.display} was withdrawn ({advice['refused'][0]}), "
                                                 "yet what it made mounts here")
    finally:
        loop.close()


@pytest.mark.parametrize("size_mib", [256, 512])
def test_xfs_on_a_small_device_is_refused_or_warned_as_mkfs_xfs_decides(size_mib, tmp_path):
    # mkfs.xfs: nothing under 300 MiB; with a stripe unit, a small device may leave no room
    # for the 64 MiB log.  Whatever mkfs.xfs does with the command, charz said it beforehand.
    need_root()
    need_tools("losetup", "mkfs.xfs")
    profile = tmp_path / "mxp.toml"
    from charz.profile import write_profile

    write_profile(preset_profile("mxp"), profile)
    loop = LoopDevice(tmp_path, size_bytes=size_mib * MIB)
    try:
        proc = _run([sys.executable, "-m", "charz", "tune", str(profile), "--fs", "xfs", "--device", loop.path,
                     "--json"])
        assert proc.returncode == 0, proc.stderr
        [advice] = json.loads(proc.stdout)["advice"]
        if advice["refused"]:
            assert not advice["commands"] and "300 MiB" in advice["refused"][0]
            ctx = make_context(preset_profile("mxp"), limits=None, device=loop.path)
            [command] = _ADVISORS["xfs"](ctx).commands
            assert _run(list(command.argv)).returncode != 0, command.display
        else:
            [command] = advice["commands"]
            made = _run(command["argv"])
            if made.returncode != 0:
                assert any("may stop" in w for w in advice["warnings"]), (command["display"], made.stderr)
        assert (size_mib < 300) == bool(advice["refused"])
    finally:
        loop.close()

"""The unsafe-target matrix on real loop devices.

Each case builds a real state on a loop device made from an image file (a mounted
file system, a mounted partition, swap, a device-mapper holder, a signature, a
symlink alias, the output directory on the target, a partition given as target)
and checks that the guard refuses it with a message naming the reason, and that
the image is byte-for-byte unchanged by the check.  The clean device is accepted
and can be claimed with O_EXCL exactly once.
"""

from __future__ import annotations

import errno
import hashlib
import os

import pytest
from conftest_device import LoopDevice, device_mapper_available, need_root, need_tools, sha256

from charz.device import SubprocessRunner, check_target, claim_target, hold_exclusive, inspect_target
from charz.errors import UnsafeTarget

pytestmark = [pytest.mark.system, pytest.mark.root]

RUNNER = SubprocessRunner()


@pytest.fixture
def make_loop(tmp_path):
    need_root()
    need_tools("losetup", "wipefs")
    made = []

    def make(**kw) -> LoopDevice:
        directory = tmp_path / f"dev{len(made)}"
        directory.mkdir()
        dev = LoopDevice(directory, **kw)
        made.append(dev)
        return dev

    yield make
    failures = []
    for dev in reversed(made):
        try:
            dev.close()
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, failures


def refused(loop: LoopDevice, target: str, output_dir, **kw) -> UnsafeTarget:
    """check_target must refuse, and reading the device must not change the image."""
    before = sha256(loop.image)
    with pytest.raises(UnsafeTarget) as info:
        check_target(target, output_dir=output_dir, runner=RUNNER, **kw)
    assert sha256(loop.image) == before, "the check changed the device"
    return info.value


def test_a_mounted_file_system_on_the_whole_disk(make_loop, tmp_path):
    need_tools("mkfs.ext4", "mount")
    loop = make_loop()
    loop.mkfs()
    point = loop.mount()
    exc = refused(loop, loop.path, tmp_path / "out")
    assert f"{loop.path} is mounted at {point} (ext4)" in str(exc)
    assert "carries signatures: ext4" in str(exc)          # every reason, not just the first
    # the kernel agrees: an exclusive claim is refused
    with pytest.raises(UnsafeTarget, match="EBUSY"):
        with hold_exclusive(loop.path):
            pass


def test_a_mounted_partition_of_the_disk(make_loop, tmp_path):
    # fio#1382: fio does not see that /dev/sdX1 is mounted when told to write /dev/sdX
    need_tools("sfdisk", "partx", "mkfs.ext4", "mount")
    loop = make_loop(partscan=True)
    part = loop.partition()
    loop.mkfs(part)
    point = loop.mount(part)
    exc = refused(loop, loop.path, tmp_path / "out")
    assert f"{part} is mounted at {point} (ext4)" in str(exc)
    assert exc.report.partitions == (f"{loop.kname}p1",)
    with pytest.raises(UnsafeTarget, match="EBUSY"):
        with hold_exclusive(loop.path):
            pass


def test_swap_on_the_disk(make_loop, tmp_path):
    need_tools("mkswap", "swapon", "swapoff")
    loop = make_loop()
    try:
        loop.swapon()
    except AssertionError as exc:
        pytest.skip(f"swap on a loop device is not possible here: {exc}")
    exc = refused(loop, loop.path, tmp_path / "out")
    assert f"{loop.path} is in use as swap" in str(exc)


def test_a_device_mapper_holder(make_loop, tmp_path):
    if not device_mapper_available():
        pytest.skip("this kernel has no device-mapper (no 'device-mapper' in /proc/devices) or dmsetup "
                    "is missing; the holders check is covered on a fake sysfs in "
                    "tests/unit/test_device_guard_logic.py")
    loop = make_loop()
    loop.dm_linear()
    exc = refused(loop, loop.path, tmp_path / "out")
    assert f"{loop.path} is held by /dev/dm-" in str(exc)


def test_a_signature_is_refused_unless_allowed(make_loop, tmp_path):
    need_tools("mkfs.ext4")
    loop = make_loop()
    loop.mkfs()
    exc = refused(loop, loop.path, tmp_path / "out")
    assert exc.report.reasons == (
        f"{loop.path} carries signatures: ext4 at byte 1080 (wipe them with wipefs -a, or allow signatures)",)
    before = sha256(loop.image)
    report = check_target(loop.path, output_dir=tmp_path / "out", allow_signatures=True, runner=RUNNER)
    assert report.safe and "ext4" in report.notes[0]
    assert sha256(loop.image) == before


def test_a_symlink_alias_of_a_mounted_disk(make_loop, tmp_path):
    need_tools("mkfs.ext4", "mount")
    loop = make_loop()
    loop.mkfs()
    point = loop.mount()
    alias = tmp_path / "by-id-ssd"
    alias.symlink_to(loop.path)
    exc = refused(loop, str(alias), tmp_path / "out")
    assert exc.report.given_path == str(alias) and exc.report.path == loop.path
    assert f"refusing {loop.path} (given as {alias})" in str(exc)
    assert f"mounted at {point}" in str(exc)


def test_the_output_directory_on_the_target(make_loop):
    need_tools("mkfs.ext4", "mount")
    loop = make_loop()
    loop.mkfs()
    point = loop.mount()
    out = point / "session-1"            # not created yet: still placed on the target
    exc = refused(loop, loop.path, out, allow_signatures=True)
    assert f"{loop.path} holds the output directory {out}" in str(exc)
    out.mkdir()
    exc = refused(loop, loop.path, out, allow_signatures=True)
    assert f"{loop.path} holds the output directory {out}" in str(exc)


def test_a_partition_instead_of_the_whole_disk(make_loop, tmp_path):
    need_tools("sfdisk", "partx")
    loop = make_loop(partscan=True)
    part = loop.partition()
    exc = refused(loop, part, tmp_path / "out")
    assert f"{part} is a partition of {loop.path}; give the whole disk ({loop.path})" in str(exc)


def test_a_clean_device_is_accepted_and_claimed_exclusively(make_loop, tmp_path):
    loop = make_loop()
    before = sha256(loop.image)
    report = check_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER)
    assert report.safe and report.kernel_name == loop.kname and report.signatures == ()
    with hold_exclusive(loop.path) as hold:
        assert hold.covers(loop.path) and not hold.closed
        with pytest.raises(OSError) as second:
            os.close(os.open(loop.path, os.O_RDWR | os.O_EXCL))
        assert second.value.errno == errno.EBUSY
        with pytest.raises(UnsafeTarget, match="EBUSY"):
            with hold_exclusive(loop.path):
                pass
        # a plain open (what fio and hdparm do) still works while held
        os.close(os.open(loop.path, os.O_RDONLY))
        # and the guard, run again while held, still passes
        assert inspect_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER).safe
    assert hold.closed and not hold.covers(loop.path)
    os.close(os.open(loop.path, os.O_RDWR | os.O_EXCL))       # released
    with claim_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER) as checked:
        assert checked.checked and checked.report.kernel_name == loop.kname
    assert sha256(loop.image) == before


def test_claim_target_refuses_what_check_target_refuses(make_loop, tmp_path):
    need_tools("mkfs.ext4")
    loop = make_loop()
    loop.mkfs()
    before = sha256(loop.image)
    with pytest.raises(UnsafeTarget, match="carries signatures: ext4"):
        with claim_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER):
            pytest.fail("must not get here")
    os.close(os.open(loop.path, os.O_RDWR | os.O_EXCL))       # nothing left claimed
    assert sha256(loop.image) == before


def _root_device() -> str | None:
    """The whole disk holding ``/`` (None when / is not on a block device, e.g. an overlay)."""
    st = os.stat("/")
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    sys_dev = f"/sys/dev/block/{major}:{minor}"
    if not os.path.exists(sys_dev):
        return None
    real = os.path.realpath(sys_dev)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)  # a partition: its disk
    path = f"/dev/{os.path.basename(real)}"
    return path if os.path.exists(path) else None


def test_the_device_holding_root_is_refused_without_being_opened_for_writing(tmp_path, monkeypatch):
    need_root()
    dev = _root_device()
    if dev is None:
        pytest.skip("/ is not on a block device here (overlay or tmpfs root)")
    # Hashing a live root file system before and after says nothing (it writes on its own):
    # instead, prove the guard never opened the device for writing.
    opened = []
    real_open = os.open

    def spy(path, flags, *a, **kw):
        if os.path.realpath(str(path)) == os.path.realpath(dev):
            opened.append(flags)
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", spy)
    with pytest.raises(UnsafeTarget) as info:
        check_target(dev, output_dir=tmp_path / "out", runner=RUNNER)
    monkeypatch.undo()
    assert f"{dev}" in str(info.value) and "mounted at /" in str(info.value)
    assert not [f for f in opened if f & (os.O_WRONLY | os.O_RDWR)], "the guard opened / for writing"


def _digest(image, header_only: bool) -> str:
    if not header_only:
        return sha256(image)
    with open(image, "rb") as f:
        return hashlib.sha256(f.read(4096)).hexdigest()


@pytest.mark.parametrize("state", ["mounted partition", "swap", "signature", "root"])
def test_charz_characterize_refuses_the_unsafe_target_and_changes_nothing(state, make_loop, tmp_path):
    """The whole CLI path: the guard refuses before the scope is even reached (exit 6)."""
    import subprocess
    import sys

    need_tools("sfdisk", "partx", "mkfs.ext4", "mount", "mkswap", "swapon", "swapoff")
    loop = None
    if state == "root":
        target = _root_device()
        if target is None:
            pytest.skip("/ is not on a block device here")
    else:
        loop = make_loop(partscan=state == "mounted partition")
        target = loop.path
        if state == "mounted partition":
            part = loop.partition()
            loop.mkfs(part)
            loop.mount(part)
        elif state == "swap":
            try:
                loop.swapon()
            except AssertionError as exc:
                pytest.skip(f"swap on a loop device is not possible here: {exc}")
        else:
            loop.mkfs()
    # An active swap area's data pages are the kernel's to write (memory pressure, a cgroup
    # limit: it happened once in a CI-like run); for swap only the header page, which the
    # kernel never swaps to and a write from offset 0 would hit first, is compared.
    header = state == "swap"
    before = _digest(loop.image, header) if loop else None
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "charz", "characterize", "--device", target,
                           "--scope", "TCPIP::127.0.0.1::9::SOCKET", "--channels", "8", "--packages", "16",
                           "--page-size", "4k", "--confirm-serial", "none", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 6, proc.stderr
    assert "Traceback" not in proc.stderr
    reason = {"mounted partition": "is mounted at", "swap": "in use as swap", "signature": "carries signatures",
              "root": "mounted at /"}[state]
    assert reason in proc.stderr
    if loop:
        assert _digest(loop.image, header) == before, "a refused target changed"

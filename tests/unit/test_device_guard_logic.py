"""The guard's decisions on fake sysfs/proc trees (the real-device matrix is in
tests/system/test_device_guard.py).

This is where the cases the test machine cannot build for real are covered: a
device-mapper holder (no dm in the CI kernel), a btrfs-style anonymous st_dev, a
stacked device, a loop device over a block device, missing or failing tools.
An unused /dev/loopN node stands in for the drive; it is only stat'ed.
"""

from __future__ import annotations


import pytest

from charz.device import check_target, inspect_target
from charz.device.testing import Exchange, ReplayRunner, expected_commands, make_fake_sysfs
from charz.errors import UnsafeTarget

pytestmark = pytest.mark.unit

CLEAN_WIPEFS = '{\n   "signatures": [\n\n   ]\n}\n'
HEADER = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"



class Bench:
    """A fake sysfs + proc pair around the stand-in node."""

    def __init__(self, tmp_path, node, **disk):
        self.path, self.major, self.minor = node
        self.sysfs = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(self.major, self.minor), **disk)
        self.proc = tmp_path / "proc"
        (self.proc / "self").mkdir(parents=True)
        self.mountinfo("")
        self.swaps(HEADER)

    def mountinfo(self, text):
        (self.proc / "self" / "mountinfo").write_text(
            "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" + text)

    def swaps(self, text):
        (self.proc / "swaps").write_text(text)

    def inspect(self, wipefs=CLEAN_WIPEFS, output_dir=None, allow_signatures=False, runner=None, **kw):
        runner = runner or ReplayRunner([(("wipefs", "--no-act", "--json", self.path), wipefs)])
        return inspect_target(self.path, output_dir=output_dir, allow_signatures=allow_signatures,
                              runner=runner, sysfs_root=str(self.sysfs), proc_root=str(self.proc),
                              system_paths=kw.get("system_paths", ("/",)))


def test_clean_device_is_accepted(tmp_path, node):
    bench = Bench(tmp_path, node)
    report = bench.inspect(output_dir=tmp_path / "runs")
    assert report.safe, report.describe()
    assert (report.kernel_name, report.major, report.minor) == ("sdz", bench.major, bench.minor)
    assert report.describe().endswith("no reason to refuse")


def test_mounted_partition_is_caught_by_number(tmp_path, node):
    # fio#1382: fio compares names and misses a mounted partition of the target
    bench = Bench(tmp_path, node, partitions={"sdz1": (259, 77), "sdz2": (259, 78)})
    bench.mountinfo("42 27 259:78 / /srv/data rw,relatime - ext4 /dev/sdz2 rw\n")
    report = bench.inspect()
    assert report.partitions == ("sdz1", "sdz2")
    assert report.reasons == ("/dev/sdz2 is mounted at /srv/data (ext4)",)


def test_btrfs_anonymous_device_number_is_caught_by_the_mount_source(tmp_path, node):
    bench = Bench(tmp_path, node)
    # btrfs reports an anonymous 0:NN in mountinfo; the source names our node
    out = tmp_path / "mnt" / "runs"
    bench.mountinfo(f"50 27 0:52 / {tmp_path / 'mnt'} rw - btrfs {bench.path} rw\n")
    report = bench.inspect(output_dir=out)
    assert f"/dev/sdz is mounted at {tmp_path / 'mnt'} (btrfs)" in report.reasons
    assert f"/dev/sdz holds the output directory {out}" in report.reasons


def test_holders_of_the_disk_and_of_a_partition(tmp_path, node):
    bench = Bench(tmp_path, node, holders=["dm-0"], partitions={"sdz1": (259, 90)},
                  partition_holders={"sdz1": ["md127"]})
    reasons = bench.inspect().reasons
    assert any(r.startswith("/dev/sdz is held by /dev/dm-0") for r in reasons)
    assert any(r.startswith("/dev/sdz1 is held by /dev/md127") for r in reasons)


def test_swap_on_the_disk(tmp_path, node):
    bench = Bench(tmp_path, node)
    bench.swaps(HEADER + f"{bench.path}                              partition\t65532\t\t0\t\t-2\n")
    assert bench.inspect().reasons == ("/dev/sdz is in use as swap",)


def test_swap_file_elsewhere_is_ignored(tmp_path, node):
    bench = Bench(tmp_path, node)
    bench.swaps(HEADER + "/swapfile  file  1024  0  -2\n/dev/zram0  partition  1024 0 100\n")
    assert bench.inspect().safe


def test_stacked_device_and_loop_over_a_block_device(tmp_path, node):
    bench = Bench(tmp_path, node, slaves=["sda", "sdb"], loop_backing_file="/dev/null")
    reasons = bench.inspect().reasons
    assert any("stacked device on /dev/sda, /dev/sdb" in r for r in reasons)
    assert not any("loop device over" in r for r in reasons)   # /dev/null is a character device
    bench2 = Bench(tmp_path / "b", node, loop_backing_file=node.path)
    assert any("loop device over the block device" in r for r in bench2.inspect().reasons)


def test_signatures_refused_unless_allowed(tmp_path, node):
    bench = Bench(tmp_path, node)
    gpt = ('{"signatures": [{"device": "sdz", "offset": "0x200", "type": "gpt", "uuid": null, "label": null},'
           '{"device": "sdz", "offset": "0x1fe", "type": "PMBR", "uuid": null, "label": null}]}')
    refused = bench.inspect(wipefs=gpt)
    assert refused.reasons == (f"{bench.path} carries signatures: gpt at byte 512, PMBR at byte 510 "
                               "(wipe them with wipefs -a, or allow signatures)",)
    allowed = bench.inspect(wipefs=gpt, allow_signatures=True)
    assert allowed.safe and "will be overwritten" in allowed.notes[0]
    assert [s.type for s in allowed.signatures] == ["gpt", "PMBR"]


def test_signature_check_falls_back_to_blkid_and_fails_closed(tmp_path, node):
    bench = Bench(tmp_path, node)
    wipefs = ("wipefs", "--no-act", "--json", bench.path)
    blkid = ("blkid", "-p", "-o", "export", bench.path)
    with expected_commands([Exchange(wipefs, missing=True), (blkid, (2, "", ""))]) as runner:
        assert bench.inspect(runner=runner).safe
    with expected_commands([Exchange(wipefs, missing=True),
                            (blkid, (0, "DEVNAME=/dev/sdz\nTYPE=LVM2_member\nUSAGE=raid\n", ""))]) as runner:
        assert "LVM2_member" in bench.inspect(runner=runner).reasons[0]
    with expected_commands([Exchange(wipefs, missing=True), Exchange(blkid, missing=True)]) as runner:
        reason, = bench.inspect(runner=runner).reasons
        assert "cannot list signatures" in reason and "wipefs is not installed" in reason
    with expected_commands([(wipefs, (1, "", "wipefs: error: probing initialization failed: "
                                               "Operation not permitted\n"))]) as runner:
        reason, = bench.inspect(runner=runner).reasons
        assert reason.startswith("cannot list signatures") and "Operation not permitted" in reason


def test_all_reasons_are_collected_and_check_target_raises_with_them(tmp_path, node):
    bench = Bench(tmp_path, node, holders=["dm-1"], partitions={"sdz1": (259, 91)})
    bench.mountinfo("43 27 259:91 / /home rw - xfs /dev/sdz1 rw\n")
    bench.swaps(HEADER + f"{bench.path} partition 1 0 -2\n")
    gpt = '{"signatures": [{"offset": "0x200", "type": "gpt"}]}'
    with pytest.raises(UnsafeTarget) as info:
        check_target(bench.path, output_dir=None,
                     runner=ReplayRunner([(("wipefs", "--no-act", "--json", bench.path), gpt)]),
                     sysfs_root=str(bench.sysfs), proc_root=str(bench.proc))
    report = info.value.report
    assert len(report.reasons) == 4
    message = str(info.value)
    for fragment in ("/dev/sdz1 is mounted at /home (xfs)", "held by /dev/dm-1", "in use as swap",
                     "carries signatures: gpt"):
        assert fragment in message
    assert "wipefs -a" in info.value.hint


def test_system_paths_only_count_when_they_are_mount_points(tmp_path, node):
    bench = Bench(tmp_path, node)
    boot = tmp_path / "boot"
    boot.mkdir()
    # /boot as a plain directory of / is not reported on its own ...
    assert bench.inspect(system_paths=("/", str(boot))).safe
    # ... but a /boot mounted from our disk is
    bench.mountinfo(f"44 27 0:60 / {boot} rw - vfat {bench.path} rw\n")
    reasons = bench.inspect(system_paths=("/", str(boot))).reasons
    assert f"/dev/sdz holds {boot}" in reasons


def test_not_a_block_device(tmp_path):
    regular = tmp_path / "disk.img"
    regular.write_bytes(b"\0" * 4096)
    link = tmp_path / "alias"
    link.symlink_to("/dev/null")
    runner = ReplayRunner([])
    assert "regular file" in inspect_target(regular, output_dir=None, runner=runner).reasons[0]
    report = inspect_target(link, output_dir=None, runner=runner)
    assert report.path == "/dev/null" and report.given_path == str(link)
    assert "character device" in report.reasons[0]
    assert "does not exist" in inspect_target(tmp_path / "nope", output_dir=None, runner=runner).reasons[0]

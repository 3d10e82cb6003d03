"""identify() on recorded tool output, a fake sysfs tree and an unused /dev node as stand-in.

Nothing here opens or changes a device: the node is only stat'ed for its major:minor,
the fake sysfs maps that number to the drive being imitated, and the replaying runner
answers for lsblk, hdparm, nvme and smartctl.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from charz.device import identify
from charz.device.testing import Exchange, ReplayRunner, expected_commands, make_fake_sysfs
from charz.errors import DeviceCommandFailed, DeviceError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "device"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()



def test_identify_sata(node, tmp_path):
    path, major, minor = node
    sysfs = make_fake_sysfs(tmp_path, disk="sdb", devnum=(major, minor), size_bytes=500107862016)
    with expected_commands([
        (("lsblk", "-J", "-b", "-O", path), fixture("lsblk-sata-sdb.json")),
        (("hdparm", "-I", path), fixture("hdparm-I-sata-ssd.txt")),
        (("smartctl", "-j", "-i", "-A", path), fixture("smartctl-sata.json")),
    ]) as runner:
        ident = identify(path, runner=runner, sysfs_root=str(sysfs))
    assert (ident.path, ident.kernel_name, ident.major, ident.minor) == (path, "sdb", major, minor)
    assert (ident.model, ident.serial, ident.firmware) == ("Samsung SSD 860 EVO 500GB", "S3Z1NB0K123456X",
                                                          "RVT04B6Q")
    assert (ident.transport, ident.rotational, ident.size_bytes) == ("sata", False, 500107862016)
    assert (ident.logical_sector_bytes, ident.physical_sector_bytes) == (512, 512)
    assert ident.queue.scheduler == "none" and ident.queue.max_sectors_kb == 1280
    assert ident.ata.security.frozen is False
    assert ident.smart.rotation_rate_rpm == 0
    assert ident.notes == ()


def test_identify_sata_without_hdparm_fails_with_the_package_name(node, tmp_path):
    path, major, minor = node
    sysfs = make_fake_sysfs(tmp_path, disk="sdb", devnum=(major, minor))
    with expected_commands([
        (("lsblk", "-J", "-b", "-O", path), fixture("lsblk-sata-sdb.json")),
        Exchange(("hdparm", "-I", path), missing=True),
    ]) as runner:
        with pytest.raises(DeviceCommandFailed, match="hdparm is not installed") as info:
            identify(path, runner=runner, sysfs_root=str(sysfs))
    assert "apt-get install hdparm" in info.value.hint


def test_identify_nvme(node, tmp_path):
    path, major, minor = node
    sysfs = make_fake_sysfs(tmp_path, disk="nvme0n1", devnum=(major, minor), nsid=1, nvme_controller="nvme0")
    with expected_commands([
        (("lsblk", "-J", "-b", "-O", path), fixture("lsblk-nvme-nvme0n1.json")),
        (("nvme", "id-ctrl", path, "-o", "json"), fixture("nvme-id-ctrl.json")),
        (("nvme", "id-ns", path, "-o", "json"), fixture("nvme-id-ns.json")),
        (("smartctl", "-j", "-i", "-A", path), fixture("smartctl-nvme.json")),
    ]) as runner:
        ident = identify(path, runner=runner, sysfs_root=str(sysfs))
    assert (ident.transport, ident.model, ident.serial) == ("nvme", "Samsung SSD 970 EVO Plus 500GB",
                                                           "S4EVNX0R123456A")
    assert ident.nvme.nsid == 1 and ident.nvme.sibling_namespaces == ()
    assert ident.nvme.controller.volatile_write_cache_present
    assert ident.rotational is False      # lsblk/queue say 0 and smartctl has no rotation rate


def test_identify_loop_records_what_smartctl_said(node, tmp_path):
    path, major, minor = node
    queue = {"logical_block_size": "512", "physical_block_size": "512", "minimum_io_size": "512",
             "optimal_io_size": "0", "discard_granularity": "4096", "discard_max_bytes": "4294966784",
             "max_sectors_kb": "1280", "rotational": "1", "write_cache": "write back", "scheduler": "[none]"}
    sysfs = make_fake_sysfs(tmp_path, disk="loop0", devnum=(major, minor), queue=queue,
                            loop_backing_file="/tmp/x/disk.img")
    with expected_commands([
        (("lsblk", "-J", "-b", "-O", path), fixture("lsblk-loop-clean.json")),
        (("smartctl", "-j", "-i", "-A", path), (1, fixture("smartctl-loop.json"), "")),
    ]) as runner:
        ident = identify(path, runner=runner, sysfs_root=str(sysfs))
    assert ident.transport == "loop" and ident.serial is None and ident.model is None
    assert ident.loop_backing_file == "/tmp/x/disk.img"
    assert ident.rotational is True         # the kernel's flag is all there is
    assert any("Unable to detect device type" in n for n in ident.notes)
    assert any("no drive firmware" in n for n in ident.notes)


def test_identify_usb_bridge_without_pass_through(node, tmp_path):
    path, major, minor = node
    sysfs = make_fake_sysfs(tmp_path, disk="sdc", devnum=(major, minor))
    with expected_commands([
        (("lsblk", "-J", "-b", "-O", path), fixture("lsblk-usb-sdc.json")),
        (("hdparm", "-I", path), "\n" + path + ":\n"),
        Exchange(("smartctl", "-j", "-i", "-A", path), missing=True),
    ]) as runner:
        ident = identify(path, runner=runner, sysfs_root=str(sysfs))
    assert ident.transport == "usb" and ident.ata is None and ident.smart is None
    assert ident.serial == "S49WNP0M000000Z"          # from lsblk, the only source left
    assert any("USB bridge" in n for n in ident.notes)
    assert any("apt-get install smartmontools" in n for n in ident.notes)


def test_identify_refuses_partitions_and_non_block_devices(node, tmp_path):
    path, major, minor = node
    # make the stand-in node look like a partition of a disk
    sysfs = make_fake_sysfs(tmp_path, disk="sdq", devnum=(major, minor + 100000),
                            partitions={"sdq1": (major, minor)})
    with pytest.raises(DeviceError, match="is a partition of /dev/sdq"):
        identify(path, runner=ReplayRunner([]), sysfs_root=str(sysfs))
    with pytest.raises(DeviceError, match="not a block device"):
        identify("/dev/null", runner=None, sysfs_root=str(sysfs))
    with pytest.raises(DeviceError, match="cannot stat"):
        identify(tmp_path / "nope", runner=None, sysfs_root=str(sysfs))

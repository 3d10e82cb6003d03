"""Queue limits for tune: read from a fake sysfs (read-only), overridden, and what each tool would do with them."""

from __future__ import annotations

import builtins

import pytest

from charz.device import QueueLimits, parse_queue_limits
from charz.device.testing import SSD_QUEUE, make_fake_sysfs
from charz.errors import DeviceError, UsageError
from charz.tune import advise, compare_limits, decide_basis, read_limits, with_overrides
from charz.tune._ext4 import mke2fs_default
from charz.tune._facts import facts_from_profile
from charz.tune._limits import KernelLimits
from charz.tune._lvm import lvm_default
from charz.tune._partition import partition_default
from charz.tune._xfs import mkfs_xfs_default
from charz.tune._zfs import zpool_default
from charz.tune.testing import preset_profile

pytestmark = pytest.mark.unit

NVME_QUEUE = {**SSD_QUEUE, "physical_block_size": "4096", "minimum_io_size": "4096", "optimal_io_size": "0",
              "logical_block_size": "512"}


def limits(**attrs) -> KernelLimits:
    text = {**SSD_QUEUE, **{k: str(v) for k, v in attrs.items()}}
    return KernelLimits(parse_queue_limits(text), "test")


@pytest.fixture
def sysfs(tmp_path):
    root = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(8, 240), queue=NVME_QUEUE, partitions={"sdz1": (8, 241)})
    return str(root)


def test_read_limits_from_a_fake_sysfs(sysfs):
    k = read_limits("sdz", sysfs_root=sysfs)
    assert (k.logical, k.physical, k.min_io, k.opt_io) == (512, 4096, 4096, 0)
    assert k.origin.endswith("/block/sdz/queue") and k.disk == "sdz" and k.partition is None


def test_a_partition_reads_its_disks_limits(sysfs):
    k = read_limits("sdz1", sysfs_root=sysfs)
    assert (k.disk, k.partition, k.min_io) == ("sdz", "sdz1", 4096)


def test_unknown_device_is_a_device_error(sysfs):
    with pytest.raises(DeviceError, match="no block device named 'sdq'"):
        read_limits("sdq", sysfs_root=sysfs)


def test_reading_limits_opens_nothing_for_writing(sysfs, monkeypatch):
    modes = []
    real_open = builtins.open

    def spy(file, mode="r", *args, **kwargs):
        modes.append(mode)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    read_limits("sdz1", sysfs_root=sysfs)
    assert modes and all(m in ("r", "rt") for m in modes)


def test_overrides_replace_min_and_opt_io_and_say_so(sysfs):
    k = with_overrides(read_limits("sdz", sysfs_root=sysfs), min_io_bytes=32768, opt_io_bytes=131072)
    assert (k.min_io, k.opt_io, k.physical, k.sectors_assumed) == (32768, 131072, 4096, False)
    assert "--min-io/--opt-io" in k.origin
    alone = with_overrides(None, min_io_bytes=None, opt_io_bytes=65536)
    assert alone.sectors_assumed and (alone.min_io, alone.opt_io) == (512, 65536)
    assert with_overrides(None, min_io_bytes=None, opt_io_bytes=None) is None
    with pytest.raises(UsageError):
        with_overrides(None, min_io_bytes=-1, opt_io_bytes=None)


def test_a_bare_queue_limits_is_accepted():
    q = parse_queue_limits(NVME_QUEUE)
    assert isinstance(q, QueueLimits)
    a = advise(preset_profile("mxp"), fs="ext4", limits=q)
    assert a.kernel_default.known and "no stride" in a.kernel_default.summary


# ---- what each tool does alone (sources in each module's docstring) -------------------------------------------

def test_mke2fs_stride_from_min_io_and_stripe_only_when_rotational():
    ssd = mke2fs_default(limits(minimum_io_size=32768, optimal_io_size=131072, rotational=0), 4096)
    assert {o.name: o.value for o in ssd.options} == {"stride": 8}
    assert "before 1.47.3 would set stripe_width=32" in ssd.summary
    hdd = mke2fs_default(limits(minimum_io_size=32768, optimal_io_size=131072, rotational=1), 4096)
    assert {o.name: o.value for o in hdd.options} == {"stride": 8, "stripe_width": 32}
    typical = mke2fs_default(limits(physical_block_size=4096, minimum_io_size=4096, optimal_io_size=0), 4096)
    assert typical.options == ()
    # a physical sector above the block stands in for a missing minimum_io_size
    big_sector = mke2fs_default(limits(physical_block_size=16384, minimum_io_size=0, optimal_io_size=0), 4096)
    assert {o.name: o.value for o in big_sector.options} == {"stride": 4}


def test_mkfs_xfs_ignores_sector_sized_and_invalid_geometry():
    assert mkfs_xfs_default(limits(physical_block_size=4096, minimum_io_size=4096, optimal_io_size=0), 4096).options == ()
    assert "invalid" in mkfs_xfs_default(limits(minimum_io_size=32768, optimal_io_size=0), 4096).summary
    assert "invalid" in mkfs_xfs_default(limits(minimum_io_size=32768, optimal_io_size=49152), 4096).summary
    ok = mkfs_xfs_default(limits(minimum_io_size=32768, optimal_io_size=131072), 4096)
    assert {o.name: o.value for o in ok.options} == {"su": 32768, "sw": 4}


@pytest.mark.parametrize("logical, physical, ashift", [
    (512, 512, 9),        # 512-byte sectors reported: ZFS picks 9 on its own
    (512, 4096, 12),      # 512e
    (4096, 4096, 12),     # 4Kn
    (512, 65536, 9),      # above the auto cap of 14: falls back to the logical sector
    (512, 16384, 14),
])
def test_zpool_auto_ashift(logical, physical, ashift):
    k = limits(logical_block_size=logical, physical_block_size=physical)
    assert zpool_default(k).options[0].value == ashift


def test_lvm_replaces_1mib_by_io_sizes_it_does_not_divide():
    assert lvm_default(limits(minimum_io_size=4096, optimal_io_size=0)).options[0].value == 1 << 20
    assert lvm_default(limits(minimum_io_size=98304, optimal_io_size=0)).options[0].value == 98304
    assert lvm_default(limits(minimum_io_size=4096, optimal_io_size=3 << 20)).options[0].value == 3 << 20


def test_partition_tools_alone():
    typical = partition_default(limits(minimum_io_size=4096, optimal_io_size=0))
    assert {o.name: o.value for o in typical.options} == {"start": 1 << 20, "align": 1 << 20}
    big = partition_default(limits(minimum_io_size=4096, optimal_io_size=2 << 20))
    assert {o.name: o.value for o in big.options} == {"start": 2 << 20, "align": 2 << 20}
    odd = partition_default(limits(minimum_io_size=4096, optimal_io_size=98304))
    assert {o.name: o.value for o in odd.options} == {"start": 1 << 20, "align": 98304}


# ---- disagreements ------------------------------------------------------------------------------------------

def test_optimal_io_size_0_is_flagged_against_the_measured_size(sysfs):
    basis = decide_basis(facts_from_profile(preset_profile("mxp")))
    lines = compare_limits(read_limits("sdz", sysfs_root=sysfs), basis)
    assert any("optimal_io_size is 0" in line and "charz measured 128 KiB" in line for line in lines)
    assert any("minimum_io_size 4 KiB is smaller than the measured write unit 32 KiB" in line for line in lines)


def test_limits_that_match_the_measurement_raise_no_io_size_disagreement():
    basis = decide_basis(facts_from_profile(preset_profile("mxp")))
    lines = compare_limits(limits(physical_block_size=4096, minimum_io_size=32768, optimal_io_size=131072), basis)
    assert not any("io_size" in line for line in lines)


def test_a_512_byte_physical_sector_is_flagged_against_the_4k_page():
    basis = decide_basis(facts_from_profile(preset_profile("x25m")))
    k = limits(physical_block_size=512, minimum_io_size=512)
    assert any("smaller than the 4 KiB flash page" in line for line in compare_limits(k, basis))
    zfs = advise(preset_profile("x25m"), fs="zfs", limits=k)
    assert zfs.disagreements == ("zfs ashift: zpool create alone → ashift=9; charz → ashift=12",)


def test_target_disagreements_name_both_sides(sysfs):
    k = read_limits("sdz", sysfs_root=sysfs)
    ext4 = advise(preset_profile("mxp"), fs="ext4", limits=k, device="/dev/sdz")
    assert ext4.disagreements == ("ext4 stride: mkfs.ext4 alone → no stride; charz → stride=8",
                                  "ext4 stripe_width: mkfs.ext4 alone → no stripe_width; charz → stripe_width=32")
    xfs = advise(preset_profile("mxp"), fs="xfs", limits=k)
    assert xfs.disagreements == ("xfs stripe: mkfs.xfs alone → no stripe; charz → su=32k,sw=4",)
    assert advise(preset_profile("mxp"), fs="partition", limits=k).disagreements == ()


def test_one_page_drive_with_a_kernel_stripe_mentions_noalign():
    k = limits(physical_block_size=4096, minimum_io_size=65536, optimal_io_size=131072)
    xfs = advise(preset_profile("840"), fs="xfs", limits=k)
    assert xfs.commands[0].argv == ("mkfs.xfs", "-b", "size=4096", "DEV")
    assert any("-d noalign" in n for n in xfs.notes)
    assert xfs.disagreements == ("xfs stripe: mkfs.xfs alone → su=64k,sw=2; charz → no stripe",)


def test_partition_on_a_partition_names_the_whole_disk(sysfs):
    k = read_limits("sdz1", sysfs_root=sysfs)
    a = advise(preset_profile("mxp"), fs="partition", limits=k, device="/dev/sdz1")
    assert a.commands[0].argv == ("sfdisk", "/dev/sdz")
    assert any("whole disk" in w for w in a.warnings)


def test_a_4kn_drive_gets_4k_sector_numbers():
    k = limits(logical_block_size=4096, physical_block_size=4096, minimum_io_size=4096)
    a = advise(preset_profile("mxp"), fs="partition", limits=k)
    assert a.commands[0].stdin == "label: gpt\nstart=256\n"
    assert not any("assumed" in w for w in a.warnings)


@pytest.mark.parametrize("start_sector, expected", [
    (2048, None),                                                    # 1 MiB: fdisk's and parted's default
    (2049, "512 B past a multiple of the 32 KiB measured write unit"),  # one sector off: every unit split
    (2048 + 64, "32768 B past a multiple of the 128 KiB measured full stripe"),  # on the unit, off the stripe
])
def test_a_partition_start_off_the_unit_is_said_first(tmp_path, start_sector, expected):
    root = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(8, 240), queue=NVME_QUEUE,
                           partitions={"sdz1": (8, 241)}, partition_starts={"sdz1": start_sector})
    k = read_limits("sdz1", sysfs_root=str(root))
    assert k.partition_start_bytes == start_sector * 512
    basis = decide_basis(facts_from_profile(preset_profile("mxp")))
    lines = compare_limits(k, basis)
    starts = [line for line in lines if "sdz1 starts at" in line]
    if expected is None:
        assert starts == []
    else:
        assert len(starts) == 1 and expected in starts[0] and "recreate the partition" in starts[0]
        assert lines[0] == starts[0]


def test_a_page_drive_checks_the_start_against_the_page(tmp_path):
    # X25-M: no unit beyond a 4 KiB page; a partition at sector 63 (the DOS default of old) is off the page.
    root = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(8, 240), partitions={"sdz1": (8, 241)},
                           partition_starts={"sdz1": 63})
    basis = decide_basis(facts_from_profile(preset_profile("x25m")))
    lines = compare_limits(read_limits("sdz1", sysfs_root=str(root)), basis)
    assert any("sdz1 starts at byte 32256" in line and "3584 B past a multiple of the 4 KiB flash page" in line
               for line in lines)
    # The whole disk has no start to check.
    assert not any("starts at" in line for line in compare_limits(read_limits("sdz", sysfs_root=str(root)), basis))


@pytest.mark.parametrize("min_io, opt_io, match", [
    (3 * 1024 + 1, None, "--min-io 3073 B is not a size a kernel reports"),
    (0, None, "--min-io 0 B"),
    (None, 5, "--opt-io 5 B"),
    (-512, None, "--min-io -512 B"),
])
def test_io_size_overrides_must_be_sizes_a_kernel_could_report(min_io, opt_io, match):
    with pytest.raises(UsageError, match=match):
        with_overrides(None, min_io_bytes=min_io, opt_io_bytes=opt_io)


def test_io_size_overrides_follow_the_drives_logical_block(sysfs):
    k = read_limits("sdz", sysfs_root=sysfs)
    assert with_overrides(k, min_io_bytes=32768, opt_io_bytes=0).min_io == 32768
    with pytest.raises(UsageError, match="multiple of the 4096 B logical block"):
        with_overrides(limits(logical_block_size=4096, physical_block_size=4096), min_io_bytes=1024, opt_io_bytes=None)

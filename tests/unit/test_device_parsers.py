"""The device layer's parsers on recorded tool output, malformed input and round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.device import (
    parse_blkid_export,
    parse_flag,
    parse_get_feature,
    parse_id_ctrl,
    parse_id_ns,
    parse_identify,
    parse_lsblk,
    parse_mountinfo,
    parse_power_mode,
    parse_queue_limits,
    parse_scheduler,
    parse_smartctl,
    parse_swaps,
    parse_wipefs,
)
from charz.device._values import as_bool, as_int
from charz.errors import DeviceError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "device"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


# -- lsblk --------------------------------------------------------------------------

def test_lsblk_real_loop_capture():
    dev, = parse_lsblk(fixture("lsblk-loop-clean.json"))
    assert (dev.kname, dev.maj_min, dev.type, dev.size_bytes) == ("loop0", "7:0", "loop", 64 << 20)
    assert dev.model is None and dev.serial is None and dev.transport is None
    assert dev.logical_sector_bytes == 512 and dev.discard_granularity_bytes == 4096
    assert dev.mountpoints == () and dev.children == ()


def test_lsblk_partition_children_and_mountpoints():
    dev, = parse_lsblk(fixture("lsblk-loop-partitioned-mounted.json"))
    child, = dev.children
    assert (child.kname, child.maj_min, child.type) == ("loop0p1", "259:0", "part")
    assert child.mountpoints == ("/tmp/charz_exp/m",)
    assert [d.kname for d in dev.walk()] == ["loop0", "loop0p1"]


def test_lsblk_sata_nvme_usb_identity_columns():
    sata, = parse_lsblk(fixture("lsblk-sata-sdb.json"))
    assert (sata.transport, sata.model, sata.serial, sata.rotational) == (
        "sata", "Samsung SSD 860 EVO 500GB", "S3Z1NB0K123456X", False)
    assert sata.vendor == "ATA"  # lsblk pads it; stripped
    nvme, = parse_lsblk(fixture("lsblk-nvme-nvme0n1.json"))
    assert (nvme.transport, nvme.maj_min, nvme.scheduler) == ("nvme", "259:0", "none")
    usb, = parse_lsblk(fixture("lsblk-usb-sdc.json"))
    assert usb.subsystems == "block:scsi:usb:pci"


def test_lsblk_old_util_linux_prints_strings():
    dev, = parse_lsblk(fixture("lsblk-old-strings.json"))
    assert dev.size_bytes == 64 << 20 and dev.rotational is True and dev.minimum_io_bytes == 512
    assert dev.mountpoints == ()


@pytest.mark.parametrize("text, fragment", [
    ("", "printed nothing"),
    ("lsblk: /dev/sdz: not a block device", "not JSON"),
    ("[]", "not an object"),
    ('{"devices": []}', "'blockdevices' is missing"),
    ('{"blockdevices": {}}', "not a list"),
    ('{"blockdevices": [{"name": "x", "type": "disk", "size": 1}]}', "'maj:min' is missing"),
    ('{"blockdevices": [{"name": "x", "maj:min": "8", "type": "disk", "size": 1}]}', "MAJOR:MINOR"),
    ('{"blockdevices": [{"name": "x", "maj:min": "8:0", "type": "disk", "size": "big"}]}', "expected an integer"),
    ('{"blockdevices": [{"name": "x", "maj:min": "8:0", "type": "disk", "size": 1, "rota": "maybe"}]}',
     "expected a boolean"),
    ('{"blockdevices": ["sda"]}', "not an object"),
])
def test_lsblk_malformed(text, fragment):
    with pytest.raises(DeviceError, match=fragment):
        parse_lsblk(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fixed_dictionaries({
    "name": st.from_regex(r"[a-z]{2,6}[0-9]{0,2}", fullmatch=True),
    "major": st.integers(0, 511),
    "minor": st.integers(0, 1 << 20),
    "size": st.integers(0, 1 << 50),
    "rota": st.booleans(),
    "old_style": st.booleans(),
}), max_size=4))
def test_lsblk_round_trip(rows):
    def render(r):
        values = {"name": r["name"], "kname": r["name"], "maj:min": f"{r['major']}:{r['minor']}",
                  "type": "disk", "size": r["size"], "rota": r["rota"]}
        if r["old_style"]:
            values = {k: (("1" if v else "0") if isinstance(v, bool) else str(v)) for k, v in values.items()}
        return values
    parsed = parse_lsblk(json.dumps({"blockdevices": [render(r) for r in rows]}))
    assert [(d.kname, d.major, d.minor, d.size_bytes, d.rotational) for d in parsed] == [
        (r["name"], r["major"], r["minor"], r["size"], r["rota"]) for r in rows]


# -- hdparm -------------------------------------------------------------------------

def test_hdparm_identify_sata_ssd():
    ident = parse_identify(fixture("hdparm-I-sata-ssd.txt"))
    assert ident.model == "Samsung SSD 860 EVO 500GB"
    assert ident.serial == "S3Z1NB0K123456X"
    assert ident.firmware == "RVT04B6Q"
    assert ident.transport.startswith("Serial, ATA8-AST")
    assert ident.sectors == 976773168
    assert (ident.logical_sector_bytes, ident.physical_sector_bytes) == (512, 512)
    assert ident.solid_state is True
    assert ident.feature("Write cache") is True
    assert ident.feature("Look-ahead") is True
    assert ident.feature("SET_MAX security extension") is False
    assert ident.feature("Write-Read-Verify feature set") is False
    assert ident.feature("No such feature") is None
    sec = ident.security
    assert sec.supported and not sec.enabled and not sec.locked and not sec.frozen
    assert not sec.count_expired and sec.enhanced_erase_supported
    assert (sec.erase_time_min, sec.enhanced_erase_time_min) == (2, 8)


def test_hdparm_identify_frozen_and_enabled_variants():
    assert parse_identify(fixture("hdparm-I-sata-ssd-frozen.txt")).security.frozen is True
    enabled = parse_identify(fixture("hdparm-I-sata-ssd-security-enabled.txt")).security
    assert enabled.enabled is True and enabled.frozen is False


def test_hdparm_identify_old_layout_with_spaces():
    # hdparm 6.x indented with spaces and printed "(?)" for a clear "supported" bit
    text = ("\n/dev/hda:\n\nATA device, with non-removable media\n"
            "        Model Number:       Maxtor 6Y120M0\n        Serial Number:      Y3MGJ86E\n"
            "Commands/features:\n        Enabled Supported:\n           *    Write cache\n"
            "                Look-ahead\nSecurity: \n        Master password revision code = 65534\n"
            "        (?)     supported\n        not     enabled\n        not     locked\n"
            "        not     frozen\n")
    ident = parse_identify(text)
    assert ident.feature("Write cache") is True and ident.feature("Look-ahead") is False
    assert ident.security.supported is False and ident.security.frozen is False


def test_hdparm_identify_on_a_loop_device_is_a_clear_error():
    # real capture: hdparm exits 0 and prints only the device name
    with pytest.raises(DeviceError, match="no IDENTIFY data") as info:
        parse_identify(fixture("hdparm-I-loop.txt"))
    assert "nvme-cli" in info.value.hint


def test_hdparm_identify_without_security_section():
    text = fixture("hdparm-I-sata-ssd.txt").split("Security:")[0]
    assert parse_identify(text).security is None


def test_hdparm_identify_truncated_security_section():
    text = fixture("hdparm-I-sata-ssd.txt").split("\tnot\tenabled")[0]
    with pytest.raises(DeviceError, match="Security section"):
        parse_identify(text)


@pytest.mark.parametrize("name, key, value", [
    ("hdparm-W.txt", "write-caching", 1),
    ("hdparm-W0.txt", "write-caching", 0),
    ("hdparm-W1.txt", "write-caching", 1),
    ("hdparm-A.txt", "look-ahead", 1),
    ("hdparm-A0.txt", "look-ahead", 0),
    ("hdparm-A-unsupported.txt", "look-ahead", None),
    ("hdparm-a.txt", "readahead", 256),
    ("hdparm-a0.txt", "readahead", 0),
    ("hdparm-a256.txt", "readahead", 256),
])
def test_hdparm_flag_replies(name, key, value):
    assert parse_flag(fixture(name), key) == value


def test_hdparm_flag_reply_missing_is_a_clear_error():
    # what hdparm -W prints for a loop device (real): only the device name
    with pytest.raises(DeviceError, match="no 'write-caching' value"):
        parse_flag("\n/dev/loop0:\n", "write-caching")
    with pytest.raises(DeviceError):
        parse_flag(fixture("hdparm-W.txt"), "look-ahead")


@given(st.sampled_from(["write-caching", "look-ahead", "readahead"]), st.integers(0, 2048))
def test_hdparm_flag_round_trip(key, value):
    # hdparm.c: printf(" %-13s = %2d", ...) then on_off(value)
    line = f" {key:<13} = {value:2d}" + (" (on)" if value else " (off)")
    assert parse_flag(f"\n/dev/sda:\n{line}\n", key) == value


def test_hdparm_power_mode():
    assert parse_power_mode(fixture("hdparm-C-standby.txt")) == "standby"
    assert parse_power_mode(fixture("hdparm-C-active.txt")) == "active/idle"
    with pytest.raises(DeviceError):
        parse_power_mode(fixture("hdparm-y.txt"))


# -- nvme-cli -----------------------------------------------------------------------

def test_nvme_id_ctrl():
    ctrl = parse_id_ctrl(fixture("nvme-id-ctrl.json"))
    assert ctrl.model == "Samsung SSD 970 EVO Plus 500GB"   # space padding stripped
    assert ctrl.serial == "S4EVNX0R123456A"
    assert ctrl.firmware == "2B2QEXM7"
    assert ctrl.volatile_write_cache_present and ctrl.apst_supported and ctrl.format_supported
    assert not ctrl.format_applies_to_all_namespaces
    assert not ctrl.secure_erase_applies_to_all_namespaces
    assert ctrl.crypto_erase_supported
    assert (ctrl.max_namespaces, ctrl.power_states) == (1, 5)


def test_nvme_id_ctrl_variants():
    no_vwc = parse_id_ctrl(fixture("nvme-id-ctrl-no-vwc.json"))
    assert not no_vwc.volatile_write_cache_present and not no_vwc.apst_supported
    fna = parse_id_ctrl(fixture("nvme-id-ctrl-fna-all.json"))
    assert fna.format_applies_to_all_namespaces and fna.secure_erase_applies_to_all_namespaces


def test_nvme_id_ns():
    ns = parse_id_ns(fixture("nvme-id-ns.json"))
    assert (ns.size_blocks, ns.lba_format_index, ns.lba_bytes) == (976773168, 0, 512)
    assert ns.preferred_write_granularity_blocks is None   # NSFEAT bit 4 clear
    kn = parse_id_ns(fixture("nvme-id-ns-4kn-npwg.json"))
    assert (kn.lba_format_index, kn.lba_bytes, kn.lba_formats) == (1, 4096, ((512, 0), (4096, 0)))
    assert kn.preferred_write_granularity_blocks == 16


def test_nvme_id_ns_high_format_index_bits():
    doc = json.loads(fixture("nvme-id-ns.json"))
    doc["lbafs"] = [{"ms": 0, "ds": 9, "rp": 0}] * 17 + [{"ms": 8, "ds": 12, "rp": 0}]
    doc["flbas"] = (17 & 0xF) | ((17 >> 4) << 5)
    ns = parse_id_ns(json.dumps(doc))
    assert (ns.lba_format_index, ns.lba_bytes) == (17, 4096)


@pytest.mark.parametrize("parser, text, fragment", [
    (parse_id_ctrl, "", "printed nothing"),
    (parse_id_ctrl, "identify controller: Invalid argument", "not JSON"),   # real, on a loop device
    (parse_id_ctrl, '{"sn": "x", "mn": "y"}', "'vwc' is missing"),
    (parse_id_ctrl, '{"sn": "x", "mn": "y", "vwc": "yes", "oacs": 0}', "expected an integer"),
    (parse_id_ns, '{"flbas": 0, "nsze": 1}', "'lbafs' is missing"),
    (parse_id_ns, '{"flbas": 0, "nsze": 1, "lbafs": []}', "non-empty list"),
    (parse_id_ns, '{"flbas": 3, "nsze": 1, "lbafs": [{"ds": 9}]}', "selects format 3"),
    (parse_id_ns, '{"flbas": 0, "nsze": 1, "lbafs": [7]}', "not an object"),
])
def test_nvme_malformed(parser, text, fragment):
    with pytest.raises(DeviceError, match=fragment):
        parser(text)


def test_nvme_get_feature():
    assert parse_get_feature(fixture("nvme-get-feature-0x06-on.txt"), 0x06) == 1
    assert parse_get_feature(fixture("nvme-get-feature-0x06-off.txt"), 0x06) == 0
    assert parse_get_feature(fixture("nvme-get-feature-0x06-v1.txt"), 0x06) == 1   # nvme-cli 1.x
    assert parse_get_feature(fixture("nvme-get-feature-0x0c.txt"), 0x0C) == 1       # with the data dump
    with pytest.raises(DeviceError, match="asked for feature 0x0c"):
        parse_get_feature(fixture("nvme-get-feature-0x06-on.txt"), 0x0C)
    with pytest.raises(DeviceError, match="no 'Current value'"):
        parse_get_feature(fixture("nvme-set-feature-0x06-off.txt"), 0x06)


@given(st.integers(0, 0xFF), st.integers(0, 0xFFFFFFFF))
def test_nvme_get_feature_round_trip(fid, value):
    text = f"get-feature:{fid:#04x} (Some Feature), Current value:{value:#010x}\n"
    assert parse_get_feature(text, fid) == value


# -- smartctl -----------------------------------------------------------------------

def test_smartctl_sata():
    info = parse_smartctl(fixture("smartctl-sata.json"))
    assert (info.protocol, info.model, info.serial, info.firmware) == (
        "ATA", "Samsung SSD 860 EVO 500GB", "S3Z1NB0K123456X", "RVT04B6Q")
    assert (info.capacity_bytes, info.rotation_rate_rpm) == (500107862016, 0)
    assert {a.name: a.raw_value for a in info.ata_attributes}["Total_LBAs_Written"] == 21474836480


def test_smartctl_nvme():
    info = parse_smartctl(fixture("smartctl-nvme.json"))
    assert info.protocol == "NVMe" and info.rotation_rate_rpm is None
    assert info.nvme_health_value("data_units_written") == 2345678
    assert info.nvme_health_value("temperature_sensors") is None   # lists are left out


def test_smartctl_on_a_loop_device_is_a_clear_error():
    with pytest.raises(DeviceError, match="Unable to detect device type") as info:
        parse_smartctl(fixture("smartctl-loop.json"))   # real capture
    assert info.value.code == 1


def test_smartctl_health_bits_do_not_stop_identification():
    doc = json.loads(fixture("smartctl-sata.json"))
    doc["smartctl"]["exit_status"] = 4 | 64    # a SMART command failed; error log has entries
    assert parse_smartctl(json.dumps(doc)).serial == "S3Z1NB0K123456X"


@pytest.mark.parametrize("text, fragment", [
    ("{}", "'smartctl' is missing"),
    ('{"smartctl": []}', "not an object"),
    ('{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": {}}}', "not a list"),
    ('{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": [{"name": "x"}]}}', "'id' is missing"),
    ('{"smartctl": {"exit_status": 0}, "device": "sda"}', "not an object"),
])
def test_smartctl_malformed(text, fragment):
    with pytest.raises(DeviceError, match=fragment):
        parse_smartctl(text)


# -- sysfs --------------------------------------------------------------------------

def test_scheduler_and_queue_limits():
    assert parse_scheduler("none [mq-deadline] kyber bfq \n") == ("mq-deadline", ("none", "mq-deadline", "kyber", "bfq"))
    assert parse_scheduler("[none] mq-deadline") == ("none", ("none", "mq-deadline"))
    assert parse_scheduler("") == (None, ())
    # the real queue/ of this machine's virtio disk
    q = parse_queue_limits({"minimum_io_size": "4096", "optimal_io_size": "0", "physical_block_size": "4096",
                            "logical_block_size": "512", "discard_granularity": "4096",
                            "discard_max_bytes": "1073741824", "max_sectors_kb": "4096",
                            "max_hw_sectors_kb": "2147483647", "write_cache": "write back\n",
                            "scheduler": "none [mq-deadline] kyber bfq \n", "rotational": "1\n",
                            "read_ahead_kb": "8192"})
    assert (q.physical_block_size_bytes, q.write_cache, q.scheduler, q.rotational) == (4096, "write back",
                                                                                       "mq-deadline", True)
    assert q.supports_discard


def test_queue_limits_missing_and_garbage():
    with pytest.raises(DeviceError, match="logical_block_size is missing"):
        parse_queue_limits({})
    with pytest.raises(DeviceError, match="expected an integer"):
        parse_queue_limits({"logical_block_size": "lots", "physical_block_size": "512",
                            "minimum_io_size": "512", "max_sectors_kb": "1"})


# -- /proc --------------------------------------------------------------------------

def test_mountinfo_real_capture():
    entries = parse_mountinfo(fixture("mountinfo-loop-partition.txt"))
    by_point = {e.mountpoint: e for e in entries}
    assert by_point["/"].maj_min == "254:0" and by_point["/"].source == "/dev/vda"
    loop = by_point["/tmp/charz_exp/m"]
    assert (loop.maj_min, loop.fstype, loop.source) == ("259:0", "ext4", "/dev/loop0p1")


def test_mountinfo_optional_fields_and_malformed():
    line = "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 shared:7 - btrfs /dev/sdc1 rw,errors=continue\n"
    e, = parse_mountinfo(line)
    assert (e.root, e.mountpoint, e.fstype, e.source) == ("/mnt1", "/mnt/my disk", "btrfs", "/dev/sdc1")
    with pytest.raises(DeviceError, match="line 1 is malformed"):
        parse_mountinfo("36 35 98:0 / /mnt rw\n")          # no " - " separator
    with pytest.raises(DeviceError, match="malformed"):
        parse_mountinfo("x 35 98-0 / /mnt rw - ext4 /dev/sda rw\n")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               min_size=1, max_size=30))
def test_mountinfo_path_escaping_round_trip(name):
    # the kernel escapes exactly " \t\n\\" (fs/proc_namespace.c: mangle); \r or \f stay raw
    escaped = "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in "/mnt/" + name)
    e, = parse_mountinfo(f"40 27 7:0 / {escaped} rw - ext4 /dev/loop0 rw\n")
    assert e.mountpoint == "/mnt/" + name


def test_swaps():
    assert parse_swaps(fixture("proc-swaps-loop.txt")) == ("/dev/loop0p1",)
    assert parse_swaps("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n") == ()
    assert parse_swaps("") == ()
    assert parse_swaps("Filename Type\n/swap\\040file file 1 0 -2\n") == ("/swap file",)
    with pytest.raises(DeviceError, match="no header"):
        parse_swaps("/dev/sda2 partition 1 0 -2\n")


# -- signatures ---------------------------------------------------------------------

def test_wipefs_real_captures():
    assert parse_wipefs(fixture("wipefs-loop-clean.json")) == ()
    sigs = parse_wipefs(fixture("wipefs-loop-gpt.json"))
    assert [(s.type, s.offset_bytes) for s in sigs] == [("gpt", 0x200), ("gpt", 0x3FFFE00), ("PMBR", 0x1FE)]
    assert parse_wipefs("") == ()


@pytest.mark.parametrize("text, fragment", [
    ("wipefs: error: /dev/sdz: probing initialization failed", "not JSON"),
    ('{"sigs": []}', "'signatures' is missing"),
    ('{"signatures": [{"offset": "0x0"}]}', "'type' is missing"),
    ('{"signatures": [{"type": "", "offset": "0x0"}]}', "no type"),
    ('{"signatures": [{"type": "xfs", "offset": "here"}]}', "expected an integer"),
])
def test_wipefs_malformed(text, fragment):
    with pytest.raises(DeviceError, match=fragment):
        parse_wipefs(text)


@given(st.lists(st.tuples(st.sampled_from(["ext4", "xfs", "gpt", "PMBR", "LVM2_member", "linux_raid_member",
                                           "crypto_LUKS", "swap", "zfs_member"]),
                          st.integers(0, 1 << 40)), max_size=5))
def test_wipefs_round_trip(rows):
    doc = {"signatures": [{"device": "sdz", "offset": hex(off), "type": t, "uuid": None, "label": None}
                          for t, off in rows]}
    assert [(s.type, s.offset_bytes) for s in parse_wipefs(json.dumps(doc))] == rows


def test_blkid_export_real_captures():
    ext4, = parse_blkid_export(fixture("blkid-export-ext4.txt"))
    assert (ext4.type, ext4.label) == ("ext4", "charzdata")
    gpt, = parse_blkid_export(fixture("blkid-export-gpt.txt"))
    assert gpt.type == "gpt"
    assert parse_blkid_export("") == ()
    with pytest.raises(DeviceError, match="unexpected line"):
        parse_blkid_export("this is not KEY=value output\n")


# -- no parser lets a Python error escape ------------------------------------------

PARSERS = [
    parse_lsblk, parse_identify, parse_id_ctrl, parse_id_ns, parse_smartctl, parse_wipefs,
    parse_blkid_export, parse_mountinfo, parse_swaps, parse_power_mode,
    lambda t: parse_flag(t, "write-caching"), lambda t: parse_get_feature(t, 6),
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(PARSERS))),
       st.one_of(st.text(max_size=300),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                              lambda kids: st.lists(kids, max_size=3)
                              | st.dictionaries(st.sampled_from(["blockdevices", "name", "maj:min", "size",
                                                                 "type", "vwc", "oacs", "sn", "mn", "flbas",
                                                                 "nsze", "lbafs", "ds", "smartctl",
                                                                 "exit_status", "signatures", "children",
                                                                 "ata_smart_attributes", "table", "id"]),
                                                kids, max_size=5),
                              max_leaves=12).map(json.dumps)))
def test_parsers_raise_only_device_error(index, text):
    try:
        PARSERS[index](text)
    except DeviceError:
        pass


def test_value_helpers():
    assert as_int("0x10", "f") == 16 and as_int(3.0, "f") == 3 and as_int(True, "f") == 1
    with pytest.raises(DeviceError):
        as_int(3.5, "f")
    with pytest.raises(DeviceError):
        as_int([1], "f")
    assert as_bool(1, "f") is True
    with pytest.raises(DeviceError):
        as_bool(2, "f")

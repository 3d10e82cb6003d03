"""charz tune's commands against numbers worked out by hand from 003 (Table 2, §5.2–§5.5, §6).

MXP: 32 KiB unit (8 × 4 KiB pages), 4 units in parallel → 128 KiB keeps all 16 packages busy.
Q Pro: 32 KiB unit (4 × 8 KiB pages), 4 units in parallel → 128 KiB.
X-25M and 840: the unit is one 4 KiB page ("no I/O unit larger than a page", Table 2 "-").
"""

from __future__ import annotations

import shlex

import pytest

from charz.tune import TARGETS, advise, build_report, format_report
from charz.tune.testing import PRESETS, preset_profile, profile_dict

pytestmark = pytest.mark.unit


def argvs(profile, fs, **kw):
    return [c.argv for c in advise(profile, fs=fs, limits=None, **kw).commands]


# ---- the two drives with an I/O unit (003 Table 4: "I/O unit SSDs") -------------------------------------------

@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_ext4_stride_is_unit_over_block_and_stripe_width_adds_n_step(preset):
    # 32 KiB / 4 KiB = 8 blocks; 8 × 4 units in parallel = 32 blocks (= 128 KiB)
    assert argvs(preset_profile(preset), "ext4") == [("mkfs.ext4", "-b", "4096", "-E", "stride=8,stripe_width=32", "DEV")]


def test_ext4_with_1k_blocks_counts_blocks_not_bytes():
    # 32 KiB / 1 KiB = 32 blocks; × 4 = 128
    assert argvs(preset_profile("mxp"), "ext4", block_size_bytes=1024) == [
        ("mkfs.ext4", "-b", "1024", "-E", "stride=32,stripe_width=128", "DEV")]


@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_xfs_su_is_the_unit_in_bytes_and_sw_is_n_step(preset):
    assert argvs(preset_profile(preset), "xfs") == [("mkfs.xfs", "-b", "size=4096", "-d", "su=32k,sw=4", "DEV")]


def test_zfs_mxp_record_is_the_unit_and_ashift_the_4k_page():
    assert argvs(preset_profile("mxp"), "zfs") == [
        ("zpool", "create", "-o", "ashift=12", "POOL", "DEV"), ("zfs", "set", "recordsize=32K", "POOL")]


def test_zfs_qpro_ashift_follows_its_8k_page():
    # 003 §5.2: the Q Pro's pages are 8 KiB → ashift 13; the unit is still 32 KiB
    assert argvs(preset_profile("qpro"), "zfs") == [
        ("zpool", "create", "-o", "ashift=13", "POOL", "DEV"), ("zfs", "set", "recordsize=32K", "POOL")]


@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_btrfs_nodesize_is_the_unit_and_says_there_is_no_stripe_unit(preset):
    a = advise(preset_profile(preset), fs="btrfs", limits=None)
    assert [c.argv for c in a.commands] == [("mkfs.btrfs", "-s", "4096", "-n", "32768", "DEV")]
    assert any("no stripe unit on a single device" in n for n in a.notes)


@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_mdadm_chunk_is_the_unit_in_kib(preset):
    (argv,) = argvs(preset_profile(preset), "mdadm")
    assert "--chunk=32K" in argv


def test_mdadm_full_stripe_and_array_mkfs_with_data_disks():
    a = advise(preset_profile("mxp"), fs="mdadm", limits=None, data_disks=3)
    assert any("32 KiB × 3 = 96 KiB" in n for n in a.notes)
    assert [c.argv for c in a.commands[1:]] == [
        ("mkfs.ext4", "-b", "4096", "-E", "stride=8,stripe_width=24", "MD"),
        ("mkfs.xfs", "-b", "size=4096", "-d", "su=32k,sw=3", "MD"),
    ]


@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_lvm_aligns_to_the_full_parallel_size(preset):
    assert argvs(preset_profile(preset), "lvm") == [("pvcreate", "--dataalignment", "128k", "DEV")]


@pytest.mark.parametrize("preset", ["mxp", "qpro"])
def test_partition_starts_at_lcm_of_1mib_and_128k(preset):
    a = advise(preset_profile(preset), fs="partition", limits=None)
    sfdisk, parted = a.commands
    assert sfdisk.argv == ("sfdisk", "DEV") and sfdisk.stdin == "label: gpt\nstart=2048\n"
    assert parted.argv == ("parted", "--script", "-a", "optimal", "DEV", "mklabel", "gpt", "mkpart", "primary", "1MiB", "100%")
    assert any("already a multiple" in n for n in a.notes)


# ---- one-page units: X-25M and 840 ------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["x25m", "840"])
def test_one_page_unit_gives_the_page_aligned_defaults(preset):
    p = preset_profile(preset)
    by_target = {a.target: a for a in build_report(p, fs="all", limits=None).advice}
    assert all(a.basis == "page" for a in by_target.values())
    assert [c.argv for c in by_target["ext4"].commands] == [("mkfs.ext4", "-b", "4096", "DEV")]
    assert [c.argv for c in by_target["xfs"].commands] == [("mkfs.xfs", "-b", "size=4096", "DEV")]
    assert [c.argv for c in by_target["zfs"].commands] == [("zpool", "create", "-o", "ashift=12", "POOL", "DEV")]
    assert [c.argv for c in by_target["btrfs"].commands] == [("mkfs.btrfs", "-s", "4096", "DEV")]
    assert [c.argv for c in by_target["mdadm"].commands] == [
        ("mdadm", "--create", "MD", "--level=LEVEL", "--raid-devices=N", "MEMBERS...")]
    assert [c.argv for c in by_target["lvm"].commands] == [("pvcreate", "DEV")]
    assert by_target["partition"].commands[0].stdin == "label: gpt\nstart=2048\n"
    report = format_report(build_report(p, fs="all", limits=None))
    assert "gains nothing measurable" in report
    assert "noalign" in report


def test_one_page_unit_is_recognised_from_step_pages_without_a_page_size():
    p = profile_dict(unit_bytes=4096, n_step=20, step_pages=1, packages=20, page_size=None)
    a = advise(p, fs="ext4", limits=None)
    assert a.basis == "page" and a.commands[0].argv == ("mkfs.ext4", "-b", "4096", "DEV")
    zfs = advise(p, fs="zfs", limits=None)
    assert zfs.commands == () and any("page_size_bytes is not in the profile" in w for w in zfs.warnings)


# ---- undetermined: no invented numbers -------------------------------------------------------------------------

EQ1_FAIL = "Eq. 1 gives 32/12 = 2.67 dies per package, not a whole number: check the package count (12) and the step detection"


def undetermined_profile(**kw):
    p = profile_dict(unit_bytes=None, n_step=4, step_pages=8, packages=12, unit_evidence=EQ1_FAIL, **kw)
    p["results"]["write_io_unit_bytes"]["best_guess"] = 32768  # what charz analyze records; tune must not use it
    return p


@pytest.mark.parametrize("fs", TARGETS)
def test_undetermined_unit_falls_back_to_the_page_and_invents_nothing(fs):
    a = advise(undetermined_profile(), fs=fs, limits=None)
    assert a.basis == "fallback"
    text = " ".join(arg for c in a.commands for arg in c.argv)
    for invented in ("32768", "32k", "32K", "stride", "stripe_width", "su=", "recordsize", "--chunk", "--dataalignment", "128k"):
        assert invented not in text, (fs, invented, text)
    assert EQ1_FAIL in a.warnings[0] and "--packages" in a.warnings[0]
    for c in a.commands:
        for o in c.options:
            if o.sources and o.sources[0].key == "given.page_size_bytes":
                assert o.fallback and o.reason.startswith("FALLBACK")


def test_undetermined_report_quotes_the_evidence_once_and_tags_every_target():
    text = format_report(build_report(undetermined_profile(), fs="all", limits=None))
    assert text.count(EQ1_FAIL) == 1
    assert text.count("[FALLBACK]") == len(TARGETS)
    assert "32 KiB" not in text and "128 KiB" not in text


@pytest.mark.parametrize("fs", TARGETS)
def test_undetermined_unit_without_a_page_size_gives_no_command(fs):
    a = advise(undetermined_profile(page_size=None), fs=fs, limits=None)
    assert a.basis == "none" and a.commands == ()
    assert "page size is not in the profile" in a.warnings[0]


def test_n_step_undetermined_aligns_to_the_unit_only():
    p = profile_dict(unit_bytes=32768, n_step=None, step_pages=8)
    assert argvs(p, "ext4") == [("mkfs.ext4", "-b", "4096", "-E", "stride=8", "DEV")]
    xfs = advise(p, fs="xfs", limits=None)
    assert xfs.commands[0].argv[-2] == "su=32k,sw=1"
    assert xfs.commands[0].options[-1].fallback
    assert "stripe width" in xfs.warnings[0]
    assert advise(p, fs="partition", limits=None).commands[0].stdin == "label: gpt\nstart=2048\n"


def test_medium_confidence_is_carried_into_a_warning():
    a = advise(profile_dict(unit_bytes=32768, n_step=4, step_pages=8, confidence="medium"), fs="xfs", limits=None)
    assert any("only medium confidence" in w for w in a.warnings)
    assert "(inferred, medium)" in a.commands[0].options[1].reason


# ---- awkward geometry ----------------------------------------------------------------------------------------

def three_package_unit():
    # 12 packages, 4 steps → 3 packages per unit × 2 dies × 4 KiB = 24 KiB; 4 units = 96 KiB
    return profile_dict(unit_bytes=24576, n_step=4, step_pages=6, packages=12)


def test_non_power_of_two_unit():
    p = three_package_unit()
    assert argvs(p, "ext4") == [("mkfs.ext4", "-b", "4096", "-E", "stride=6,stripe_width=24", "DEV")]
    assert argvs(p, "xfs") == [("mkfs.xfs", "-b", "size=4096", "-d", "su=24k,sw=4", "DEV")]
    zfs = advise(p, fs="zfs", limits=None)
    assert zfs.commands[1].argv == ("zfs", "set", "recordsize=32K", "POOL")
    assert any("straddle" in w for w in zfs.warnings)
    mdadm = advise(p, fs="mdadm", limits=None)
    assert "--chunk=32K" in mdadm.commands[0].argv and any("straddle" in w for w in mdadm.warnings)
    lvm = advise(p, fs="lvm", limits=None)
    assert lvm.commands[0].argv == ("pvcreate", "--dataalignment", "24k", "DEV")
    assert any("vgcreate -s" in w for w in lvm.warnings)
    part = advise(p, fs="partition", limits=None)  # lcm(1 MiB, 96 KiB) = 3 MiB
    assert part.commands[0].stdin == "label: gpt\nstart=6144\n" and "3MiB" in part.commands[1].argv
    btrfs = advise(p, fs="btrfs", limits=None)
    assert "-n" not in btrfs.commands[0].argv and any("cannot be a nodesize" in n for n in btrfs.notes)


def test_block_larger_than_the_unit_gives_no_fractional_stride():
    from charz.tune._tool_limits import Host

    p = preset_profile("mxp")
    arm64 = Host(65536, (6, 18), (4096, 65536), "6.18")  # where a 64 KiB ext4 mounts at all
    ext4 = advise(p, fs="ext4", limits=None, block_size_bytes=65536, host=arm64)
    assert ext4.commands[0].argv == ("mkfs.ext4", "-b", "65536", "DEV")
    assert any("does not divide" in w for w in ext4.warnings)
    xfs = advise(p, fs="xfs", limits=None, block_size_bytes=65536)
    assert "-d" not in xfs.commands[0].argv


# ---- the shape of every answer -------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("fs", TARGETS)
def test_argv_are_tuples_of_plain_strings_and_display_round_trips(preset, fs):
    for command in advise(preset_profile(preset), fs=fs, limits=None, data_disks=4, device="/dev/sdb").commands:
        assert isinstance(command.argv, tuple) and all(type(a) is str for a in command.argv)
        assert not any(a.strip() != a or "|" in a for a in command.argv)
        assert command.argv[0] in ("mkfs.ext4", "mkfs.xfs", "zpool", "zfs", "mkfs.btrfs", "mdadm", "pvcreate", "sfdisk", "parted")
        line = command.display.split(" | ")[-1]
        assert shlex.split(line) == list(command.argv)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("fs", TARGETS)
def test_every_option_cites_where_its_number_came_from(preset, fs):
    for command in advise(preset_profile(preset), fs=fs, limits=None).commands:
        for o in command.options:
            assert o.sources, (fs, o)
            assert "; from " in o.reason and "\n" not in o.reason
            for s in o.sources:
                if s.kind == "profile":
                    assert s.key.startswith(("results.", "given.")) and s.confidence


def test_device_is_named_in_the_commands():
    assert argvs(preset_profile("mxp"), "ext4", device="/dev/sdb")[0][-1] == "/dev/sdb"
    assert advise(preset_profile("mxp"), fs="ext4", limits=None).placeholders == ("DEV",)


def test_a_read_unit_larger_than_the_record_is_noted_for_zfs():
    a = advise(preset_profile("mxp", read_unit_bytes=262144), fs="zfs", limits=None)
    assert any("reads in 256 KiB units (results.read_io_unit_bytes, high)" in n for n in a.notes)
    assert not any("reads in" in n for n in advise(preset_profile("qpro", read_unit_bytes=8192), fs="zfs", limits=None).notes)


def test_fallback_on_an_8k_page_aligns_to_the_page_and_flags_it():
    p = preset_profile("qpro", unit_bytes=None, unit_evidence="needs the step count and width: too noisy")
    ext4 = advise(p, fs="ext4", limits=None)
    assert ext4.commands[0].argv == ("mkfs.ext4", "-b", "4096", "-E", "stride=2", "DEV")
    assert ext4.commands[0].options[1].fallback and "8 KiB page" in ext4.commands[0].options[1].reason
    xfs = advise(p, fs="xfs", limits=None)
    assert xfs.commands[0].argv[-2] == "su=8k,sw=1" and all(o.fallback for o in xfs.commands[0].options[1:])
    assert "--repeats" in ext4.warnings[0] and "too noisy" in ext4.warnings[0]


def test_mdadm_names_the_given_device_as_one_member():
    from charz.tune import advise

    a = advise(preset_profile("mxp"), fs="mdadm", limits=None, device="/dev/sdb")
    assert a.commands[0].argv[-2:] == ("/dev/sdb", "OTHERS...")
    assert "OTHERS..." in a.placeholders and "MEMBERS..." not in a.placeholders
    assert any("/dev/sdb is one member" in n for n in a.notes)
    assert advise(preset_profile("mxp"), fs="mdadm", limits=None).commands[0].argv[-1] == "MEMBERS..."

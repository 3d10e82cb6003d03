"""The initialization plan (003 Table 3) and its execution on a replaying runner:
SATA, NVMe and loop devices, read-back, restore after errors and Ctrl-C, erase gates."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from charz.device import (
    DriveIdentity,
    ExclusiveHold,
    NvmeInfo,
    TargetReport,
    initialize,
    not_restored,
    parse_id_ctrl,
    parse_id_ns,
    parse_identify,
    parse_queue_limits,
    plan_initialization,
    put_back,
)
from charz.device._plan import FROZEN_HINT
from charz.device.testing import SSD_QUEUE, Exchange, ReplayRunner, expected_commands
from charz.errors import ConfirmationRequired, DeviceCommandFailed, UnsafeTarget, UsageError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "device"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()



@pytest.fixture
def hold(node):
    # a checked hold object on the stand-in node; its fd is /dev/null, nothing is claimed
    fd = os.open("/dev/null", os.O_RDONLY)
    h = ExclusiveHold(node.path, fd, node.rdev, TargetReport(node.path, node.path, "sdb", 8, 16))
    yield h
    h.release()


def identity(path: str, transport: str, **kw) -> DriveIdentity:
    base = dict(path=path, kernel_name={"sata": "sdb", "nvme": "nvme0n1", "usb": "sdc"}.get(transport, "loop3"),
                major=8, minor=16, model=None, serial=None, firmware=None, size_bytes=500107862016,
                transport=transport, rotational=False, logical_sector_bytes=512, physical_sector_bytes=512,
                queue=parse_queue_limits(SSD_QUEUE))
    base.update(kw)
    return DriveIdentity(**base)


def sata(path, hdparm="hdparm-I-sata-ssd.txt", **kw):
    return identity(path, "sata", model="Samsung SSD 860 EVO 500GB", serial="S3Z1NB0K123456X",
                    ata=parse_identify(fixture(hdparm)), **kw)


def nvme(path, ctrl="nvme-id-ctrl.json", siblings=(), nsid=1):
    info = NvmeInfo(parse_id_ctrl(fixture(ctrl)), parse_id_ns(fixture("nvme-id-ns.json")), nsid, siblings)
    return identity(path, "nvme", model="Samsung SSD 970 EVO Plus 500GB", serial="S4EVNX0R123456A", nvme=info)


def loop(path, discard=True):
    queue = dict(SSD_QUEUE, rotational="1")
    if not discard:
        queue.update(discard_granularity="0", discard_max_bytes="0")
    return identity(path, "loop", queue=parse_queue_limits(queue), size_bytes=64 << 20)


def sata_apply(d):
    """The exchanges of a full SATA initialization, settings found on (as shipped)."""
    return [
        (("hdparm", "-a", d), fixture("hdparm-a.txt")),
        (("hdparm", "-a0", d), fixture("hdparm-a0.txt")),
        (("hdparm", "-a", d), fixture("hdparm-a-off.txt")),
        (("hdparm", "-A", d), fixture("hdparm-A.txt")),
        (("hdparm", "-A0", d), fixture("hdparm-A0.txt")),
        (("hdparm", "-A", d), fixture("hdparm-A-off.txt")),
        (("hdparm", "-W", d), fixture("hdparm-W.txt")),
        (("hdparm", "-W0", d), fixture("hdparm-W0.txt")),
        (("hdparm", "-W", d), fixture("hdparm-W-off.txt")),
        (("hdparm", "-C", d), fixture("hdparm-C-active.txt")),
        (("hdparm", "-y", d), fixture("hdparm-y.txt")),
        (("hdparm", "-C", d), fixture("hdparm-C-standby.txt")),
    ]


def sata_restore(d, upto=3):
    """Restores in reverse order: write cache, look-ahead, read-ahead (the last ``upto``)."""
    steps = [
        [(("hdparm", "-W1", d), fixture("hdparm-W1.txt")), (("hdparm", "-W", d), fixture("hdparm-W.txt"))],
        [(("hdparm", "-A1", d), fixture("hdparm-A1.txt")), (("hdparm", "-A", d), fixture("hdparm-A.txt"))],
        [(("hdparm", "-a256", d), fixture("hdparm-a256.txt")), (("hdparm", "-a", d), fixture("hdparm-a.txt"))],
    ]
    return [x for step in steps[3 - upto:] for x in step]


# -- plans ------------------------------------------------------------------------

def test_sata_plan_is_table_3(node):
    plan = plan_initialization(sata(node.path))
    d = node.path
    assert [(s.key, s.supported) for s in plan.settings] == [
        ("read_ahead", True), ("look_ahead", True), ("write_cache", True), ("standby", True)]
    assert [s.render_set(s.target) for s in plan.settings] == [
        ("hdparm", "-a0", d), ("hdparm", "-A0", d), ("hdparm", "-W0", d), ("hdparm", "-y", d)]
    assert plan.erase is None and plan.warnings == ()
    assert "drive write cache: to be set to 0 (hdparm -W0" in plan.describe()


def test_sata_without_write_cache_control_warns(node):
    text = fixture("hdparm-I-sata-ssd.txt").replace("\t   *\tWrite cache\n", "")
    ident = identity(node.path, "sata", ata=parse_identify(text))
    plan = plan_initialization(ident, standby=False)
    cache = next(s for s in plan.settings if s.key == "write_cache")
    assert not cache.supported and "does not list 'write cache'" in cache.reason
    assert len(plan.warnings) == 1 and "write cache was not disabled" in plan.warnings[0]
    assert "standby" not in [s.key for s in plan.settings]


def test_sata_secure_erase_plans(node):
    d = node.path
    plain = plan_initialization(sata(d), erase="secure-erase").erase
    assert plain.supported and plain.commands == (
        ("hdparm", "--user-master", "u", "--security-set-pass", "charz", d),
        ("hdparm", "--user-master", "u", "--security-erase", "charz", d))
    assert plain.timeout_s == 2 * 60 * 2 + 300
    enhanced = plan_initialization(sata(d), erase="enhanced-secure-erase").erase
    assert enhanced.commands[1][3] == "--security-erase-enhanced" and enhanced.timeout_s == 8 * 60 * 2 + 300
    frozen = plan_initialization(sata(d, "hdparm-I-sata-ssd-frozen.txt"), erase="secure-erase").erase
    assert not frozen.supported and frozen.reason == "ATA security is frozen" and frozen.hint == FROZEN_HINT
    assert "suspend" in FROZEN_HINT.lower() and "replug" in FROZEN_HINT
    enabled = plan_initialization(sata(d, "hdparm-I-sata-ssd-security-enabled.txt"), erase="secure-erase").erase
    assert not enabled.supported and "password is already set" in enabled.reason


def test_secure_erase_never_through_usb(node):
    usb = replace(sata(node.path), transport="usb")
    step = plan_initialization(usb, erase="secure-erase").erase
    assert not step.supported and "USB bridge" in step.reason


def test_nvme_plan(node):
    d = node.path
    plan = plan_initialization(nvme(d), erase="format")
    keys = {s.key: s for s in plan.settings}
    assert keys["write_cache"].render_set(0) == ("nvme", "set-feature", d, "-f", "0x06", "--value=0")
    assert "-v" not in keys["write_cache"].set_argv        # -v is --verbose in nvme-cli 2.x
    assert keys["read_ahead"].read_argv == ("blockdev", "--getra", d)
    assert keys["apst"].supported and keys["apst"].set_argv == ()
    assert not keys["look_ahead"].supported and not keys["standby"].supported
    assert plan.warnings == ()
    assert plan.erase.commands == (("nvme", "format", d, "--namespace-id=1", "--lbaf=0", "--ses=1", "--force"),)


def test_nvme_without_volatile_cache_has_nothing_to_disable(node):
    plan = plan_initialization(nvme(node.path, "nvme-id-ctrl-no-vwc.json"))
    cache = next(s for s in plan.settings if s.key == "write_cache")
    assert not cache.supported and "no volatile write cache" in cache.reason
    assert plan.warnings == ()     # nothing to disable is not a weakness


def test_nvme_format_refused_when_it_would_reach_other_namespaces(node):
    step = plan_initialization(nvme(node.path, "nvme-id-ctrl-fna-all.json", siblings=("nvme0n2",)),
                               erase="format").erase
    assert not step.supported and "ALL namespaces" in step.reason and "nvme0n2" in step.reason
    # the same controller with a single namespace is fine
    assert plan_initialization(nvme(node.path, "nvme-id-ctrl-fna-all.json"), erase="format").erase.supported
    assert not plan_initialization(nvme(node.path, nsid=None), erase="format").erase.supported


def test_loop_plan(node):
    plan = plan_initialization(loop(node.path), erase="discard")
    assert [(s.key, s.supported) for s in plan.settings] == [
        ("read_ahead", True), ("look_ahead", False), ("write_cache", False), ("standby", False)]
    assert all("not supported on this device" in s.describe() for s in plan.settings[1:])
    assert len(plan.warnings) == 1 and "--direct-io=on" in plan.warnings[0]
    assert plan.erase.commands == (("blkdiscard", "--force", node.path),)
    assert not plan_initialization(loop(node.path, discard=False), erase="discard").erase.supported
    assert not plan_initialization(loop(node.path), erase="format").erase.supported
    assert not plan_initialization(loop(node.path), erase="secure-erase").erase.supported
    with pytest.raises(UsageError, match="unknown erase method"):
        plan_initialization(loop(node.path), erase="shred")


# -- execution -------------------------------------------------------------------

def test_sata_initialize_reads_back_and_restores(node, hold):
    d = node.path
    plan = plan_initialization(sata(d))
    with expected_commands(sata_apply(d) + sata_restore(d)) as runner:
        with initialize(plan, runner=runner, hold=hold) as init:
            applied = {a.key: (a.before, a.after) for a in init.applied}
            assert applied == {"read_ahead": (256, 0), "look_ahead": (1, 0), "write_cache": (1, 0),
                               "standby": ("active/idle", "standby")}
    assert [(r.key, r.value, r.ok) for r in init.restored] == [
        ("write_cache", 1, True), ("look_ahead", 1, True), ("read_ahead", 256, True)]
    record = init.record()
    assert record["restore_failures"] == [] and record["transport"] == "sata"


def test_restore_after_keyboard_interrupt_in_the_block(node, hold):
    d = node.path
    plan = plan_initialization(sata(d))
    with expected_commands(sata_apply(d) + sata_restore(d)) as runner:
        with pytest.raises(KeyboardInterrupt):
            with initialize(plan, runner=runner, hold=hold):
                raise KeyboardInterrupt
    # expected_commands checked that all three restores ran


def test_restore_after_keyboard_interrupt_during_initialization(node, hold):
    d = node.path
    plan = plan_initialization(sata(d))
    exchanges = sata_apply(d)[:7] + [Exchange(("hdparm", "-W0", d), interrupt=True)]
    # Ctrl-C while -W0 runs: the write cache may or may not be off, so it is restored too
    with expected_commands(exchanges + sata_restore(d)) as runner:
        init = initialize(plan, runner=runner, hold=hold)
        with pytest.raises(KeyboardInterrupt):
            init.__enter__()
    assert [r.key for r in init.restored] == ["write_cache", "look_ahead", "read_ahead"]


def test_read_back_mismatch_fails_and_restores(node, hold):
    d = node.path
    plan = plan_initialization(sata(d))
    exchanges = sata_apply(d)[:7] + [
        (("hdparm", "-W0", d), fixture("hdparm-W0.txt")),
        (("hdparm", "-W", d), fixture("hdparm-W.txt")),           # the drive ignored -W0
    ]
    with expected_commands(exchanges + sata_restore(d)) as runner:
        with pytest.raises(DeviceCommandFailed, match="reads back as 1 after setting 0"):
            with initialize(plan, runner=runner, hold=hold):
                pytest.fail("must not get here")


def test_restore_failure_is_reported(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), standby=False)
    exchanges = sata_apply(d)[:9] + [
        (("hdparm", "-W1", d), (5, "", " HDIO_DRIVE_CMD(setcache) failed: Input/output error\n")),
    ] + sata_restore(d, upto=2)
    with expected_commands(exchanges) as runner:
        with pytest.raises(DeviceCommandFailed, match="could not restore every setting") as info:
            with initialize(plan, runner=runner, hold=hold):
                pass
    assert "hdparm -W1" in str(info.value)


def test_restore_failure_during_an_error_is_added_as_a_note(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), standby=False)
    exchanges = sata_apply(d)[:9] + [Exchange(("hdparm", "-W1", d), missing=True)] + sata_restore(d, upto=2)
    with expected_commands(exchanges) as runner:
        with pytest.raises(RuntimeError) as info:
            with initialize(plan, runner=runner, hold=hold):
                raise RuntimeError("capture failed")
    assert any("could not restore" in note for note in info.value.__notes__)


def test_nvme_initialize(node, hold):
    d = node.path
    plan = plan_initialization(nvme(d))
    exchanges = [
        (("blockdev", "--getra", d), "256\n"),
        (("blockdev", "--setra", "0", d), ""),
        (("blockdev", "--getra", d), "0\n"),
        (("nvme", "get-feature", d, "-f", "0x06"), fixture("nvme-get-feature-0x06-on.txt")),
        (("nvme", "set-feature", d, "-f", "0x06", "--value=0"), fixture("nvme-set-feature-0x06-off.txt")),
        (("nvme", "get-feature", d, "-f", "0x06"), fixture("nvme-get-feature-0x06-off.txt")),
        (("nvme", "get-feature", d, "-f", "0x0c"), fixture("nvme-get-feature-0x0c.txt")),
        # restore, newest first
        (("nvme", "set-feature", d, "-f", "0x06", "--value=1"), fixture("nvme-set-feature-0x06-on.txt")),
        (("nvme", "get-feature", d, "-f", "0x06"), fixture("nvme-get-feature-0x06-on.txt")),
        (("blockdev", "--setra", "256", d), ""),
        (("blockdev", "--getra", d), "256\n"),
    ]
    with expected_commands(exchanges) as runner:
        with initialize(plan, runner=runner, hold=hold) as init:
            apst = next(a for a in init.applied if a.key == "apst")
            assert (apst.before, apst.after, apst.command) == (1, 1, ())


def test_loop_initialize_discards_and_warns(node, hold):
    d = node.path
    plan = plan_initialization(loop(d), erase="discard")
    exchanges = [
        (("blkdiscard", "--force", d), ""),
        (("blockdev", "--getra", d), "5120\n"),
        (("blockdev", "--setra", "0", d), ""),
        (("blockdev", "--getra", d), "0\n"),
        (("blockdev", "--setra", "5120", d), ""),
        (("blockdev", "--getra", d), "5120\n"),
    ]
    with expected_commands(exchanges) as runner:
        with initialize(plan, runner=runner, hold=hold, confirm_serial="loop3") as init:
            assert init.erase.method == "discard"
            assert [s.key for s in init.skipped] == ["look_ahead", "write_cache", "standby"]
    record = init.record()
    assert len(record["warnings"]) == 1
    assert record["erase"]["commands"] == (("blkdiscard", "--force", d),)
    json.dumps(record)   # ready for the archive


def test_initialize_needs_the_checked_hold_on_this_device(node, tmp_path):
    plan = plan_initialization(loop(node.path))
    with pytest.raises(UnsafeTarget, match="without a checked exclusive hold"):
        initialize(plan, runner=ReplayRunner([]), hold=None).__enter__()
    fd = os.open("/dev/null", os.O_RDONLY)
    unchecked = ExclusiveHold(node.path, fd, node.rdev)          # hold_exclusive() alone: no report
    refused = ExclusiveHold(node.path, fd, node.rdev, TargetReport(node.path, node.path, "sdb", 8, 16,
                                                               reasons=("mounted",)))
    try:
        for hold in (unchecked, refused):
            assert not hold.checked
            with pytest.raises(UnsafeTarget):
                initialize(plan, runner=ReplayRunner([]), hold=hold).__enter__()
    finally:
        unchecked.release()
    fd = os.open("/dev/null", os.O_RDONLY)
    other = ExclusiveHold("/dev/null", fd, os.stat("/dev/null").st_rdev)
    try:
        with pytest.raises(UnsafeTarget):
            initialize(plan, runner=ReplayRunner([]), hold=other).__enter__()
    finally:
        other.release()


def test_erase_needs_the_serial_before_anything_runs(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), erase="secure-erase")
    with expected_commands([]) as runner:
        with pytest.raises(ConfirmationRequired, match="needs confirmation") as info:
            initialize(plan, runner=runner, hold=hold).__enter__()
        assert "S3Z1NB0K123456X" in str(info.value)
        with pytest.raises(ConfirmationRequired, match="not the serial number"):
            initialize(plan, runner=runner, hold=hold, confirm_serial="S3Z1NB0K123456Y").__enter__()


def test_unsupported_erase_refuses_before_changing_anything(node, hold):
    plan = plan_initialization(sata(node.path, "hdparm-I-sata-ssd-frozen.txt"), erase="secure-erase")
    with expected_commands([]) as runner:
        with pytest.raises(DeviceCommandFailed, match="frozen") as info:
            initialize(plan, runner=runner, hold=hold, confirm_serial="S3Z1NB0K123456X").__enter__()
    assert info.value.hint == FROZEN_HINT


def test_secure_erase_rereads_frozen_state_at_erase_time(node, hold):
    # identify saw "not frozen", but the drive is frozen now (e.g. after a resume)
    d = node.path
    plan = plan_initialization(sata(d), erase="secure-erase", standby=False)
    with expected_commands([(("hdparm", "-I", d), fixture("hdparm-I-sata-ssd-frozen.txt"))]) as runner:
        with pytest.raises(DeviceCommandFailed, match="frozen") as info:
            initialize(plan, runner=runner, hold=hold, confirm_serial="S3Z1NB0K123456X").__enter__()
    assert "suspend" in info.value.hint.lower()


def test_secure_erase_sequence(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), erase="secure-erase", standby=False)
    exchanges = [
        (("hdparm", "-I", d), fixture("hdparm-I-sata-ssd.txt")),
        (("hdparm", "--user-master", "u", "--security-set-pass", "charz", d), fixture("hdparm-security-set-pass.txt")),
        (("hdparm", "--user-master", "u", "--security-erase", "charz", d), fixture("hdparm-security-erase.txt")),
        (("hdparm", "-I", d), fixture("hdparm-I-sata-ssd.txt")),
    ] + sata_apply(d)[:9] + sata_restore(d)
    with expected_commands(exchanges) as runner:
        with initialize(plan, runner=runner, hold=hold, confirm_serial=" S3Z1NB0K123456X ") as init:
            assert "security not enabled" in init.erase.verification


def test_failed_secure_erase_says_how_to_unlock(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), erase="secure-erase", standby=False)
    exchanges = [
        (("hdparm", "-I", d), fixture("hdparm-I-sata-ssd.txt")),
        (("hdparm", "--user-master", "u", "--security-set-pass", "charz", d), fixture("hdparm-security-set-pass.txt")),
        (("hdparm", "--user-master", "u", "--security-erase", "charz", d),
         (5, "", "SECURITY_ERASE: Input/output error\n")),
    ]
    with expected_commands(exchanges) as runner:
        with pytest.raises(DeviceCommandFailed, match="may now be locked") as info:
            initialize(plan, runner=runner, hold=hold, confirm_serial="S3Z1NB0K123456X").__enter__()
    assert info.value.hint == f"unlock it: hdparm --user-master u --security-disable charz {d}"


def test_nvme_format_sequence(node, hold):
    d = node.path
    plan = plan_initialization(nvme(d), erase="format")
    exchanges = [
        (("nvme", "format", d, "--namespace-id=1", "--lbaf=0", "--ses=1", "--force"), fixture("nvme-format.txt")),
        (("nvme", "id-ns", d, "-o", "json"), fixture("nvme-id-ns.json")),
    ]
    runner = ReplayRunner(exchanges + [Exchange(("blockdev", "--getra", d), interrupt=True)])
    with pytest.raises(KeyboardInterrupt):
        initialize(plan, runner=runner, hold=hold, confirm_serial="S4EVNX0R123456A").__enter__()
    runner.assert_all_used()


# -- issue 25: the journal, the first originals, restore only --------------------------------

def test_each_change_is_journalled_before_it_is_made_and_the_restore_after(node, hold):
    d = node.path
    plan = plan_initialization(sata(d))
    journal: list[dict] = []
    with expected_commands(sata_apply(d) + sata_restore(d)) as runner:
        with initialize(plan, runner=runner, hold=hold, journal=journal.append):
            pass
    first = journal[0]  # before -a0 ran: what to put back is already on record
    assert first["state"] == "applying" and first["applied"] == []
    assert first["to_restore"] == [{"key": "read_ahead", "label": "read-ahead", "value": 256}]
    assert [r["state"] for r in journal] == ["applying"] * 3 + ["applied", "restored"]
    last = journal[-1]
    assert [(r["key"], r["value"], r["ok"]) for r in last["restored"]] == [
        ("write_cache", 1, True), ("look_ahead", 1, True), ("read_ahead", 256, True)]
    assert not_restored(journal) == {}  # restored: nothing left
    assert not_restored(journal[:4]) == {"read_ahead": 256, "look_ahead": 1, "write_cache": 1}  # a kill -9 here


def test_a_drive_left_changed_is_put_back_to_what_was_first_found(node, hold):
    # A resume after kill -9: the drive reads charz's own 0 / off; the first run found 256, 1, 1.
    d = node.path
    plan = plan_initialization(sata(d))
    found_changed = [
        (("hdparm", "-a", d), fixture("hdparm-a-off.txt")), (("hdparm", "-a0", d), fixture("hdparm-a0.txt")),
        (("hdparm", "-a", d), fixture("hdparm-a-off.txt")),
        (("hdparm", "-A", d), fixture("hdparm-A-off.txt")), (("hdparm", "-A0", d), fixture("hdparm-A0.txt")),
        (("hdparm", "-A", d), fixture("hdparm-A-off.txt")),
        (("hdparm", "-W", d), fixture("hdparm-W-off.txt")), (("hdparm", "-W0", d), fixture("hdparm-W0.txt")),
        (("hdparm", "-W", d), fixture("hdparm-W-off.txt")),
    ] + sata_apply(d)[9:]
    with expected_commands(found_changed + sata_restore(d)) as runner:
        with initialize(plan, runner=runner, hold=hold,
                        originals={"read_ahead": 256, "look_ahead": 1, "write_cache": 1}) as init:
            ra = next(a for a in init.applied if a.key == "read_ahead")
            assert (ra.before, ra.after, ra.original) == (0, 0, 256)
    assert [(r.key, r.value, r.ok) for r in init.restored] == [
        ("write_cache", 1, True), ("look_ahead", 1, True), ("read_ahead", 256, True)]


def test_put_back_restores_only_what_is_asked(node, hold):
    d = node.path
    plan = plan_initialization(sata(d), standby=False)
    with expected_commands(sata_restore(d, upto=1)) as runner:  # -a256, then read back; nothing else
        init = put_back(plan, {"read_ahead": 256}, runner=runner, hold=hold)
    record = init.record()
    assert record["state"] == "restored" and record["applied"] == []
    assert [(r["key"], r["value"], r["ok"]) for r in record["restored"]] == [("read_ahead", 256, True)]

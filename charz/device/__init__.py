"""The drive under test: identify it, guard it, initialize it, put it back.

Catalogue
=========

Running tools (``_runner``)
    Runner                 protocol: run an argument list, return a CommandResult
    SubprocessRunner       the real one (``shell=False``, ``LC_ALL=C``)
    CommandResult          argv, returncode, stdout, stderr
    run_tool               run + turn every failure into DeviceCommandFailed
    TOOL_PACKAGES          tool → Debian package (named in "not installed" hints)
    (``charz.device.testing`` has ReplayRunner, RecordingRunner and make_fake_sysfs for tests.)

Identify (``_identify`` and the pure parsers)
    identify               lsblk + sysfs + hdparm -I / nvme id-ctrl, id-ns + smartctl
    DriveIdentity          path, kernel name, maj:min, model, serial, firmware, size,
                           transport, rotational, sectors, queue limits, raw sources
    QueueLimits            /sys/block/X/queue (``_sysfs``; read_queue_limits reads it)
    node_for_devnum, partitions, partition_start_bytes   the disk and partitions behind a name
    parse_lsblk            ``lsblk -J -b -O``                          (``_lsblk``)
    parse_identify         ``hdparm -I``; parse_flag, parse_power_mode (``_hdparm``)
    parse_id_ctrl, parse_id_ns, parse_get_feature   nvme-cli           (``_nvme``)
    parse_smartctl         ``smartctl -j -i -A``                       (``_smartctl``)
    read_counters, counters_from_texts, counter_wa, CounterSet, CounterWa
                           the drive's own write counters and their WA   (``_wa_counters``)
    parse_mountinfo, parse_swaps      /proc                            (``_mounts``)
    parse_wipefs, parse_blkid_export  signatures                       (``_signatures``)

Guard (``_guard``)
    inspect_target         every check, all reasons collected, never raises for a refusal
    check_target           the same, raising UnsafeTarget listing every reason
    hold_exclusive         O_RDWR|O_EXCL claim held for the session (context manager)
    claim_target           check, claim, check again: yields the checked hold writers require
    TargetReport, ExclusiveHold

Confirm (``_confirm``)
    confirmation_for       the text to show and the serial to type back
    check_confirmation     raise ConfirmationRequired unless it matches

Initialize (``_plan``, ``_initialize``, ``_erase``)
    plan_initialization    003 Table 3 as data: Setting / EraseStep / InitPlan
    initialize             apply, read back, compare; restore on exit (also on Ctrl-C)
    Initialization         the context manager, with ``record()`` for the archive
    not_restored           what earlier records changed and never put back (kill -9, power loss)
    put_back               restore only those values (``charz restore DIR``)

A session goes::

    with claim_target(path, output_dir=out, runner=runner) as hold:
        ident = identify(hold.path, runner=runner)
        plan = plan_initialization(ident, erase="discard")
        with initialize(plan, runner=runner, hold=hold, confirm_serial=typed) as init:
            ...captures...
"""

from charz.device._confirm import Confirmation, check_confirmation, confirmation_for
from charz.device._erase import EraseOutcome, run_erase
from charz.device._guard import (
    ExclusiveHold,
    TargetReport,
    check_target,
    claim_target,
    hold_exclusive,
    inspect_target,
)
from charz.device._hdparm import AtaIdentity, AtaSecurity, parse_flag, parse_identify, parse_power_mode
from charz.device._identify import DriveIdentity, NvmeInfo, Transport, classify_transport, identify
from charz.device._initialize import (
    AppliedSetting,
    Initialization,
    RestoredSetting,
    SkippedSetting,
    initialize,
    not_restored,
    put_back,
)
from charz.device._lsblk import LsblkDevice, parse_lsblk
from charz.device._mounts import MountEntry, parse_mountinfo, parse_swaps
from charz.device._nvme import NvmeController, NvmeNamespace, parse_get_feature, parse_id_ctrl, parse_id_ns
from charz.device._plan import ERASE_METHODS, EraseMethod, EraseStep, InitPlan, Setting, plan_initialization
from charz.device._runner import TOOL_PACKAGES, CommandResult, Runner, SubprocessRunner, run_tool
from charz.device._signatures import Signature, parse_blkid_export, parse_wipefs
from charz.device._smartctl import SmartAttribute, SmartInfo, parse_smartctl
from charz.device._wa_counters import CounterSet, CounterWa, counter_wa, counters_from_texts, read_counters
from charz.device._sysfs import (
    SYSFS_ROOT,
    BlockNode,
    QueueLimits,
    node_for_devnum,
    parse_queue_limits,
    parse_scheduler,
    partition_start_bytes,
    partitions,
    read_queue_limits,
)
from charz.device._lsblk import lsblk_argv

__all__ = [
    "SYSFS_ROOT",
    "AppliedSetting",
    "BlockNode",
    "AtaIdentity",
    "AtaSecurity",
    "CommandResult",
    "Confirmation",
    "DriveIdentity",
    "ERASE_METHODS",
    "EraseMethod",
    "EraseOutcome",
    "EraseStep",
    "ExclusiveHold",
    "InitPlan",
    "Initialization",
    "LsblkDevice",
    "MountEntry",
    "NvmeController",
    "NvmeInfo",
    "NvmeNamespace",
    "QueueLimits",
    "RestoredSetting",
    "Runner",
    "Setting",
    "Signature",
    "SkippedSetting",
    "SmartAttribute",
    "SmartInfo",
    "SubprocessRunner",
    "TOOL_PACKAGES",
    "TargetReport",
    "Transport",
    "check_confirmation",
    "check_target",
    "claim_target",
    "classify_transport",
    "confirmation_for",
    "hold_exclusive",
    "identify",
    "initialize",
    "not_restored",
    "put_back",
    "inspect_target",
    "parse_blkid_export",
    "parse_flag",
    "parse_get_feature",
    "parse_id_ctrl",
    "parse_id_ns",
    "parse_identify",
    "parse_lsblk",
    "parse_mountinfo",
    "parse_power_mode",
    "parse_queue_limits",
    "parse_scheduler",
    "parse_smartctl",
    "partition_start_bytes",
    "partitions",
    "node_for_devnum",
    "read_queue_limits",
    "parse_swaps",
    "parse_wipefs",
    "plan_initialization",
    "run_erase",
    "run_tool",
    "CounterSet",
    "CounterWa",
    "counter_wa",
    "counters_from_texts",
    "read_counters",
    "lsblk_argv",
]

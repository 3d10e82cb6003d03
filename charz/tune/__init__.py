"""Tune: a profile → commands for file systems, RAID and partitioning, each number with its source.

charz tune *prints* commands; nothing here runs a tool or writes to a device.  The only
I/O is reading sysfs queue limits (read-only, through :mod:`charz.device`).

Catalogue
=========

Advise (``_advise``, ``_report``)
    advise            profile + target → Advice (pure)
    build_report      Advice for one target or "all", plus the shared basis and limits
    TARGETS           ext4, xfs, zfs, btrfs, mdadm, lvm, partition
    TuneReport        the whole answer; ``to_dict()`` is ``charz tune --json``

Records (``_model``)
    Advice            commands, kernel_default, disagreements, notes, warnings
    Command           argv tuple (never a shell line), options, stdin, display
    Option            value, unit, one-line reason citing its Source(s)
    Source            a profile key with confidence, a queue limit, an option or a tool default
    KernelDefault     what the tool picks alone from the queue limits

Basis (``_basis``)    unit | page | fallback | none — the one decision every target shares
    decide_basis, Basis

Kernel limits (``_limits``)
    read_limits       /sys/block/<disk>/queue for a device name (read-only)
    with_overrides    --min-io / --opt-io
    compare_limits    where the kernel and the profile disagree
    KernelLimits

Text (``_format``)
    format_advice     one target
    format_report     the whole answer

One module per target, its rules and sources in its docstring:
``_ext4``, ``_xfs``, ``_zfs``, ``_btrfs``, ``_mdadm``, ``_lvm``, ``_partition``.

Example
-------
>>> from charz.tune.testing import preset_profile
>>> advise(preset_profile("mxp"), fs="xfs", limits=None).commands[0].display
'mkfs.xfs -b size=4096 -d su=32k,sw=4 DEV'
"""

from charz.tune._advise import TARGETS, advise
from charz.tune._basis import Basis, decide_basis
from charz.tune._format import format_advice, format_report
from charz.tune._limits import KernelLimits, compare_limits, read_limits, with_overrides
from charz.tune._model import Advice, Command, KernelDefault, Option, Source
from charz.tune._report import TUNE_SCHEMA_ID, TuneReport, build_report

__all__ = [
    "TARGETS", "TUNE_SCHEMA_ID", "Advice", "Basis", "Command", "KernelDefault", "KernelLimits", "Option", "Source",
    "TuneReport", "advise", "build_report", "compare_limits", "decide_basis", "format_advice",
    "format_report", "read_limits", "with_overrides",
]

"""The initialization of 003 Table 3 as data: which settings, how to read, set and
restore each, and whether this device supports it.

:func:`plan_initialization` is pure (an identity in, an :class:`InitPlan` out), so
the plan for a SATA drive, an NVMe drive or a loop device can be printed and
tested without one.  :mod:`charz.device._initialize` carries it out.

===================  ==========================  ==============================  =========
setting              SATA (hdparm)               NVMe (nvme-cli)                 others
===================  ==========================  ==============================  =========
read-ahead → 0       ``hdparm -a0``              ``blockdev --setra 0``          blockdev
look-ahead → 0       ``hdparm -A0``              (no such control)               —
write cache → off    ``hdparm -W0``              ``set-feature -f 0x06``         — (warn)
APST                 —                           read and recorded               —
standby              ``hdparm -y``               (no STANDBY IMMEDIATE)          —
erase (on request)   security erase / discard    ``format --ses=1`` / discard    discard
===================  ==========================  ==============================  =========
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from charz.device._hdparm import parse_flag, parse_power_mode
from charz.device._identify import DriveIdentity
from charz.device._nvme import FEATURE_APST, FEATURE_VOLATILE_WRITE_CACHE, parse_get_feature
from charz.device._values import as_int
from charz.errors import UsageError

EraseMethod = Literal["discard", "secure-erase", "enhanced-secure-erase", "format"]
ERASE_METHODS: tuple[str, ...] = ("discard", "secure-erase", "enhanced-secure-erase", "format")

#: The password set for an ATA security erase; a successful erase clears it again.
ATA_ERASE_PASSWORD = "charz"

FROZEN_HINT = (
    "the BIOS froze ATA security at boot. Suspend and resume the machine "
    "(rtcwake -m mem -s 5, or echo mem > /sys/power/state), or hot-unplug and replug the "
    "drive's SATA power with AHCI enabled, then retry; re-read 'hdparm -I' afterwards, "
    "it must say 'not frozen'. Some machines stay frozen: use discard instead"
)


@dataclass(frozen=True)
class Setting:
    """One drive setting: how to read it, set it and put it back.

    ``set_argv`` holds ``{value}`` where the value goes.  A setting with an empty
    ``set_argv`` is only read and recorded (e.g. NVMe APST).  ``restore=False``
    marks an action whose effect cannot be undone by a command (standby: the drive
    wakes on the next I/O).
    """

    key: str
    label: str
    supported: bool
    reason: str = ""
    read_argv: tuple[str, ...] = ()
    set_argv: tuple[str, ...] = ()
    target: int | str | None = None
    parse: Callable[[str], int | str] | None = field(default=None, compare=False, repr=False)
    restore: bool = True
    #: recorded when the setting is unsupported and that weakens the measurement.
    warning: str = ""

    def render_set(self, value: int | str) -> tuple[str, ...]:
        """``set_argv`` with the value filled in.

        >>> Setting("write_cache", "", True, set_argv=("hdparm", "-W{value}", "/dev/sda")).render_set(0)
        ('hdparm', '-W0', '/dev/sda')
        """
        return tuple(arg.replace("{value}", str(value)) for arg in self.set_argv)

    def describe(self) -> str:
        if not self.supported:
            return f"{self.label}: not supported on this device: {self.reason}"
        if not self.set_argv:
            return f"{self.label}: read and recorded ({' '.join(self.read_argv)})"
        # Future tense: this is shown before the confirmation, when nothing has changed yet.
        return f"{self.label}: to be set to {self.target} ({' '.join(self.render_set(self.target))})"


@dataclass(frozen=True)
class EraseStep:
    """The destructive part, run only when asked and confirmed."""

    method: EraseMethod
    supported: bool
    reason: str = ""
    #: the commands, in order.
    commands: tuple[tuple[str, ...], ...] = ()
    timeout_s: float = 600.0
    #: the hint to give when ``supported`` is False.
    hint: str = ""

    def describe(self) -> str:
        if not self.supported:
            return f"erase ({self.method}): not possible on this device: {self.reason}"
        return f"erase ({self.method}), to be run: " + "; ".join(" ".join(c) for c in self.commands)


@dataclass(frozen=True)
class InitPlan:
    """Everything initialization will do to one drive, in order: erase, then settings."""

    identity: DriveIdentity = field(repr=False)
    erase: EraseStep | None
    settings: tuple[Setting, ...]

    @property
    def device(self) -> str:
        return self.identity.path

    @property
    def warnings(self) -> tuple[str, ...]:
        """What will not be done and matters for the measurement (goes into the archive)."""
        return tuple(s.warning for s in self.settings if not s.supported and s.warning)

    def describe(self) -> str:
        lines = [f"initialization of {self.device} ({self.identity.transport}), once confirmed "
                 "(nothing is changed before):"]
        if self.erase is not None:
            lines.append("  " + self.erase.describe())
        lines += ["  " + s.describe() for s in self.settings]
        lines += ["  warning: " + w for w in self.warnings]
        return "\n".join(lines)


def _arg_erase(erase: str | None) -> EraseMethod | None:
    if erase is not None and erase not in ERASE_METHODS:
        raise UsageError(f"unknown erase method {erase!r}; choose one of {', '.join(ERASE_METHODS)}")
    return erase


def plan_initialization(
    identity: DriveIdentity,
    *,
    erase: EraseMethod | None = None,
    standby: bool = True,
) -> InitPlan:
    """Plan the initialization of the drive ``identity`` describes.

    Parameters
    ----------
    identity : DriveIdentity
    erase : {"discard", "secure-erase", "enhanced-secure-erase", "format"}, optional
        Erase the drive first (each needs the serial confirmed when it runs).
    standby : bool
        End with STANDBY IMMEDIATE (``hdparm -y``) as 003 §5.1.2 does, which
        removes idle peaks from the first capture.

    Returns
    -------
    InitPlan

    Examples
    --------
    >>> plan = plan_initialization(loop_identity, erase="discard")        # doctest: +SKIP
    >>> print(plan.describe())                                              # doctest: +SKIP
    initialization of /dev/loop3 (loop), once confirmed (nothing is changed before):
      erase (discard): blkdiscard --force /dev/loop3
      read-ahead: to be set to 0 (blockdev --setra 0 /dev/loop3)
      drive look-ahead: not supported on this device: a loop device has no drive firmware ...
      drive write cache: not supported on this device: ...
      ...
    """
    erase = _arg_erase(erase)
    if identity.transport in ("sata", "usb"):
        settings = _ata_settings(identity, standby)
    elif identity.transport == "nvme":
        settings = _nvme_settings(identity, standby)
    else:
        settings = _plain_settings(identity, standby)
    return InitPlan(identity, _erase_step(identity, erase) if erase else None, settings)


# -- settings -------------------------------------------------------------------------

def _read_ahead_blockdev(dev: str) -> Setting:
    # blockdev --setra and hdparm -a are the same BLKRASET ioctl; blockdev needs no
    # ATA and ships with util-linux.  It only affects buffered reads, not O_DIRECT.
    return Setting(
        key="read_ahead",
        label="read-ahead",
        supported=True,
        read_argv=("blockdev", "--getra", dev),
        set_argv=("blockdev", "--setra", "{value}", dev),
        target=0,
        parse=_parse_blockdev_ra,
    )


def _parse_blockdev_ra(text: str) -> int:
    return as_int(text.strip(), "blockdev --getra")


def _ata_settings(identity: DriveIdentity, standby: bool) -> tuple[Setting, ...]:
    dev = identity.path
    ata = identity.ata
    if ata is None:
        why = "the USB bridge does not pass ATA commands through (hdparm -I gave no IDENTIFY data)"
        return (
            _read_ahead_blockdev(dev),
            Setting("look_ahead", "drive look-ahead", False, why),
            Setting("write_cache", "drive write cache", False, why, warning=_cache_warning(why)),
            Setting("standby", "standby", False, why),
        )
    settings = [
        Setting(
            key="read_ahead",
            label="read-ahead",
            supported=True,
            read_argv=("hdparm", "-a", dev),
            set_argv=("hdparm", "-a{value}", dev),
            target=0,
            parse=lambda text: parse_flag(text, "readahead"),
        ),
        _ata_flag(ata.feature("Look-ahead"), "look_ahead", "drive look-ahead", "-A", "look-ahead", dev),
        _ata_flag(ata.feature("Write cache"), "write_cache", "drive write cache", "-W", "write-caching", dev),
    ]
    if standby:
        settings.append(Setting(
            key="standby",
            label="standby",
            supported=True,
            read_argv=("hdparm", "-C", dev),
            set_argv=("hdparm", "-y", dev),
            target="standby",
            parse=parse_power_mode,
            restore=False,
        ))
    return tuple(settings)


def _ata_flag(state: bool | None, key: str, label: str, flag: str, reply_key: str, dev: str) -> Setting:
    if state is None:
        why = f"IDENTIFY DEVICE does not list '{label.removeprefix('drive ')}' as supported"
        warning = _cache_warning(why) if key == "write_cache" else ""
        return Setting(key, label, False, why, warning=warning)
    return Setting(
        key=key,
        label=label,
        supported=True,
        read_argv=("hdparm", flag, dev),
        set_argv=("hdparm", f"{flag}{{value}}", dev),
        target=0,
        parse=lambda text: parse_flag(text, reply_key),
    )


def _cache_warning(why: str) -> str:
    return (f"the drive write cache was not disabled: {why}. Writes may land in a cache, and the "
            "captures may then show the cache instead of the flash (003 §5.1.2)")


def _nvme_settings(identity: DriveIdentity, standby: bool) -> tuple[Setting, ...]:
    dev = identity.path
    nvme = identity.nvme
    settings = [
        _read_ahead_blockdev(dev),
        Setting("look_ahead", "drive look-ahead", False,
                "NVMe has no read look-ahead control (it is an ATA feature)"),
    ]
    if nvme is None:
        why = "Identify Controller was not read"
        settings.append(Setting("write_cache", "volatile write cache", False, why, warning=_cache_warning(why)))
    elif nvme.controller.volatile_write_cache_present:
        settings.append(Setting(
            key="write_cache",
            label="volatile write cache (feature 0x06)",
            supported=True,
            read_argv=("nvme", "get-feature", dev, "-f", "0x06"),
            # --value, not -v: -v means --verbose in nvme-cli 2.x and the set is silently
            # skipped (nvme-cli#2209, #2465)
            set_argv=("nvme", "set-feature", dev, "-f", "0x06", "--value={value}"),
            target=0,
            parse=lambda text: parse_get_feature(text, FEATURE_VOLATILE_WRITE_CACHE) & 0x1,
        ))
    else:
        settings.append(Setting("write_cache", "volatile write cache (feature 0x06)", False,
                                "the controller reports no volatile write cache (VWC bit 0 is 0): "
                                "nothing to disable"))
    if nvme is not None and nvme.controller.apst_supported:
        settings.append(Setting(
            key="apst",
            label="autonomous power state transitions (feature 0x0c)",
            supported=True,
            read_argv=("nvme", "get-feature", dev, "-f", "0x0c"),
            parse=lambda text: parse_get_feature(text, FEATURE_APST) & 0x1,
            restore=False,
        ))
    else:
        settings.append(Setting("apst", "autonomous power state transitions", False,
                                "the controller does not support APST"))
    if standby:
        settings.append(Setting("standby", "standby", False,
                                "NVMe has no STANDBY IMMEDIATE; idle power is managed by APST "
                                "and feature 0x02"))
    return tuple(settings)


def _plain_settings(identity: DriveIdentity, standby: bool) -> tuple[Setting, ...]:
    dev = identity.path
    kind = identity.transport
    why = (f"a {kind} device has no drive firmware to configure" if kind in ("loop", "virtio")
           else "charz sends ATA/NVMe commands only to SATA, USB-bridged and NVMe drives")
    cache_why = why
    if kind == "loop":
        cache_why += ("; it also writes through the page cache of its backing file unless "
                      "attached with losetup --direct-io=on")
    settings = [
        _read_ahead_blockdev(dev),
        Setting("look_ahead", "drive look-ahead", False, why),
        Setting("write_cache", "drive write cache", False, cache_why, warning=_cache_warning(cache_why)),
    ]
    if standby:
        settings.append(Setting("standby", "standby", False, why))
    return tuple(settings)


# -- erase ----------------------------------------------------------------------------

def _erase_step(identity: DriveIdentity, method: EraseMethod) -> EraseStep:
    if method == "discard":
        return _discard_step(identity)
    if method in ("secure-erase", "enhanced-secure-erase"):
        return _ata_erase_step(identity, enhanced=method == "enhanced-secure-erase")
    return _nvme_format_step(identity)


def _discard_step(identity: DriveIdentity) -> EraseStep:
    if not identity.queue.supports_discard:
        return EraseStep("discard", False,
                         "the device does not support discard (queue/discard_max_bytes is 0)",
                         hint="use secure-erase (SATA) or format (NVMe), or skip the erase")
    # --force: charz holds the device O_EXCL itself, and blkdiscard >= 2.36 would
    # otherwise get EBUSY trying to claim it too
    return EraseStep("discard", True, commands=(("blkdiscard", "--force", identity.path),),
                     timeout_s=max(600.0, identity.size_bytes / 200e6))


def _ata_erase_step(identity: DriveIdentity, *, enhanced: bool) -> EraseStep:
    method: EraseMethod = "enhanced-secure-erase" if enhanced else "secure-erase"
    if identity.transport == "usb":
        return EraseStep(method, False, "ATA security erase is never sent through a USB bridge "
                         "(bridges mangle the pass-through; bricked drives are reported)",
                         hint="connect the drive to a SATA port, or use discard")
    if identity.transport != "sata" or identity.ata is None:
        return EraseStep(method, False, f"ATA security erase needs a SATA drive; this is {identity.transport}",
                         hint="use 'format' for NVMe, 'discard' for others")
    sec = identity.ata.security
    problems = []
    hint = "use discard instead"
    if sec is None or not sec.supported:
        problems.append("the drive does not support the ATA Security feature set")
    else:
        if sec.frozen:
            problems.append("ATA security is frozen")
            hint = FROZEN_HINT
        if sec.enabled or sec.locked:
            problems.append("a security password is already set (security enabled/locked)")
            hint = "unlock/disable it with the owner's password (hdparm --security-disable) first"
        if sec.count_expired:
            problems.append("the security attempt counter expired; power-cycle the drive")
        if enhanced and not sec.enhanced_erase_supported:
            problems.append("the drive does not support enhanced erase")
    if problems:
        return EraseStep(method, False, "; ".join(problems), hint=hint)
    minutes = (sec.enhanced_erase_time_min if enhanced else sec.erase_time_min) or 120
    erase_flag = "--security-erase-enhanced" if enhanced else "--security-erase"
    dev = identity.path
    return EraseStep(
        method,
        True,
        commands=(
            ("hdparm", "--user-master", "u", "--security-set-pass", ATA_ERASE_PASSWORD, dev),
            ("hdparm", "--user-master", "u", erase_flag, ATA_ERASE_PASSWORD, dev),
        ),
        # the drive's own estimate, doubled, plus slack: killing hdparm does not stop the erase
        timeout_s=minutes * 60 * 2 + 300,
    )


def _nvme_format_step(identity: DriveIdentity) -> EraseStep:
    if identity.transport != "nvme" or identity.nvme is None:
        return EraseStep("format", False, f"nvme format needs an NVMe namespace; this is {identity.transport}",
                         hint="use secure-erase (SATA) or discard")
    nvme = identity.nvme
    problems = []
    if not nvme.controller.format_supported:
        problems.append("the controller does not support Format NVM (OACS bit 1 is 0)")
    if nvme.nsid is None:
        problems.append("the namespace id is unknown (no /sys/block/<dev>/nsid)")
    if nvme.sibling_namespaces and (nvme.controller.secure_erase_applies_to_all_namespaces
                                    or nvme.controller.format_applies_to_all_namespaces):
        problems.append(
            "on this controller a format/secure erase applies to ALL namespaces (FNA), and it has "
            f"others: {', '.join(nvme.sibling_namespaces)} (nvme-cli#501)"
        )
    if problems:
        return EraseStep("format", False, "; ".join(problems), hint="use discard instead")
    dev = identity.path
    return EraseStep(
        "format",
        True,
        commands=((
            "nvme", "format", dev,
            f"--namespace-id={nvme.nsid}",
            f"--lbaf={nvme.namespace.lba_format_index}",
            "--ses=1",
            "--force",
        ),),
        timeout_s=3600.0,
    )

"""Carrying out an :class:`~charz.device._plan.EraseStep`, with the checks that
must be made *at that moment*, not from data read earlier.

ATA security state is re-read right before the erase: a cached "not frozen" can
be stale after a suspend/resume (udisks#801), and a password left set by a failed
erase must be reported with the command that clears it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from charz.device._hdparm import parse_identify
from charz.device._identify import DriveIdentity
from charz.device._nvme import parse_id_ns
from charz.device._plan import ATA_ERASE_PASSWORD, FROZEN_HINT, EraseStep
from charz.device._runner import Runner, run_tool
from charz.errors import DeviceCommandFailed, DeviceError


@dataclass(frozen=True)
class EraseOutcome:
    """What an erase did, for the archive."""

    method: str
    commands: tuple[tuple[str, ...], ...]
    duration_s: float
    #: how the result was checked, or why it cannot be.
    verification: str


def run_erase(step: EraseStep, identity: DriveIdentity, *, runner: Runner) -> EraseOutcome:
    """Run ``step`` on the drive.  The caller has confirmed it and holds the guard.

    Raises
    ------
    DeviceCommandFailed
        The step is not possible on this drive (with the plan's hint), a check
        made just before it fails (e.g. ATA security frozen), or a command fails.
    """
    if not step.supported:
        raise DeviceCommandFailed(f"cannot erase {identity.path} ({step.method}): {step.reason}",
                                  hint=step.hint or None)
    t0 = time.monotonic()
    if step.method == "discard":
        run_tool(runner, step.commands[0], timeout_s=step.timeout_s, what="discard the whole device")
        verification = "not verifiable: a discard is a hint the drive may act on later"
    elif step.method in ("secure-erase", "enhanced-secure-erase"):
        verification = _ata_erase(step, identity, runner)
    else:
        verification = _nvme_format(step, identity, runner)
    return EraseOutcome(step.method, step.commands, time.monotonic() - t0, verification)


def _ata_security(identity: DriveIdentity, runner: Runner):
    text = run_tool(runner, ("hdparm", "-I", identity.path), what="re-read ATA security state").stdout
    security = parse_identify(text).security
    if security is None:
        raise DeviceCommandFailed(f"{identity.path}: hdparm -I shows no Security section")
    return security


def _ata_erase(step: EraseStep, identity: DriveIdentity, runner: Runner) -> str:
    security = _ata_security(identity, runner)
    if security.frozen:
        raise DeviceCommandFailed(f"{identity.path}: ATA security is frozen; the drive refuses SECURITY ERASE",
                                  hint=FROZEN_HINT, code="frozen")
    if security.enabled or security.locked:
        raise DeviceCommandFailed(f"{identity.path}: a security password is already set",
                                  hint="disable it with the owner's password first (hdparm --security-disable)")
    set_pass, erase = step.commands
    run_tool(runner, set_pass, what="set the ATA security password")
    try:
        run_tool(runner, erase, timeout_s=step.timeout_s, what="run ATA SECURITY ERASE UNIT")
    except DeviceCommandFailed as exc:
        raise DeviceCommandFailed(
            f"{exc.message}\nThe drive may now be locked with the password {ATA_ERASE_PASSWORD!r}.",
            hint=f"unlock it: hdparm --user-master u --security-disable {ATA_ERASE_PASSWORD} {identity.path}",
            code=exc.code,
        ) from exc
    after = _ata_security(identity, runner)
    if after.enabled or after.locked:
        raise DeviceCommandFailed(
            f"{identity.path}: security is still enabled after the erase",
            hint=f"hdparm --user-master u --security-disable {ATA_ERASE_PASSWORD} {identity.path}",
        )
    return "hdparm -I after the erase: security not enabled, not locked (the drive cleared the password)"


def _nvme_format(step: EraseStep, identity: DriveIdentity, runner: Runner) -> str:
    run_tool(runner, step.commands[0], timeout_s=step.timeout_s, what="format the NVMe namespace")
    try:
        ns = parse_id_ns(run_tool(runner, ("nvme", "id-ns", identity.path, "-o", "json"),
                                  what="re-read the namespace").stdout)
    except DeviceError as exc:
        return f"namespace not re-read after the format: {exc.message}"
    return f"id-ns after the format: {ns.utilization_blocks} blocks in use of {ns.capacity_blocks}"

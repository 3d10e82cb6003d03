"""The gate before destroying data: show the drive, require its serial typed back.

Pure functions: the CLI prints :attr:`Confirmation.text` and asks for the serial
(its prompt says what to type); scripts pass ``--confirm-serial`` instead, and are
then asked nothing.  A device without a serial (loop, virtio) is confirmed with its
kernel name.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from typing import TYPE_CHECKING

from charz.device._identify import DriveIdentity
from charz.errors import ConfirmationRequired

if TYPE_CHECKING:
    from charz.device._guard import TargetReport


@dataclass(frozen=True)
class Confirmation:
    """What to show before a destructive step and what must be typed back."""

    action: str
    text: str
    expected: str
    #: "serial number" or "device name", for the prompt.
    token_name: str
    path: str = "the drive"

    def confirmed_line(self, option: str = "--confirm-serial") -> str:
        """What a log says when a script confirmed (nothing is asked then)."""
        return f"confirmed by {option}: {self.expected} is the {self.token_name} of {self.path}"

    def check(self, typed: str | None) -> None:
        """Raise :class:`ConfirmationRequired` unless ``typed`` matches exactly.

        Surrounding blanks are ignored; case is not (serials are case-sensitive
        identifiers and a near miss is exactly what this gate must stop).
        """
        if typed is None:
            raise ConfirmationRequired(
                f"{self.path} needs confirmation, and there is no terminal to ask it at; nothing was "
                f"written\n{self.text}",
                hint=f"type the {self.token_name} at the prompt, or pass --confirm-serial "
                     f"{shlex.quote(self.expected)} in scripts",
            )
        if typed.strip() != self.expected:
            raise ConfirmationRequired(
                f"not confirmed: {typed.strip()!r} is not the {self.token_name} of {self.path}",
                hint=f"the {self.token_name} is shown in the confirmation text; nothing was changed",
            )


def _format_size(size_bytes: int) -> str:
    return f"{size_bytes:,} bytes ({size_bytes / 1e9:.1f} GB, {size_bytes / 2**30:.1f} GiB)"


def confirmation_for(identity: DriveIdentity, action: str, report: TargetReport | None = None) -> Confirmation:
    """Build the confirmation for ``action`` on ``identity``.

    ``report`` (the guard's, made under the claim) adds what is on the drive now:
    partitions and signatures that will be gone, and the guard's notes.

    Examples
    --------
    >>> from charz.device._sysfs import parse_queue_limits
    >>> q = parse_queue_limits({"logical_block_size": "512", "physical_block_size": "512",
    ...     "minimum_io_size": "512", "max_sectors_kb": "1280"})
    >>> ident = DriveIdentity("/dev/sdb", "sdb", 8, 16, "CHARZ SSD", "CZ42", "1.0", 128_035_676_160,
    ...                       "sata", False, 512, 512, q)
    >>> c = confirmation_for(ident, "secure-erase")
    >>> print(c.text)
    secure-erase /dev/sdb: ALL DATA ON IT WILL BE LOST
      model:  CHARZ SSD
      serial: CZ42
      size:   128,035,676,160 bytes (128.0 GB, 119.2 GiB)
    >>> c.check("CZ42")
    >>> c.confirmed_line()
    'confirmed by --confirm-serial: CZ42 is the serial number of /dev/sdb'

    The text names what goes (``action``) and the drive; it does not ask to type anything:
    the prompt does, and a script that passed ``--confirm-serial`` is asked nothing.

    With the guard's findings (a signature accepted with ``allow_signatures``):

    >>> from charz.device._guard import TargetReport
    >>> from charz.device._signatures import Signature
    >>> r = TargetReport("/dev/sdb", "/dev/sdb", "sdb", 8, 16, partitions=("sdb1",),
    ...                  signatures=(Signature("gpt", 512), Signature("ext4", 1080, "data")))
    >>> for line in confirmation_for(ident, "secure-erase", r).text.splitlines()[4:6]:
    ...     print(line)
      partitions: sdb1 (and everything in them)
      signatures: gpt at byte 512; ext4 (label data) at byte 1080
    """
    if identity.serial:
        expected, token_name = identity.serial, "serial number"
    else:
        expected, token_name = identity.kernel_name, "device name"
    lines = [
        f"{action} {identity.path}: ALL DATA ON IT WILL BE LOST",
        f"  model:  {identity.model or '(none reported)'}",
        f"  serial: {identity.serial or '(none: this ' + identity.transport + ' device has no serial)'}",
        f"  size:   {_format_size(identity.size_bytes)}",
    ]
    if report is not None:
        if report.partitions:
            lines.append(f"  partitions: {', '.join(report.partitions)} (and everything in them)")
        if report.signatures:
            lines.append(f"  signatures: {'; '.join(sig.describe() for sig in report.signatures)}")
        lines += [f"  note: {note}" for note in report.notes]
    return Confirmation(action=action, text="\n".join(lines), expected=expected, token_name=token_name,
                        path=identity.path)


def check_confirmation(identity: DriveIdentity, typed: str | None, action: str) -> None:
    """Raise :class:`ConfirmationRequired` unless ``typed`` is the drive's serial."""
    confirmation_for(identity, action).check(typed)

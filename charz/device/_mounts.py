"""Parse ``/proc/self/mountinfo`` and ``/proc/swaps`` (proc(5)).

Both escape blanks and backslashes in paths as octal (``\\040`` for a space);
they are unescaped here so the paths compare equal to ``os.path.realpath``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from charz.errors import DeviceError

_OCTAL = re.compile(r"\\([0-7]{3})")


def unescape(text: str) -> str:
    r"""Undo the kernel's octal escapes.

    >>> unescape(r"/mnt/my\040disk")
    '/mnt/my disk'
    """
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), text)


@dataclass(frozen=True)
class MountEntry:
    """One line of mountinfo."""

    mount_id: int
    major: int
    minor: int
    root: str
    mountpoint: str
    fstype: str
    source: str

    @property
    def maj_min(self) -> str:
        return f"{self.major}:{self.minor}"


def parse_mountinfo(text: str) -> tuple[MountEntry, ...]:
    """Parse ``/proc/self/mountinfo``.

    Field 3 is the device number *as the file system reports it*: the block
    device for ext4/xfs, but an anonymous ``0:NN`` for btrfs; the mount source
    after the ``-`` separator is kept so callers can check both.

    Examples
    --------
    >>> e, = parse_mountinfo("36 27 7:0 / /tmp/a\\\\040b rw,relatime shared:1 - ext4 /dev/loop0 rw\\n")
    >>> e.maj_min, e.mountpoint, e.fstype, e.source
    ('7:0', '/tmp/a b', 'ext4', '/dev/loop0')
    """
    entries = []
    # only " \t\n\\" are escaped, so any other character (even \r or \f) can be part
    # of a path: split on the exact separators, never on "any whitespace"
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        fields = line.split(" ")
        try:
            sep = fields.index("-", 6)
            major, minor = fields[2].split(":")
            entries.append(MountEntry(
                mount_id=int(fields[0]),
                major=int(major),
                minor=int(minor),
                root=unescape(fields[3]),
                mountpoint=unescape(fields[4]),
                fstype=fields[sep + 1],
                source=unescape(fields[sep + 2]) if len(fields) > sep + 2 else "",
            ))
        except (ValueError, IndexError) as exc:
            raise DeviceError(f"mountinfo line {lineno} is malformed: {line!r}") from exc
    return tuple(entries)


def parse_swaps(text: str) -> tuple[str, ...]:
    """The file names in ``/proc/swaps`` (devices or swap files).

    >>> parse_swaps("Filename\\tType\\tSize\\tUsed\\tPriority\\n/dev/loop3 partition 65532 0 -2\\n")
    ('/dev/loop3',)
    """
    lines = [line for line in text.split("\n") if line]
    if not lines:
        return ()
    if not lines[0].startswith("Filename"):
        raise DeviceError(f"/proc/swaps has no header line: {lines[0]!r}")
    names = []
    for line in lines[1:]:
        names.append(unescape(re.split(r"[ \t]", line, maxsplit=1)[0]))
    return tuple(names)

"""What ``charz tune`` hands back: frozen records, each number tied to where it came from.

::

    Advice                  one target (ext4, xfs, ...): what to run, why, and what the tool would do alone
    ├── commands: Command   an argv tuple (never a shell string), its options, optional stdin
    │   └── options: Option value + unit + a one-line reason naming its Source(s)
    ├── kernel_default      KernelDefault: what the tool picks from the queue limits when left alone
    ├── disagreements       where the kernel's limits and charz's measurement part ways
    └── notes, warnings     context and caveats, one sentence each

A :class:`Source` is a profile key with its confidence (``results.write_io_unit_bytes``,
high), a kernel queue limit (``queue/optimal_io_size``), a charz option
(``--block-size``) or a tool's documented default.  Nothing the user sees is a bare number.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from charz.tune._sizes import human

#: Placeholders a command may contain; a script substitutes them before running anything.
PLACEHOLDERS = {
    "DEV": "the block device (give --device to fill it in)",
    "POOL": "the ZFS pool name",
    "MD": "the md device to create, e.g. /dev/md0",
    "LEVEL": "the RAID level (0, 5, 6, 10)",
    "N": "the number of member devices",
    "MEMBERS...": "the member devices",
    "OTHERS...": "the other member devices",
}


@dataclass(frozen=True)
class Source:
    """Where a number came from.

    ``kind`` is ``profile`` (``confidence`` is the profile's), ``kernel`` (a queue limit,
    ``origin`` says which file or override), ``option`` (a charz option) or ``tool`` (a
    tool's documented default).

    Example
    -------
    >>> Source("results.write_io_unit_bytes", 32768, "B", "profile", "high", "inferred").cite()
    'results.write_io_unit_bytes = 32 KiB (inferred, high)'
    >>> Source("queue/optimal_io_size", 0, "B", "kernel", origin="/sys/block/sda/queue").cite()
    'queue/optimal_io_size = 0 B (/sys/block/sda/queue)'
    """

    key: str
    value: Any
    unit: str = ""
    kind: str = "profile"
    confidence: str | None = None
    origin: str = ""

    def cite(self) -> str:
        is_bytes = self.unit == "B" and isinstance(self.value, int)
        value = human(self.value) if is_bytes else f"{self.value} {self.unit}".strip()
        if self.kind == "profile":
            # a given number's confidence is "given" too: say it once
            how = ", ".join(dict.fromkeys(x for x in (self.origin, self.confidence) if x))
        else:
            how = self.origin or self.kind
        return f"{self.key} = {value} ({how})"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "unit": self.unit, "kind": self.kind,
                "confidence": self.confidence, "origin": self.origin}


@dataclass(frozen=True)
class Option:
    """One option of a command: its value, unit and a one-line reason that cites its sources.

    ``fallback`` marks a value that stands in for something the profile could not determine.

    Example
    -------
    >>> unit = Source("results.write_io_unit_bytes", 32768, "B", "profile", "high", "inferred")
    >>> o = Option.of("stride", 8, "fs blocks", "write unit / block size", unit)
    >>> o.reason
    'write unit / block size; from results.write_io_unit_bytes = 32 KiB (inferred, high)'
    """

    name: str
    value: Any
    unit: str
    reason: str
    sources: tuple[Source, ...] = ()
    fallback: bool = False

    @classmethod
    def of(cls, name: str, value: Any, unit: str, why: str, *sources: Source, fallback: bool = False) -> Option:
        cites = "; ".join(s.cite() for s in sources)
        reason = f"{'FALLBACK: ' if fallback else ''}{why}" + (f"; from {cites}" if cites else "")
        return cls(name, value, unit, reason, tuple(sources), fallback)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit, "reason": self.reason,
                "fallback": self.fallback, "sources": [s.to_dict() for s in self.sources]}


@dataclass(frozen=True)
class Command:
    """A command to run by hand: ``argv`` is a tuple of separate arguments, never a shell line.

    ``stdin`` is text the command reads (sfdisk's script); ``display`` shows it piped in.

    Example
    -------
    >>> Command(("mkfs.ext4", "-b", "4096", "DEV"), purpose="make the file system").display
    'mkfs.ext4 -b 4096 DEV'
    >>> Command(("sfdisk", "DEV"), stdin="label: gpt\\nstart=2048\\n").display
    "printf 'label: gpt\\\\nstart=2048\\\\n' | sfdisk DEV"
    """

    argv: tuple[str, ...]
    options: tuple[Option, ...] = ()
    purpose: str = ""
    stdin: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.argv, str) or not all(isinstance(a, str) for a in self.argv):
            raise TypeError(f"argv must be a sequence of str, got {self.argv!r}")
        object.__setattr__(self, "argv", tuple(self.argv))

    @property
    def display(self) -> str:
        line = shlex.join(self.argv)
        if self.stdin is None:
            return line
        return f"printf {shlex.quote(self.stdin.replace(chr(10), chr(92) + 'n'))} | {line}"

    def to_dict(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "display": self.display, "stdin": self.stdin, "purpose": self.purpose,
                "options": [o.to_dict() for o in self.options]}


@dataclass(frozen=True)
class KernelDefault:
    """What the tool would choose by itself from the queue limits (or its built-in default).

    ``known`` is False when the choice depends on limits charz was not given.
    """

    summary: str
    options: tuple[Option, ...] = ()
    known: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "known": self.known, "options": [o.to_dict() for o in self.options]}


@dataclass(frozen=True)
class Advice:
    """The advice for one target.

    ``basis`` is ``unit`` (aligned to the measured write unit), ``page`` (the unit is one
    page: the page-aligned defaults), ``fallback`` (the unit is undetermined: page alignment
    only, flagged) or ``none`` (nothing measured to align to: no command).
    """

    target: str
    basis: str
    headline: str
    commands: tuple[Command, ...] = ()
    kernel_default: KernelDefault = field(default_factory=lambda: KernelDefault("unknown", known=False))
    disagreements: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: Why the command was withdrawn: the tool or this host's kernel would refuse it (``_tool_limits``).
    refused: tuple[str, ...] = ()

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The placeholder tokens (``DEV``, ``POOL`` ...) that occur in the commands."""
        found = []
        for command in self.commands:
            for arg in command.argv:
                for token in PLACEHOLDERS:
                    if (arg == token or arg.endswith("=" + token)) and token not in found:
                        found.append(token)
        return tuple(found)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "basis": self.basis,
            "headline": self.headline,
            "commands": [c.to_dict() for c in self.commands],
            "placeholders": {p: PLACEHOLDERS[p] for p in self.placeholders},
            "kernel_default": self.kernel_default.to_dict(),
            "disagreements": list(self.disagreements),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "refused": list(self.refused),
        }

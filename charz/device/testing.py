"""Test doubles for :class:`charz.device.Runner`: replay and record command exchanges.

Shipped in the library (like httpx's ``MockTransport``) so that the session layer
and users' own tests can drive the device and workload code without a drive.
Runtime code never imports this module.

The replaying fake follows pymeasure's ``expected_protocol``: it is given the exact
argument lists it must receive, in order, each with the answer to return, and at
the end it asserts that every pair was used.

Example
-------
>>> with expected_commands([
...     (["hdparm", "-W", "/dev/sda"], (0, "\\n/dev/sda:\\n write-caching =  1 (on)\\n", "")),
... ]) as runner:
...     runner.run(["hdparm", "-W", "/dev/sda"], timeout_s=5).stdout.split()[-1]
'(on)'
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from charz.device._runner import CommandResult, Runner

__all__ = [
    "Exchange",
    "RecordingRunner",
    "ReplayRunner",
    "SSD_QUEUE",
    "expected_commands",
    "load_exchanges",
    "make_fake_sysfs",
]


@dataclass(frozen=True)
class Exchange:
    """One expected command and the answer to give.

    ``missing=True`` makes the runner behave as if the program were not installed,
    ``timeout=True`` as if it overran its time limit, and ``interrupt=True`` as if
    the user pressed Ctrl-C while it ran (``KeyboardInterrupt``).
    """

    argv: tuple[str, ...]
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    missing: bool = False
    timeout: bool = False
    interrupt: bool = False
    env: Mapping[str, str] | None = field(default=None, compare=False)

    @classmethod
    def coerce(cls, item: Exchange | tuple) -> Exchange:
        """Accept an :class:`Exchange` or a pair ``(argv, (returncode, stdout, stderr))``."""
        if isinstance(item, Exchange):
            return item
        argv, answer = item
        if isinstance(answer, str):
            answer = (0, answer, "")
        returncode, stdout, stderr = answer
        return cls(tuple(argv), returncode, stdout, stderr)

    def to_json(self) -> dict:
        out = {"argv": list(self.argv), "returncode": self.returncode,
               "stdout": self.stdout, "stderr": self.stderr}
        if self.missing:
            out["missing"] = True
        return out


class ReplayRunner:
    """A :class:`~charz.device.Runner` that replays exchanges in order.

    An unexpected command fails the test at once with both argument lists shown.
    """

    def __init__(self, exchanges: Iterable[Exchange | tuple]):
        self._exchanges = [Exchange.coerce(e) for e in exchanges]
        self._index = 0
        self.calls: list[tuple[str, ...]] = []

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        argv = tuple(argv)
        self.calls.append(argv)
        if self._index >= len(self._exchanges):
            raise AssertionError(f"unexpected command (no more expected): {argv!r}")
        expected = self._exchanges[self._index]
        if argv != expected.argv:
            raise AssertionError(
                f"command #{self._index} differs:\n  expected {expected.argv!r}\n  got      {argv!r}"
            )
        if expected.env is not None:
            for key, value in expected.env.items():
                if (env or {}).get(key) != value:
                    raise AssertionError(f"command #{self._index}: env {key}={value!r} expected, got {env!r}")
        self._index += 1
        if expected.missing:
            raise FileNotFoundError(2, "No such file or directory", argv[0])
        if expected.timeout:
            raise subprocess.TimeoutExpired(list(argv), timeout_s)
        if expected.interrupt:
            raise KeyboardInterrupt
        return CommandResult(argv, expected.returncode, expected.stdout, expected.stderr)

    @property
    def remaining(self) -> tuple[Exchange, ...]:
        return tuple(self._exchanges[self._index:])

    def assert_all_used(self) -> None:
        if self._index != len(self._exchanges):
            left = "\n  ".join(repr(e.argv) for e in self.remaining)
            raise AssertionError(f"{len(self.remaining)} expected command(s) never ran:\n  {left}")


@contextlib.contextmanager
def expected_commands(exchanges: Iterable[Exchange | tuple]) -> Iterator[ReplayRunner]:
    """A :class:`ReplayRunner` that checks, on a normal exit, that every exchange was used."""
    runner = ReplayRunner(exchanges)
    yield runner
    runner.assert_all_used()


class RecordingRunner:
    """Wraps a real runner and keeps every exchange, to capture fixtures from a machine.

    Example
    -------
    >>> from charz.device import SubprocessRunner
    >>> rec = RecordingRunner(SubprocessRunner())
    >>> rec.run(["true"], timeout_s=5).returncode
    0
    >>> rec.exchanges[0].argv
    ('true',)
    """

    def __init__(self, inner: Runner):
        self.inner = inner
        self.exchanges: list[Exchange] = []

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        try:
            result = self.inner.run(argv, timeout_s=timeout_s, env=env)
        except FileNotFoundError:
            self.exchanges.append(Exchange(tuple(argv), 127, "", "", missing=True))
            raise
        self.exchanges.append(Exchange(result.argv, result.returncode, result.stdout, result.stderr))
        return result

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps([e.to_json() for e in self.exchanges], indent=2) + "\n")


def load_exchanges(path: str | os.PathLike) -> list[Exchange]:
    """Read exchanges saved by :meth:`RecordingRunner.save`."""
    items = json.loads(Path(path).read_text())
    return [
        Exchange(tuple(i["argv"]), i["returncode"], i["stdout"], i["stderr"], missing=i.get("missing", False))
        for i in items
    ]


#: queue/ attributes of a typical SATA SSD, for fake sysfs trees.
SSD_QUEUE: Mapping[str, str] = {
    "logical_block_size": "512",
    "physical_block_size": "512",
    "minimum_io_size": "512",
    "optimal_io_size": "0",
    "discard_granularity": "512",
    "discard_max_bytes": "2147450880",
    "max_sectors_kb": "1280",
    "max_hw_sectors_kb": "32767",
    "rotational": "0",
    "write_cache": "write back",
    "scheduler": "[none] mq-deadline kyber bfq",
    "read_ahead_kb": "128",
}


def make_fake_sysfs(
    root: str | os.PathLike,
    *,
    disk: str,
    devnum: tuple[int, int],
    size_bytes: int = 1 << 30,
    queue: Mapping[str, str] | None = None,
    partitions: Mapping[str, tuple[int, int]] | None = None,
    partition_starts: Mapping[str, int] | None = None,
    holders: Iterable[str] = (),
    partition_holders: Mapping[str, Iterable[str]] | None = None,
    slaves: Iterable[str] = (),
    loop_backing_file: str | None = None,
    nvme_controller: str | None = None,
    nsid: int | None = None,
    sibling_namespaces: Iterable[str] = (),
) -> Path:
    """Build the part of a sysfs tree that ``charz.device._sysfs`` reads, for one disk.

    Call it once per disk on the same ``root``.  Returns ``root``.

    Example
    -------
    >>> import tempfile
    >>> from charz.device._sysfs import node_for_devnum, partitions as parts
    >>> root = make_fake_sysfs(tempfile.mkdtemp(), disk="sdz", devnum=(8, 240),
    ...                        partitions={"sdz1": (8, 241)}, partition_holders={"sdz1": ["dm-3"]})
    >>> node_for_devnum(8, 241, sysfs_root=str(root)).parent, [p.kname for p in parts("sdz", sysfs_root=str(root))]
    ('sdz', ['sdz1'])
    """
    root = Path(root)
    base = root / "block" / disk
    (base / "queue").mkdir(parents=True, exist_ok=True)
    (base / "dev").write_text(f"{devnum[0]}:{devnum[1]}\n")
    (base / "size").write_text(f"{size_bytes // 512}\n")
    for name, value in (queue if queue is not None else SSD_QUEUE).items():
        (base / "queue" / name).write_text(value + "\n")
    for sub, names in (("holders", holders), ("slaves", slaves)):
        (base / sub).mkdir(exist_ok=True)
        for name in names:
            (base / sub / name).mkdir(exist_ok=True)
    links = root / "dev" / "block"
    links.mkdir(parents=True, exist_ok=True)
    _relink(links / f"{devnum[0]}:{devnum[1]}", base)
    for part, (major, minor) in (partitions or {}).items():
        pdir = base / part
        (pdir / "holders").mkdir(parents=True, exist_ok=True)
        # the partition number: the trailing digits of its name
        (pdir / "partition").write_text(part[len(part.rstrip("0123456789")):] + "\n")
        (pdir / "dev").write_text(f"{major}:{minor}\n")
        # in 512-byte sectors; 2048 (1 MiB) is what fdisk and parted pick by default
        (pdir / "start").write_text(f"{(partition_starts or {}).get(part, 2048)}\n")
        for holder in (partition_holders or {}).get(part, ()):
            (pdir / "holders" / holder).mkdir(exist_ok=True)
        _relink(links / f"{major}:{minor}", pdir)
    if loop_backing_file is not None:
        (base / "loop").mkdir(exist_ok=True)
        (base / "loop" / "backing_file").write_text(loop_backing_file + "\n")
    if nsid is not None:
        (base / "nsid").write_text(f"{nsid}\n")
    if nvme_controller is not None:
        ctrl = root / "class" / "nvme" / nvme_controller
        for ns in (disk, *sibling_namespaces):
            (ctrl / ns).mkdir(parents=True, exist_ok=True)
            (ctrl / ns / "nsid").write_text("1\n")
        _relink(base / "device", ctrl)
    return root


def _relink(link: Path, target: Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)

"""The seam between charz and the external tools it drives (hdparm, nvme, lsblk, ...).

Commands are always argument lists, never shell strings, so a device path or a
serial number can never be read as shell syntax.  Runtime code uses
:class:`SubprocessRunner`; tests use the replaying fake in
:mod:`charz.device.testing`.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from charz.errors import DeviceCommandFailed

#: Debian package that ships each tool charz may run; named in the hint when a tool
#: is missing.  (util-linux is essential on Debian, the others are not.)
TOOL_PACKAGES: Mapping[str, str] = {
    "hdparm": "hdparm",
    "nvme": "nvme-cli",
    "smartctl": "smartmontools",
    "fio": "fio",
    "lsblk": "util-linux",
    "wipefs": "util-linux",
    "blkid": "util-linux",
    "blkdiscard": "util-linux",
    "blockdev": "util-linux",
    "losetup": "mount",
    "sfdisk": "fdisk",
    "dmsetup": "dmsetup",
}

#: Default time limit for quick queries (identify, get/set a flag).
QUICK_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class CommandResult:
    """What one external command did.

    Example
    -------
    >>> r = CommandResult(("hdparm", "-W", "/dev/sda"), 0, "\\n/dev/sda:\\n write-caching =  1 (on)\\n", "")
    >>> r.ok, r.stderr_tail()
    (True, '/dev/sda:\\n write-caching =  1 (on)')
    """

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    duration_s: float = field(default=0.0, compare=False)

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def stderr_tail(self, n_lines: int = 5) -> str:
        """The last lines of stderr (or stdout when stderr is empty), for error messages."""
        text = self.stderr.strip() or self.stdout.strip()
        return "\n".join(text.splitlines()[-n_lines:])


@runtime_checkable
class Runner(Protocol):
    """Runs one external command given as an argument list.

    Raises :class:`FileNotFoundError` when the program is not installed and
    :class:`subprocess.TimeoutExpired` when it overruns ``timeout_s``; a non-zero
    exit status is *not* an exception (the caller decides what it means).

    Example
    -------
    >>> runner.run(["lsblk", "-J", "-b", "-O", "/dev/sda"], timeout_s=30)  # doctest: +SKIP
    CommandResult(argv=('lsblk', '-J', '-b', '-O', '/dev/sda'), returncode=0, stdout='{...}', stderr='')
    """

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult: ...


class SubprocessRunner:
    """The real runner: :func:`subprocess.run` with ``shell=False``.

    ``env`` entries are added to the current environment (fio job files read
    ``${VAR}`` from it); ``LC_ALL=C`` is forced so the tools' messages are the
    English ones the parsers know.
    """

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        argv = _arg_argv(argv)
        full_env = {**os.environ, "LC_ALL": "C", **(env or {})}
        t0 = time.monotonic()
        proc = subprocess.run(
            argv,
            shell=False,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env=full_env,
            stdin=subprocess.DEVNULL,
        )
        return CommandResult(argv, proc.returncode, proc.stdout, proc.stderr, time.monotonic() - t0)


def _arg_argv(argv: Sequence[str]) -> tuple[str, ...]:
    if isinstance(argv, (str, bytes)):
        raise TypeError("commands are argument lists, not strings")
    argv = tuple(argv)
    if not argv or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a non-empty sequence of str, got {argv!r}")
    return argv


def missing_tool_hint(program: str) -> str:
    """The install hint for a program that is not on PATH.

    >>> missing_tool_hint("hdparm")
    'install it: apt-get install hdparm'
    """
    name = os.path.basename(program)
    package = TOOL_PACKAGES.get(name)
    if package is None:
        return f"install {name} and make sure it is on PATH"
    return f"install it: apt-get install {package}"


def run_tool(
    runner: Runner,
    argv: Sequence[str],
    *,
    timeout_s: float = QUICK_TIMEOUT_S,
    check: bool = True,
    what: str | None = None,
) -> CommandResult:
    """Run a device tool and turn every way it can fail into :class:`DeviceCommandFailed`.

    Parameters
    ----------
    runner : Runner
    argv : sequence of str
    timeout_s : float
    check : bool
        Raise when the exit status is not 0.  Pass ``False`` for tools whose status
        is a bit mask (smartctl) or that answer "nothing found" with a status (blkid).
    what : str, optional
        What the command was for, used in the message ("read the write cache").

    Examples
    --------
    >>> run_tool(runner, ["hdparm", "-W", "/dev/sda"]).stdout   # doctest: +SKIP
    '\\n/dev/sda:\\n write-caching =  1 (on)\\n'
    """
    argv = _arg_argv(argv)
    label = what or " ".join(argv)
    try:
        result = runner.run(argv, timeout_s=timeout_s)
    except FileNotFoundError as exc:
        raise DeviceCommandFailed(
            f"cannot {label}: {argv[0]} is not installed",
            hint=missing_tool_hint(argv[0]),
            code="ENOENT",
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise DeviceCommandFailed(
            f"cannot {label}: {' '.join(argv)} did not finish within {timeout_s:g} s",
            hint="the drive may be hung or busy; power-cycle it and check dmesg",
            code="timeout",
        ) from exc
    except PermissionError as exc:
        raise DeviceCommandFailed(
            f"cannot {label}: permission denied running {argv[0]}",
            hint="run charz as root (device commands need CAP_SYS_ADMIN / CAP_SYS_RAWIO)",
            code="EACCES",
        ) from exc
    if check and not result.ok:
        raise DeviceCommandFailed(
            f"cannot {label}: {' '.join(argv)} exited with status {result.returncode}:\n"
            f"{result.stderr_tail()}",
            hint="see the tool's message above; check dmesg for I/O errors",
            code=result.returncode,
        )
    return result

"""Refuse to touch a drive that is in use, or not what it seems.

:func:`inspect_target` runs every check and collects *all* the reasons to refuse
(a user fixing one problem should not discover the next one on the following run);
:func:`check_target` raises :class:`~charz.errors.UnsafeTarget` listing them.
:func:`hold_exclusive` then claims the disk with ``O_EXCL`` for the whole session,
so nothing can mount or stack on it while charz writes.

Every check compares device numbers (major:minor), never names: a symlink, a
``/dev/disk/by-id`` alias or a renamed node cannot slip through, and a mounted
*partition* of the target is caught (fio compares names only and misses it,
axboe/fio#1382).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from charz.device import _sysfs
from charz.device._mounts import MountEntry, parse_mountinfo, parse_swaps
from charz.device._runner import Runner, run_tool
from charz.device._signatures import Signature, blkid_argv, parse_blkid_export, parse_wipefs, wipefs_argv
from charz.errors import DeviceCommandFailed, DeviceError, UnsafeTarget

#: Mount points whose device must never be a target.
SYSTEM_PATHS = ("/", "/boot", "/boot/efi", "/efi")


@dataclass(frozen=True)
class TargetReport:
    """The outcome of the checks on one candidate target.

    ``reasons`` is empty when the device may be used.  ``notes`` are facts worth
    recording that did not refuse it (e.g. signatures accepted on request).
    """

    given_path: str
    path: str
    kernel_name: str | None
    major: int | None
    minor: int | None
    partitions: tuple[str, ...] = ()
    signatures: tuple[Signature, ...] = ()
    reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def safe(self) -> bool:
        return not self.reasons

    def describe(self) -> str:
        """A multi-line text naming the device and every reason."""
        alias = f" (given as {self.given_path})" if self.given_path != self.path else ""
        if self.safe:
            return f"{self.path}{alias}: no reason to refuse"
        lines = [f"refusing {self.path}{alias}:"] + [f"  - {r}" for r in self.reasons]
        return "\n".join(lines)


@dataclass(frozen=True)
class _Device:
    kname: str
    major: int
    minor: int

    @property
    def dev_path(self) -> str:
        return f"/dev/{self.kname}"


@dataclass
class _Findings:
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def inspect_target(
    path: str | os.PathLike,
    *,
    output_dir: str | os.PathLike | None,
    allow_signatures: bool = False,
    runner: Runner,
    sysfs_root: str = _sysfs.SYSFS_ROOT,
    proc_root: str = "/proc",
    system_paths: Sequence[str] = SYSTEM_PATHS,
) -> TargetReport:
    """Run every safety check on ``path`` and report, without raising for refusals.

    Parameters
    ----------
    path : path-like
        The candidate device; symlinks are resolved.
    output_dir : path-like or None
        Where the session archive goes; refused if it lives on the device.
    allow_signatures : bool
        Accept a device that carries a file system, partition table or RAID/LVM
        signature (it will be overwritten).
    runner : Runner
        Runs ``wipefs`` (or ``blkid``) to look for signatures.
    sysfs_root, proc_root : str
        For tests: where sysfs and procfs are.
    system_paths : sequence of str
        Mount points whose device is refused (``/``, ``/boot``, EFI).

    Returns
    -------
    TargetReport

    Examples
    --------
    >>> report = inspect_target("/dev/sda", output_dir="runs", runner=runner)  # doctest: +SKIP
    >>> print(report.describe())                                              # doctest: +SKIP
    refusing /dev/sda:
      - /dev/sda2 is mounted at / (ext4)
      - /dev/sda holds / (the running system)
      - /dev/sda carries signatures: gpt at byte 512, PMBR at byte 510 (wipe them with wipefs -a, ...)
    """
    given = os.fspath(path)
    real = os.path.realpath(given)
    found = _Findings()
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return TargetReport(given, real, None, None, None, reasons=(f"{real} does not exist",))
    except OSError as exc:
        return TargetReport(given, real, None, None, None, reasons=(f"cannot stat {real}: {exc.strerror}",))
    if not stat.S_ISBLK(st.st_mode):
        return TargetReport(given, real, None, None, None, reasons=(_not_block_reason(real, st),))

    major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
    try:
        node = _sysfs.node_for_devnum(major, minor, sysfs_root=sysfs_root)
    except DeviceError as exc:
        return TargetReport(given, real, None, major, minor, reasons=(f"{real}: {exc.message}",))

    target = _Device(node.kname, major, minor)
    devices = [target]
    partition_names: tuple[str, ...] = ()
    if node.is_partition:
        found.reasons.append(
            f"{real} is a partition of /dev/{node.parent}; give the whole disk (/dev/{node.parent})"
        )
    else:
        parts = _guarded(found, "list partitions", lambda: _sysfs.partitions(node.kname, sysfs_root=sysfs_root))
        devices += [_Device(p.kname, p.major, p.minor) for p in parts or ()]
        partition_names = tuple(p.kname for p in parts or ())

    mounts = _guarded(found, "read mountinfo", lambda: parse_mountinfo(_read_proc(proc_root, "self/mountinfo")))
    mounts = mounts or ()
    _check_mounts(found, devices, mounts)
    _check_holders(found, devices, node, sysfs_root)
    _check_stacking(found, node, sysfs_root)
    _check_swaps(found, devices, proc_root)
    paths = [(p, _system_label(p)) for p in system_paths]
    if output_dir is not None:
        paths.append((os.fspath(output_dir), "the output directory"))
    _check_paths(found, devices, mounts, paths)
    signatures = _check_signatures(found, real, runner, allow_signatures)

    return TargetReport(
        given_path=given,
        path=real,
        kernel_name=node.kname,
        major=major,
        minor=minor,
        partitions=partition_names,
        signatures=signatures,
        reasons=tuple(dict.fromkeys(found.reasons)),
        notes=tuple(found.notes),
    )


def check_target(
    path: str | os.PathLike,
    *,
    output_dir: str | os.PathLike | None,
    allow_signatures: bool = False,
    runner: Runner,
    sysfs_root: str = _sysfs.SYSFS_ROOT,
    proc_root: str = "/proc",
    system_paths: Sequence[str] = SYSTEM_PATHS,
) -> TargetReport:
    """Like :func:`inspect_target`, but raise when there is any reason to refuse.

    Raises
    ------
    UnsafeTarget
        Its message lists every reason; the report is attached as ``.report``.

    Examples
    --------
    >>> check_target("/dev/loop3", output_dir="/srv/runs", runner=SubprocessRunner())  # doctest: +SKIP
    TargetReport(given_path='/dev/loop3', path='/dev/loop3', kernel_name='loop3', ...)
    """
    report = inspect_target(
        path,
        output_dir=output_dir,
        allow_signatures=allow_signatures,
        runner=runner,
        sysfs_root=sysfs_root,
        proc_root=proc_root,
        system_paths=system_paths,
    )
    if not report.safe:
        exc = UnsafeTarget(
            report.describe(),
            hint="charz writes to the whole device and destroys its data: pick an unused drive, "
            "unmount/swapoff/remove what holds it, and wipe signatures (wipefs -a) if it is really free",
        )
        exc.report = report
        raise exc
    return report


# -- the checks ---------------------------------------------------------------------

def _guarded(found: _Findings, what: str, fn):
    # A check that cannot run is a reason to refuse: failing closed is the point.
    try:
        return fn()
    except DeviceError as exc:
        found.reasons.append(f"cannot {what}: {exc.message}")
        return None


def _read_proc(proc_root: str, name: str) -> str:
    path = os.path.join(proc_root, name)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as exc:
        raise DeviceError(f"cannot read {path}: {exc.strerror}") from exc


def _not_block_reason(real: str, st: os.stat_result) -> str:
    if stat.S_ISCHR(st.st_mode):
        if os.path.basename(real).startswith("nvme"):
            return (f"{real} is a character device (an NVMe controller); give a namespace "
                    "block device such as /dev/nvme0n1")
        return f"{real} is a character device, not a block device"
    if stat.S_ISREG(st.st_mode):
        return f"{real} is a regular file, not a block device (use the workload's scratch-file mode instead)"
    return f"{real} is not a block device"


def _devnum_of_path(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    return os.major(st.st_rdev), os.minor(st.st_rdev)


def _match(devices: list[_Device], major: int, minor: int) -> _Device | None:
    for dev in devices:
        if (dev.major, dev.minor) == (major, minor):
            return dev
    return None


def _mount_device(entry: MountEntry, devices: list[_Device]) -> _Device | None:
    # mountinfo's device number is the file system's st_dev: right for ext4/xfs,
    # anonymous (0:NN) for btrfs, so the mount source is checked as well.
    dev = _match(devices, entry.major, entry.minor)
    if dev is None and entry.source.startswith("/"):
        num = _devnum_of_path(entry.source)
        if num is not None:
            dev = _match(devices, *num)
        if dev is None:
            dev = next((d for d in devices if d.dev_path == os.path.realpath(entry.source)), None)
    return dev


def _check_mounts(found: _Findings, devices: list[_Device], mounts: Sequence[MountEntry]) -> None:
    for entry in mounts:
        dev = _mount_device(entry, devices)
        if dev is not None:
            found.reasons.append(f"{dev.dev_path} is mounted at {entry.mountpoint} ({entry.fstype})")


def _check_holders(found: _Findings, devices: list[_Device], node: _sysfs.BlockNode, sysfs_root: str) -> None:
    for dev in devices:
        parent = node.parent if dev.kname == node.kname else node.kname
        held = _guarded(found, f"list holders of {dev.dev_path}",
                        lambda: _sysfs.holders(dev.kname, parent=parent, sysfs_root=sysfs_root))
        for holder in held or ():
            found.reasons.append(
                f"{dev.dev_path} is held by /dev/{holder} (device-mapper, LVM, md RAID or bcache "
                f"is stacked on it)"
            )


def _check_stacking(found: _Findings, node: _sysfs.BlockNode, sysfs_root: str) -> None:
    if node.is_partition:
        return
    lower = _guarded(found, "list slaves", lambda: _sysfs.slaves(node.kname, sysfs_root=sysfs_root))
    if lower:
        found.reasons.append(
            f"/dev/{node.kname} is a stacked device on {', '.join('/dev/' + s for s in lower)}; "
            "give the physical drive, not a dm/md device"
        )
    backing = _guarded(found, "read the loop backing file",
                       lambda: _sysfs.loop_backing_file(node.kname, sysfs_root=sysfs_root))
    if backing and _devnum_of_path(backing.removesuffix(" (deleted)")) is not None:
        found.reasons.append(
            f"/dev/{node.kname} is a loop device over the block device {backing}; writing to it writes there"
        )


def _check_swaps(found: _Findings, devices: list[_Device], proc_root: str) -> None:
    names = _guarded(found, "read /proc/swaps", lambda: parse_swaps(_read_proc(proc_root, "swaps")))
    for name in names or ():
        num = _devnum_of_path(name)
        if num is not None:
            dev = _match(devices, *num)
            if dev is not None:
                found.reasons.append(f"{dev.dev_path} is in use as swap")
            continue
        try:
            st_dev = os.stat(name).st_dev
        except OSError:
            continue
        dev = _match(devices, os.major(st_dev), os.minor(st_dev))
        if dev is not None:
            found.reasons.append(f"{dev.dev_path} holds the swap file {name}")


def _system_label(path: str) -> str:
    return f"{path} (the running system)" if path == "/" else path


def _existing_ancestor(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return os.path.realpath(path)


def _containing_mount(path: str, mounts: Sequence[MountEntry]) -> MountEntry | None:
    best, best_len = None, -1
    for entry in mounts:
        point = entry.mountpoint
        if point == "/" or path == point or path.startswith(point + "/"):
            length = 0 if point == "/" else len(point)
            # a later mount over the same point hides the earlier one, hence >=
            if length >= best_len:
                best, best_len = entry, length
    return best


def _check_paths(
    found: _Findings,
    devices: list[_Device],
    mounts: Sequence[MountEntry],
    paths: Sequence[tuple[str, str]],
) -> None:
    mountpoints = {entry.mountpoint for entry in mounts}
    for raw, label in paths:
        is_output = label == "the output directory"
        # /boot or /efi that are plain directories of / are covered by the check of /
        if not is_output and raw != "/" and raw not in mountpoints:
            continue
        if not is_output and not os.path.exists(raw):
            continue
        real = _existing_ancestor(raw)
        try:
            st_dev = os.stat(real).st_dev
        except OSError as exc:
            found.reasons.append(f"cannot check {label}: {exc.strerror}")
            continue
        dev = _match(devices, os.major(st_dev), os.minor(st_dev))
        if dev is None:
            # realpath resolves what exists and keeps the rest, so a directory still to be
            # created is placed under the mount it will land on
            entry = _containing_mount(os.path.realpath(raw), mounts)
            dev = _mount_device(entry, devices) if entry is not None else None
        if dev is not None:
            what = f"the output directory {raw}" if is_output else label
            found.reasons.append(f"{dev.dev_path} holds {what}")


def _check_signatures(
    found: _Findings, path: str, runner: Runner, allow: bool
) -> tuple[Signature, ...]:
    # run_tool's messages already start with "cannot list signatures: ..."
    try:
        signatures = parse_wipefs(run_tool(runner, wipefs_argv(path), what="list signatures").stdout)
    except DeviceCommandFailed as first:
        if first.code != "ENOENT":
            found.reasons.append(first.message)
            return ()
        try:
            # blkid answers 2 when it finds nothing
            result = run_tool(runner, blkid_argv(path), check=False, what="list signatures")
            if result.returncode not in (0, 2):
                raise DeviceCommandFailed(
                    f"cannot list signatures: blkid exited with status {result.returncode}: "
                    f"{result.stderr_tail()}"
                )
            signatures = parse_blkid_export(result.stdout)
        except DeviceError as exc:
            found.reasons.append(f"{exc.message} (and wipefs is not installed)")
            return ()
    except DeviceError as exc:
        found.reasons.append(f"cannot list signatures: {exc.message}")
        return ()
    if signatures:
        listed = ", ".join(s.describe() for s in signatures)
        if allow:
            found.notes.append(f"{path} carries signatures that will be overwritten: {listed}")
        else:
            found.reasons.append(
                f"{path} carries signatures: {listed} (wipe them with wipefs -a, or allow signatures)"
            )
    return signatures


# -- the exclusive claim ------------------------------------------------------------

class ExclusiveHold:
    """An ``O_RDWR|O_EXCL`` descriptor on a whole disk, held for the session.

    While it is open the kernel refuses to mount the disk or any of its
    partitions, to stack dm/md on it, and other exclusive openers (mkfs,
    blkdiscard without ``-f``) get EBUSY; ordinary opens (fio, hdparm) still work.
    """

    def __init__(self, path: str, fd: int, rdev: int, report: TargetReport | None = None):
        self._path = path
        self._fd = fd
        self._rdev = rdev
        self._report = report

    @property
    def report(self) -> TargetReport | None:
        """The guard's report made *while* the claim was held, or None (see :func:`claim_target`)."""
        return self._report

    @property
    def checked(self) -> bool:
        """True when every check passed under this claim: the proof writers ask for."""
        return self._report is not None and self._report.safe

    @property
    def path(self) -> str:
        return self._path

    @property
    def fd(self) -> int:
        if self._fd < 0:
            raise DeviceError(f"the exclusive hold on {self._path} has been released")
        return self._fd

    @property
    def rdev(self) -> int:
        return self._rdev

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def covers(self, path: str | os.PathLike) -> bool:
        """True when this hold is open and ``path`` is the held device."""
        if self.closed:
            return False
        try:
            st = os.stat(os.path.realpath(os.fspath(path)))
        except OSError:
            return False
        return stat.S_ISBLK(st.st_mode) and st.st_rdev == self._rdev

    def release(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def __repr__(self) -> str:
        state = "released" if self.closed else f"fd={self._fd}"
        checked = ", checked" if self.checked else ""
        return f"ExclusiveHold({self._path!r}, {state}{checked})"


@contextlib.contextmanager
def hold_exclusive(path: str | os.PathLike) -> Iterator[ExclusiveHold]:
    """Claim ``path`` with ``O_RDWR|O_EXCL`` and keep it claimed inside the block.

    Raises
    ------
    UnsafeTarget
        The kernel says the device is busy (EBUSY): something mounted it, a
        partition is in use, or another program holds it exclusively.
    DeviceError
        Not a block device, or no permission.

    Examples
    --------
    >>> with hold_exclusive("/dev/loop3") as hold:   # doctest: +SKIP
    ...     hold.covers("/dev/loop3")
    True
    """
    hold = _open_exclusive(os.path.realpath(os.fspath(path)))
    try:
        yield hold
    finally:
        hold.release()


def _open_exclusive(real: str) -> ExclusiveHold:
    try:
        fd = os.open(real, os.O_RDWR | os.O_EXCL | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise UnsafeTarget(
                f"{real} is in use: the kernel refused an exclusive open (EBUSY); it or one of "
                "its partitions is mounted, used as swap, stacked on (dm/md) or held by another program",
                hint="find the user with lsblk, findmnt and fuser -v; release it and retry",
                code="EBUSY",
            ) from exc
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise DeviceError(f"no permission to open {real} for writing", hint="run as root",
                              code=exc.errno) from exc
        raise DeviceError(f"cannot open {real}: {exc.strerror}", code=exc.errno) from exc
    try:
        st = os.fstat(fd)
        # the name may have been swapped between the checks and the open: trust the fd
        if not stat.S_ISBLK(st.st_mode) or os.stat(real).st_rdev != st.st_rdev:
            raise UnsafeTarget(f"{real} changed while it was being claimed; not touching it")
    except BaseException:
        os.close(fd)
        raise
    return ExclusiveHold(real, fd, st.st_rdev)


@contextlib.contextmanager
def claim_target(
    path: str | os.PathLike,
    *,
    output_dir: str | os.PathLike | None,
    allow_signatures: bool = False,
    runner: Runner,
    sysfs_root: str = _sysfs.SYSFS_ROOT,
    proc_root: str = "/proc",
    system_paths: Sequence[str] = SYSTEM_PATHS,
) -> Iterator[ExclusiveHold]:
    """Check, claim, check again: the one way to get a hold that writers accept.

    The second :func:`check_target` runs while the ``O_EXCL`` claim is held, so
    nothing can have been mounted or stacked between the checks and the claim.
    The hold it yields carries that report (``hold.checked`` is True).

    Raises
    ------
    UnsafeTarget
        From either check, or EBUSY from the claim.

    Examples
    --------
    >>> with claim_target("/dev/loop3", output_dir="runs", runner=SubprocessRunner()) as hold:  # doctest: +SKIP
    ...     hold.checked, hold.report.kernel_name
    (True, 'loop3')
    """
    kw = dict(output_dir=output_dir, allow_signatures=allow_signatures, runner=runner,
              sysfs_root=sysfs_root, proc_root=proc_root, system_paths=system_paths)
    first = check_target(path, **kw)
    with hold_exclusive(first.path) as hold:
        hold._report = check_target(first.path, **kw)
        yield hold

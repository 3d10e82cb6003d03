"""Who the drive under test is: one :class:`DriveIdentity` from lsblk, sysfs,
hdparm / nvme-cli and smartctl.

Each source fills what it knows best: sysfs for the kernel's queue limits, the
drive's own IDENTIFY data (hdparm -I, nvme id-ctrl) for model/serial/firmware,
smartctl as a second opinion, lsblk for the transport.  A tool that cannot
answer for this kind of device (smartctl on a loop device) leaves a note instead
of failing; a tool that is required and missing (hdparm for a SATA drive) fails.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Literal

from charz.device import _sysfs
from charz.device._hdparm import AtaIdentity, parse_identify
from charz.device._lsblk import LsblkDevice, lsblk_argv, parse_lsblk
from charz.device._nvme import NvmeController, NvmeNamespace, parse_id_ctrl, parse_id_ns
from charz.device._runner import Runner, run_tool
from charz.device._smartctl import SmartInfo, parse_smartctl, smartctl_argv
from charz.errors import DeviceCommandFailed, DeviceError

Transport = Literal["sata", "nvme", "usb", "loop", "virtio", "other"]


@dataclass(frozen=True)
class NvmeInfo:
    """An NVMe namespace and the controller it belongs to."""

    controller: NvmeController
    namespace: NvmeNamespace
    nsid: int | None
    #: other namespaces on the same controller (a format may reach them, nvme-cli#501)
    sibling_namespaces: tuple[str, ...]


@dataclass(frozen=True)
class DriveIdentity:
    """Everything charz records about the drive under test.

    Example
    -------
    >>> ident = identify("/dev/sda", runner=SubprocessRunner())          # doctest: +SKIP
    >>> ident.model, ident.transport, ident.queue.minimum_io_size_bytes    # doctest: +SKIP
    ('Samsung SSD 860 EVO 500GB', 'sata', 512)
    """

    path: str
    kernel_name: str
    major: int
    minor: int
    model: str | None
    serial: str | None
    firmware: str | None
    size_bytes: int
    transport: Transport
    rotational: bool
    logical_sector_bytes: int
    physical_sector_bytes: int
    queue: _sysfs.QueueLimits
    ata: AtaIdentity | None = None
    nvme: NvmeInfo | None = None
    smart: SmartInfo | None = None
    loop_backing_file: str | None = None
    #: what could not be read and why (recorded in the archive).
    notes: tuple[str, ...] = ()

    @property
    def maj_min(self) -> str:
        return f"{self.major}:{self.minor}"


def classify_transport(dev: LsblkDevice) -> Transport:
    """The transport, from lsblk's TRAN, TYPE and SUBSYSTEMS columns.

    >>> from charz.device._lsblk import parse_lsblk
    >>> d, = parse_lsblk('{"blockdevices": [{"name": "vda", "maj:min": "254:0", "type": "disk", '
    ...                  '"size": 1, "tran": null, "subsystems": "block:virtio:pci"}]}')
    >>> classify_transport(d)
    'virtio'
    """
    if dev.type == "loop" or dev.kname.startswith("loop"):
        return "loop"
    tran = (dev.transport or "").lower()
    if tran in ("sata", "ata"):
        return "sata"
    if tran in ("nvme", "usb"):
        return tran
    subsystems = (dev.subsystems or "").split(":")
    if "virtio" in subsystems:
        return "virtio"
    if "nvme" in subsystems:
        return "nvme"
    if "usb" in subsystems:
        return "usb"
    return "other"


def identify(path: str | os.PathLike, *, runner: Runner, sysfs_root: str = _sysfs.SYSFS_ROOT) -> DriveIdentity:
    """Identify the whole-disk block device at ``path``.

    Parameters
    ----------
    path : path-like
        A whole disk (symlinks are resolved).
    runner : Runner
        Runs lsblk, hdparm, nvme and smartctl.
    sysfs_root : str
        For tests.

    Raises
    ------
    DeviceError
        Not a block device, a partition, or output that cannot be parsed.
    DeviceCommandFailed
        A required tool is missing or failed (lsblk always; hdparm for SATA;
        nvme-cli for NVMe).
    """
    real = os.path.realpath(os.fspath(path))
    try:
        st = os.stat(real)
    except OSError as exc:
        raise DeviceError(f"cannot stat {real}: {exc.strerror}") from exc
    if not stat.S_ISBLK(st.st_mode):
        raise DeviceError(f"{real} is not a block device")
    node = _sysfs.node_for_devnum(os.major(st.st_rdev), os.minor(st.st_rdev), sysfs_root=sysfs_root)
    if node.is_partition:
        raise DeviceError(f"{real} is a partition of /dev/{node.parent}; identify the whole disk")

    rows = parse_lsblk(run_tool(runner, lsblk_argv(real), what="list the device").stdout)
    if not rows:
        raise DeviceError(f"lsblk listed nothing for {real}")
    row = rows[0]
    queue = _sysfs.read_queue_limits(node.kname, sysfs_root=sysfs_root)
    transport = classify_transport(row)
    notes: list[str] = []

    ata = _identify_ata(real, transport, runner, notes)
    nvme = _identify_nvme(real, node.kname, transport, runner, sysfs_root)
    smart = _identify_smart(real, transport, runner, notes)
    if transport in ("loop", "virtio"):
        notes.append(f"{transport} device: no drive firmware to identify or configure")
    elif transport == "other":
        notes.append(f"transport {row.transport or row.subsystems or 'unknown'!r} is not one charz drives: "
                     "no ATA or NVMe commands will be sent")

    model = _first(ata and ata.model, nvme and nvme.controller.model, smart and smart.model, row.model)
    serial = _first(ata and ata.serial, nvme and nvme.controller.serial, smart and smart.serial, row.serial)
    firmware = _first(ata and ata.firmware, nvme and nvme.controller.firmware, smart and smart.firmware,
                      row.revision)
    return DriveIdentity(
        path=real,
        kernel_name=node.kname,
        major=node.major,
        minor=node.minor,
        model=model,
        serial=serial,
        firmware=firmware,
        size_bytes=row.size_bytes or _sysfs.size_bytes(node.kname, sysfs_root=sysfs_root),
        transport=transport,
        rotational=_rotational(ata, smart, queue),
        logical_sector_bytes=queue.logical_block_size_bytes,
        physical_sector_bytes=queue.physical_block_size_bytes,
        queue=queue,
        ata=ata,
        nvme=nvme,
        smart=smart,
        loop_backing_file=_sysfs.loop_backing_file(node.kname, sysfs_root=sysfs_root),
        notes=tuple(notes),
    )


def _first(*values):
    return next((v for v in values if v), None)


def _rotational(ata: AtaIdentity | None, smart: SmartInfo | None, queue: _sysfs.QueueLimits) -> bool:
    # The drive's own word beats the kernel's flag, which is 1 by default for
    # loop devices and for bridges that do not report the rotation rate.
    if ata is not None and ata.solid_state is not None:
        return not ata.solid_state
    if smart is not None and smart.rotation_rate_rpm is not None:
        return smart.rotation_rate_rpm != 0
    return queue.rotational


def _identify_ata(real: str, transport: Transport, runner: Runner, notes: list[str]) -> AtaIdentity | None:
    if transport not in ("sata", "usb"):
        return None
    try:
        result = run_tool(runner, ("hdparm", "-I", real), what="read ATA IDENTIFY data")
        return parse_identify(result.stdout)
    except DeviceError as exc:
        if transport == "sata":
            raise
        # many USB bridges do not pass ATA commands through; that is a fact to record
        notes.append(f"hdparm -I through the USB bridge: {exc.message}")
        return None


def _identify_nvme(real: str, kname: str, transport: Transport, runner: Runner, sysfs_root: str) -> NvmeInfo | None:
    if transport != "nvme":
        return None
    controller = parse_id_ctrl(run_tool(runner, ("nvme", "id-ctrl", real, "-o", "json"),
                                        what="read NVMe Identify Controller").stdout)
    namespace = parse_id_ns(run_tool(runner, ("nvme", "id-ns", real, "-o", "json"),
                                     what="read NVMe Identify Namespace").stdout)
    return NvmeInfo(
        controller=controller,
        namespace=namespace,
        nsid=_sysfs.nvme_nsid(kname, sysfs_root=sysfs_root),
        sibling_namespaces=_sysfs.nvme_sibling_namespaces(kname, sysfs_root=sysfs_root),
    )


def _identify_smart(real: str, transport: Transport, runner: Runner, notes: list[str]) -> SmartInfo | None:
    try:
        # the exit status is a bit mask; parse_smartctl reads it from the JSON
        result = run_tool(runner, smartctl_argv(real), check=False, what="read SMART data")
        return parse_smartctl(result.stdout)
    except DeviceCommandFailed as exc:
        notes.append(f"smartctl: {exc.message} ({exc.hint})")
    except DeviceError as exc:
        notes.append(f"smartctl: {exc.message}")
    return None

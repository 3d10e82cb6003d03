"""Real loop devices for the device and workload system tests (imported explicitly).

Every device is made from an image file in the test's own temp directory and is
torn down in reverse order (swapoff, umount, dmsetup remove, losetup -d) even when
the test fails.  Nothing here touches a device it did not create: before anything
destructive the loop device's backing file is checked to be our image.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

MIB = 1 << 20


def need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: loop devices, mounts and O_EXCL on block devices")
    if not os.path.exists("/dev/loop-control"):
        pytest.skip("no /dev/loop-control: this kernel or container has no loop devices")


def need_tools(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install: losetup/swapon → mount, "
                    "sfdisk → fdisk, mkfs.ext4 → e2fsprogs, dmsetup → dmsetup, fio → fio)")


def run(*argv: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()}")
    return proc


def sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _wait_for(path: str, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {timeout_s} s")
        time.sleep(0.02)


class LoopDevice:
    """A loop device over ``<directory>/disk.img`` and everything stacked on it."""

    def __init__(self, directory: Path, size_bytes: int = 32 * MIB, partscan: bool = False):
        self.directory = Path(directory)
        self.image = self.directory / "disk.img"
        with open(self.image, "wb") as f:
            f.truncate(size_bytes)
        argv = ["losetup", "--find", "--show"] + (["--partscan"] if partscan else []) + [str(self.image)]
        self.path = run(*argv).stdout.strip()
        self.kname = os.path.basename(self.path)
        self._mounts: list[Path] = []
        self._swaps: list[str] = []
        self._dm: list[str] = []
        backing = Path(f"/sys/block/{self.kname}/loop/backing_file").read_text().strip()
        if backing != str(self.image):
            # never run mkfs/sfdisk on a device that is not ours
            self.close()
            raise AssertionError(f"{self.path} is backed by {backing}, not by our image")

    # -- building states --------------------------------------------------------

    def partition(self, number: int = 1, start_sector: int = 2048) -> str:
        """Write a GPT with one 20 MiB partition at ``start_sector`` and make the kernel see it."""
        table = f"label: gpt\nstart={start_sector}, size=40960, type=linux\n"
        proc = subprocess.run(["sfdisk", "-q", self.path], input=table,
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise AssertionError(f"sfdisk failed: {proc.stderr}")
        # the kernel's own rescan is not reliable here; partx adds the partitions explicitly
        run("partx", "-u", self.path, check=False)
        part = f"{self.path}p{number}"
        _wait_for(f"/sys/block/{self.kname}/{self.kname}p{number}")
        _wait_for(part)
        return part

    def mkfs(self, device: str | None = None) -> None:
        run("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", device or self.path)

    def mount(self, device: str | None = None, name: str = "mnt") -> Path:
        point = self.directory / name
        point.mkdir(exist_ok=True)
        run("mount", "-o", "noatime", device or self.path, str(point))
        self._mounts.append(point)
        return point

    def swapon(self, device: str | None = None) -> None:
        device = device or self.path
        run("mkswap", device)
        run("swapon", device)
        self._swaps.append(device)

    def dm_linear(self) -> str:
        name = f"charz-test-{os.getpid()}-{self.kname}"
        sectors = int(Path(f"/sys/block/{self.kname}/size").read_text())
        run("dmsetup", "create", name, "--table", f"0 {sectors} linear {self.path} 0")
        self._dm.append(name)
        return name

    # -- teardown ---------------------------------------------------------------

    def close(self) -> None:
        errors = []
        for device in reversed(self._swaps):
            if run("swapoff", device, check=False).returncode:
                errors.append(f"swapoff {device}")
        for point in reversed(self._mounts):
            if run("umount", str(point), check=False).returncode:
                errors.append(f"umount {point}")
        for name in reversed(self._dm):
            if run("dmsetup", "remove", "--retry", name, check=False).returncode:
                errors.append(f"dmsetup remove {name}")
        self._swaps, self._mounts, self._dm = [], [], []
        if self.path and run("losetup", "-d", self.path, check=False).returncode:
            errors.append(f"losetup -d {self.path}")
        self.path = ""
        if errors:
            raise AssertionError("teardown failed: " + ", ".join(errors))


def device_mapper_available() -> bool:
    try:
        return "device-mapper" in Path("/proc/devices").read_text() and shutil.which("dmsetup") is not None
    except OSError:
        return False

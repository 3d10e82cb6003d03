"""000 Table 3's micro-benchmarks as the job files in ``workloads/wa-*.fio``, read as data.

The same files drive the real fio on a bench and, on the mock bench, the simulated
drive's request stream: :func:`job_params` reads ``rw``, ``rwmixwrite``,
``blockalign``, ``offset`` and ``bs`` from the file (after fio's ``${VAR}``
expansion), so a change to a job file changes both.
"""

from __future__ import annotations

import configparser
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from charz.errors import UsageError
from charz.workload import TABLE3_SIZES, jobfile_path, table3_label

__all__ = ["WaJob", "TABLE3_FILES", "TABLE3_SIZES", "CALIBRATION_FILE", "job_params", "table3_jobs",
           "calibration_job", "parse_size"]

TABLE3_FILES = tuple(f"wa-w{w}-{r}-{a}.fio" for w in (100, 50) for r in ("sq", "rd") for a in ("align", "noalign"))
CALIBRATION_FILE = "wa-calibrate.fio"


@dataclass(frozen=True)
class WaJob:
    """One run: a job file, its request size and the bytes it is to write."""

    file: str
    block_size: int
    volume_bytes: int
    write_fraction: float
    random: bool
    aligned: bool

    @property
    def io_size(self) -> int:
        """fio's io_size: the written volume plus the reads that come with it."""
        return int(round(self.volume_bytes / self.write_fraction))

    @property
    def label(self) -> str:
        """000 Table 3's name, e.g. ``4K-RD-100%-W-4KiB-align``."""
        return table3_label(self.block_size, self.random, self.write_fraction, self.aligned)

    def env(self) -> dict[str, str]:
        return {"BS": str(self.block_size), "IO_SIZE": str(self.io_size), "VOLUME": str(self.volume_bytes)}

    def to_dict(self) -> dict:
        return asdict(self)


def parse_size(text: str) -> int:
    """fio's sizes: ``4k`` → 4096, ``2g`` → 2 GiB, ``512`` → 512 (powers of 1024, as fio's default).

    >>> parse_size("4k"), parse_size("32K"), parse_size("2g"), parse_size("512")
    (4096, 32768, 2147483648, 512)
    """
    m = re.fullmatch(r"\s*([0-9]+)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", str(text))
    if not m:
        raise UsageError(f"not a size: {text!r}", hint="write sizes as fio does: 512, 4k, 64m, 2g")
    return int(m.group(1)) * 1024 ** " kmgt".index(m.group(2).lower() or " ")


def _options(path: Path, env: dict[str, str]) -> dict[str, str]:
    text = path.read_text()
    missing = sorted(set(re.findall(r"\$\{(\w+)\}", text)) - set(env) - {"TARGET"})
    if missing:
        raise UsageError(f"{path.name} needs {', '.join(missing)}")
    text = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), m.group(0)), text)
    cp = configparser.ConfigParser(interpolation=None, comment_prefixes=(";", "#"), strict=False)
    cp.read_string(text)
    opts: dict[str, str] = {}
    for section in cp.sections():  # [global] first, then the job's own
        opts.update(cp[section])
    return opts


def job_params(file: str, block_size: int, volume_bytes: int, *, workloads_dir=None) -> WaJob:
    """What ``file`` asks fio to do at ``block_size`` and ``volume_bytes`` written."""
    path = jobfile_path(file, workloads_dir=workloads_dir)
    o = _options(path, {"BS": str(block_size), "IO_SIZE": str(volume_bytes), "VOLUME": str(volume_bytes)})
    rw = o.get("rw", "read")
    if rw not in ("write", "randwrite", "rw", "readwrite", "randrw"):
        raise UsageError(f"{file}: rw={rw} does not write")
    mixed = rw in ("rw", "readwrite", "randrw")
    wf = int(o.get("rwmixwrite", 100 - int(o.get("rwmixread", 50)))) / 100 if mixed else 1.0
    align = parse_size(o.get("blockalign", o.get("bs", "4k")))
    offset = parse_size(o.get("offset", "0"))
    if parse_size(o["bs"]) != block_size:
        raise UsageError(f"{file}: bs={o['bs']} is not the request size asked for ({block_size})")
    return WaJob(file, block_size, volume_bytes, wf, rw.startswith("rand"),
                 aligned=(align % 4096 == 0 and offset % 4096 == 0))


def table3_jobs(volume_bytes: int, *, files=TABLE3_FILES, sizes=TABLE3_SIZES, workloads_dir=None) -> list[WaJob]:
    """The 40 micro-benchmarks of 000 Table 3 (8 job files × 5 request sizes)."""
    return [job_params(f, bs, volume_bytes, workloads_dir=workloads_dir) for f in files for bs in sizes]


def calibration_job(volume_bytes: int, *, workloads_dir=None) -> WaJob:
    path = jobfile_path(CALIBRATION_FILE, workloads_dir=workloads_dir)
    bs = parse_size(_options(path, {"IO_SIZE": str(volume_bytes)})["bs"])
    return job_params(CALIBRATION_FILE, bs, volume_bytes, workloads_dir=workloads_dir)

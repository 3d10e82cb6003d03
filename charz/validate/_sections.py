"""The sweep's fio runs: ``workloads/recsize-one.fio`` once per record size, JSON parsed.

One fio run per record size (rather than the five sections of ``recsize-sweep.fio`` in
one run) lets a bench average the probe's current over exactly one record size, and lets
the sweep take any record sizes.  The job is fio's own format, runnable by hand::

    TARGET=/mnt/test/recsize.dat SWEEP_SIZE=134217728 RECORD_SIZE=32768 \\
        fio --output-format=json workloads/recsize-one.fio
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from charz.errors import UsageError, WorkloadError
from charz.workload import ExclusiveClaim, FioJob, FioReport, jobfile_argv, jobfile_path, run_jobfile

__all__ = ["JOBFILE", "DEFAULT_RECORD_SIZES", "DEFAULT_FILE_SIZE", "check_sweep", "section_env", "run_section",
           "section_job", "by_hand"]

JOBFILE = "recsize-one.fio"
#: 003 §6: "record size is increased from 4 KB to 64 KB in multiples of two", file size 128 MB.
DEFAULT_RECORD_SIZES = (4096, 8192, 16384, 32768, 65536)
DEFAULT_FILE_SIZE = 128 << 20
#: O_DIRECT needs whole logical sectors.
SECTOR_BYTES = 512


def check_sweep(record_sizes_bytes: Sequence[int], file_size_bytes: int) -> tuple[int, ...]:
    """Sorted record sizes that O_DIRECT can write and that divide the file size.

    Examples
    --------
    >>> check_sweep([8192, 4096], 1 << 20)
    (4096, 8192)
    >>> check_sweep([3000], 1 << 20)
    Traceback (most recent call last):
    ...
    charz.errors.UsageError: record size 3000 B is not a multiple of 512 B (O_DIRECT writes whole sectors)
    """
    sizes = tuple(sorted(set(int(s) for s in record_sizes_bytes)))
    if not sizes:
        raise UsageError("no record sizes given", hint="e.g. --record-sizes 4k,8k,16k,32k,64k")
    for size in sizes:
        if size <= 0 or size % SECTOR_BYTES:
            raise UsageError(f"record size {size} B is not a multiple of {SECTOR_BYTES} B "
                             "(O_DIRECT writes whole sectors)")
        if file_size_bytes < size or file_size_bytes % size:
            raise UsageError(f"the file size {file_size_bytes} B is not a whole number of {size} B records",
                             hint="every record size must write the same bytes; use a power-of-two file size")
    return sizes


def section_env(record_size_bytes: int, file_size_bytes: int) -> dict[str, str]:
    """The job file's variables (``TARGET`` is added by :func:`charz.workload.run_jobfile`).

    >>> section_env(32768, 128 << 20)
    {'SWEEP_SIZE': '134217728', 'RECORD_SIZE': '32768'}
    """
    return {"SWEEP_SIZE": str(file_size_bytes), "RECORD_SIZE": str(record_size_bytes)}


def by_hand(target: str | os.PathLike, record_size_bytes: int, file_size_bytes: int) -> str:
    """The same run as a shell line, for the user to reproduce (never executed by charz)."""
    env = {"TARGET": os.fspath(target), **section_env(record_size_bytes, file_size_bytes)}
    return " ".join([*(f"{k}={v}" for k, v in env.items()), *jobfile_argv(jobfile_path(JOBFILE))])


def section_job(report: FioReport, record_size_bytes: int, file_size_bytes: int) -> FioJob:
    """The one job of a section, checked: it wrote the whole file in records of the asked size.

    Raises
    ------
    WorkloadError
        More or fewer jobs, another record size, short or missing writes.
    """
    if len(report.jobs) != 1:
        raise WorkloadError(f"{JOBFILE} should run one job, fio reports {len(report.jobs)}")
    job = report.jobs[0]
    w = job.write
    # fio echoes bs as written (32k, 32768), so the counts are what pins the record size
    expected = file_size_bytes // record_size_bytes
    if w.io_bytes != file_size_bytes or w.total_ios != expected or w.short_ios:
        raise WorkloadError(f"fio wrote {w.io_bytes} B in {w.total_ios} I/Os ({w.short_ios} short); "
                            f"expected {file_size_bytes} B in {expected} writes of {record_size_bytes} B",
                            hint="the target is smaller than the file size, or fio stopped early")
    if w.runtime_ms <= 0:
        raise WorkloadError("fio reports a runtime of 0 ms for the section",
                            hint="use a larger --file-size (fio's runtime has 1 ms granularity)")
    return job


def run_section(target: str | os.PathLike, record_size_bytes: int, file_size_bytes: int, *, runner,
                claim: ExclusiveClaim | None = None, timeout_s: float = 600.0) -> tuple[FioReport, FioJob]:
    """Run one record size through the real fio and return its parsed, checked job.

    Examples
    --------
    >>> from charz.device import SubprocessRunner
    >>> report, job = run_section("/tmp/recsize.dat", 32768, 1 << 20, runner=SubprocessRunner())  # doctest: +SKIP
    >>> job.write.total_ios                                                                         # doctest: +SKIP
    32
    """
    report = run_jobfile(jobfile_path(JOBFILE), target=Path(target), runner=runner, claim=claim,
                         env=section_env(record_size_bytes, file_size_bytes), timeout_s=timeout_s)
    return report, section_job(report, record_size_bytes, file_size_bytes)

"""fio as a workload: argument lists in, frozen results out.

The one-request probe is the command verified in research/ssdprobe.md §2 (strace
shows a single ``pwrite64`` of N bytes at X)::

    fio --name=probe --filename=DEV --rw=write --bs=N --size=N --offset=X \\
        --direct=1 --ioengine=psync --iodepth=1 --numjobs=1 --output-format=json

Caveats of fio's JSON for a single I/O (verified with fio 3.42): ``runtime`` has
1 ms granularity so ``bw_bytes`` is meaningless, percentiles are histogram bins,
and ``slat`` is not recorded for synchronous engines — use ``clat_ns.min`` /
``max`` / ``mean`` when ``N == 1``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from charz.errors import WorkloadError
from charz.workload._claim import ExclusiveClaim, require_claim_for_write

Op = Literal["write", "read"]

#: The job files: ``workloads/`` at the top of the checkout, reached through charz/_data (a copy in a wheel).
WORKLOADS_DIR = Path(__file__).resolve().parents[1] / "_data" / "workloads"

DEFAULT_TIMEOUT_S = 120.0


class CommandRunner(Protocol):
    """Runs an argument list; the device layer's ``SubprocessRunner`` is one."""

    def run(self, argv: Sequence[str], *, timeout_s: float, env: Mapping[str, str] | None = None) -> Any: ...


# -- argument lists -------------------------------------------------------------------

def _arg_size(value: int, name: str, *, allow_zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (value == 0 and not allow_zero):
        raise WorkloadError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} int, got {value!r}")
    return value


def probe_argv(
    filename: str | os.PathLike,
    *,
    size_bytes: int,
    offset_bytes: int,
    op: Op = "write",
    name: str = "probe",
    fio: str = "fio",
) -> tuple[str, ...]:
    """fio arguments for exactly one O_DIRECT request of ``size_bytes`` at ``offset_bytes``.

    Sizes are given in bytes (fio reads a bare number as bytes), so nothing
    depends on fio's k/K unit conventions.  Reads add ``--readonly``, fio's own
    guard against writing.

    Examples
    --------
    >>> probe_argv("/dev/sdX", size_bytes=20480, offset_bytes=1 << 20)
    ('fio', '--name=probe', '--filename=/dev/sdX', '--rw=write', '--bs=20480', '--size=20480', \
'--offset=1048576', '--direct=1', '--ioengine=psync', '--iodepth=1', '--numjobs=1', '--output-format=json')
    """
    if op not in ("write", "read"):
        raise WorkloadError(f"op must be 'write' or 'read', got {op!r}")
    _arg_size(size_bytes, "size_bytes")
    _arg_size(offset_bytes, "offset_bytes", allow_zero=True)
    argv = (
        fio,
        f"--name={name}",
        f"--filename={os.fspath(filename)}",
        f"--rw={op}",
        f"--bs={size_bytes}",
        f"--size={size_bytes}",
        f"--offset={offset_bytes}",
        "--direct=1",
        "--ioengine=psync",
        "--iodepth=1",
        "--numjobs=1",
        "--output-format=json",
    )
    return argv + (("--readonly",) if op == "read" else ())


def jobfile_argv(jobfile: str | os.PathLike, *, fio: str = "fio") -> tuple[str, ...]:
    """fio arguments to run a job file with JSON output.

    >>> jobfile_argv("workloads/probe-write.fio")
    ('fio', '--output-format=json', 'workloads/probe-write.fio')
    """
    return (fio, "--output-format=json", os.fspath(jobfile))


def jobfile_path(name: str, *, workloads_dir: str | os.PathLike | None = None) -> Path:
    """The path of a job file shipped in ``workloads/``.

    >>> jobfile_path("probe-write.fio").name
    'probe-write.fio'
    """
    path = Path(workloads_dir or WORKLOADS_DIR) / name
    if not path.is_file():
        raise WorkloadError(f"no job file {path}",
                            hint="job files ship in workloads/ (charz/_data/workloads in an installed charz)")
    return path


# -- JSON -----------------------------------------------------------------------------

@dataclass(frozen=True)
class LatencyStats:
    """fio's ``slat_ns`` / ``clat_ns`` / ``lat_ns`` object."""

    min_ns: int
    max_ns: int
    mean_ns: float
    stddev_ns: float
    n: int
    #: (percentile, ns) pairs; fio's histogram bins, not exact values.
    percentiles_ns: tuple[tuple[float, int], ...] = ()


@dataclass(frozen=True)
class DirectionStats:
    """One direction (read, write or trim) of a job."""

    io_bytes: int
    bw_bytes_per_s: int
    iops: float
    runtime_ms: int
    total_ios: int
    short_ios: int
    drop_ios: int
    slat: LatencyStats
    clat: LatencyStats
    lat: LatencyStats

    def single_io_latency_ns(self) -> int:
        """Completion latency of the one I/O of a probe (``clat_ns.min``, equal to max and mean).

        Raises
        ------
        WorkloadError
            The job did not do exactly one I/O.
        """
        if self.total_ios != 1 or self.clat.n != 1:
            raise WorkloadError(f"expected exactly one I/O, fio reports {self.total_ios}",
                                hint="use size == bs for a one-request probe")
        return self.clat.min_ns

    def throughput_bytes_per_s(self) -> float:
        """Bandwidth over the job (``bw_bytes``), refused when it is meaningless.

        fio's ``runtime`` has 1 ms granularity, so a job of one or a few I/Os
        gets a number off by orders of magnitude.
        """
        if self.total_ios < 2 or self.runtime_ms < 10:
            raise WorkloadError(
                f"bandwidth is meaningless for {self.total_ios} I/O(s) over {self.runtime_ms} ms",
                hint="use single_io_latency_ns() for probes; run sweeps long enough (>= 10 ms)",
            )
        return float(self.bw_bytes_per_s)


@dataclass(frozen=True)
class FioJob:
    """One job of a fio run."""

    name: str
    groupid: int
    error: int
    options: tuple[tuple[str, str], ...]
    read: DirectionStats
    write: DirectionStats
    trim: DirectionStats

    def option(self, key: str) -> str | None:
        return dict(self.options).get(key)


@dataclass(frozen=True)
class FioReport:
    """A whole fio JSON report."""

    fio_version: str
    timestamp_ms: int
    jobs: tuple[FioJob, ...]

    def job(self, name: str) -> FioJob:
        for job in self.jobs:
            if job.name == name:
                return job
        raise WorkloadError(f"fio report has no job {name!r} (jobs: {', '.join(j.name for j in self.jobs)})")


def _need(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise WorkloadError(f"fio JSON: {where} has no {key!r}")
    return obj[key]


def _num(obj: Any, key: str, where: str, kind: type = int, default: Any = None) -> Any:
    if default is not None and (not isinstance(obj, Mapping) or key not in obj):
        return default
    value = _need(obj, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WorkloadError(f"fio JSON: {where}.{key} is not a number: {value!r}")
    return kind(value)


def _latency(obj: Any, where: str) -> LatencyStats:
    if not isinstance(obj, Mapping):
        raise WorkloadError(f"fio JSON: {where} is not an object")
    pct = obj.get("percentile") or {}
    if not isinstance(pct, Mapping):
        raise WorkloadError(f"fio JSON: {where}.percentile is not an object")
    try:
        percentiles = tuple(sorted((float(k), int(v)) for k, v in pct.items()))
    except (TypeError, ValueError) as exc:
        raise WorkloadError(f"fio JSON: {where}.percentile has a non-numeric entry") from exc
    return LatencyStats(
        min_ns=_num(obj, "min", where),
        max_ns=_num(obj, "max", where),
        mean_ns=_num(obj, "mean", where, float),
        stddev_ns=_num(obj, "stddev", where, float, default=0.0),
        n=_num(obj, "N", where),
        percentiles_ns=percentiles,
    )


def _direction(obj: Any, where: str) -> DirectionStats:
    return DirectionStats(
        io_bytes=_num(obj, "io_bytes", where),
        bw_bytes_per_s=_num(obj, "bw_bytes", where),
        iops=_num(obj, "iops", where, float),
        runtime_ms=_num(obj, "runtime", where),
        total_ios=_num(obj, "total_ios", where),
        short_ios=_num(obj, "short_ios", where, default=0),
        drop_ios=_num(obj, "drop_ios", where, default=0),
        slat=_latency(_need(obj, "slat_ns", where), f"{where}.slat_ns"),
        clat=_latency(_need(obj, "clat_ns", where), f"{where}.clat_ns"),
        lat=_latency(_need(obj, "lat_ns", where), f"{where}.lat_ns"),
    )


def _job(obj: Any, index: int) -> FioJob:
    where = f"jobs[{index}]"
    options = obj.get("job options") or {} if isinstance(obj, Mapping) else {}
    if not isinstance(options, Mapping):
        raise WorkloadError(f"fio JSON: {where}.'job options' is not an object")
    return FioJob(
        name=str(_need(obj, "jobname", where)),
        groupid=_num(obj, "groupid", where, default=0),
        error=_num(obj, "error", where, default=0),
        options=tuple((str(k), str(v)) for k, v in options.items()),
        read=_direction(_need(obj, "read", where), f"{where}.read"),
        write=_direction(_need(obj, "write", where), f"{where}.write"),
        trim=_direction(_need(obj, "trim", where), f"{where}.trim"),
    )


def _json_start(text: str) -> str:
    # fio may print notes ("fio: ...") on stdout before the JSON document
    if text.lstrip().startswith("{"):
        return text
    for i, line in enumerate(text.splitlines(keepends=True)):
        if line.startswith("{"):
            return "".join(text.splitlines(keepends=True)[i:])
    raise WorkloadError("fio printed no JSON document", hint="run the same command by hand to see why")


def parse_fio_json(text: str) -> FioReport:
    """Parse ``fio --output-format=json`` output.

    Raises
    ------
    WorkloadError
        No JSON, or a field this parser relies on is missing or not a number.

    Examples
    --------
    >>> report = parse_fio_json(open(fixture).read())          # doctest: +SKIP
    >>> report.jobs[0].write.single_io_latency_ns()             # doctest: +SKIP
    467726
    """
    try:
        doc = json.loads(_json_start(text))
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"fio JSON is malformed: {exc.msg} at line {exc.lineno}") from exc
    jobs = _need(doc, "jobs", "root")
    if not isinstance(jobs, list):
        raise WorkloadError("fio JSON: 'jobs' is not a list")
    return FioReport(
        fio_version=str(_need(doc, "fio version", "root")),
        timestamp_ms=_num(doc, "timestamp_ms", "root", default=0),
        jobs=tuple(_job(job, i) for i, job in enumerate(jobs)),
    )


# -- running --------------------------------------------------------------------------

def _run(argv: Sequence[str], *, runner: CommandRunner, env: Mapping[str, str] | None,
         timeout_s: float) -> FioReport:
    try:
        result = runner.run(tuple(argv), timeout_s=timeout_s, env=env)
    except FileNotFoundError as exc:
        raise WorkloadError(f"{argv[0]} is not installed", hint="install it: apt-get install fio",
                            code="ENOENT") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorkloadError(f"fio did not finish within {timeout_s:g} s", code="timeout") from exc
    if result.returncode != 0:
        tail = "\n".join((result.stderr.strip() or result.stdout.strip()).splitlines()[-8:])
        raise WorkloadError(
            f"fio exited with status {result.returncode}:\n{tail}",
            hint="fio's message is above; run the same command by hand (charz prints it) to reproduce",
            code=result.returncode,
        )
    report = parse_fio_json(result.stdout)
    for job in report.jobs:
        if job.error:
            raise WorkloadError(f"fio job {job.name!r} failed with error {job.error} ({os.strerror(job.error)})",
                                code=job.error)
    return report


def run_probe(
    filename: str | os.PathLike,
    *,
    size_bytes: int,
    offset_bytes: int,
    runner: CommandRunner,
    op: Op = "write",
    claim: ExclusiveClaim | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> FioJob:
    """Run one fio O_DIRECT request and return its job.

    Writing a block device needs the guard's ``claim``.

    Examples
    --------
    >>> job = run_probe(scratch, size_bytes=20480, offset_bytes=1 << 20, runner=SubprocessRunner())  # doctest: +SKIP
    >>> job.write.single_io_latency_ns()                                                             # doctest: +SKIP
    467726
    """
    if op == "write":
        require_claim_for_write(filename, claim)
    argv = probe_argv(filename, size_bytes=size_bytes, offset_bytes=offset_bytes, op=op)
    report = _run(argv, runner=runner, env=None, timeout_s=timeout_s)
    if len(report.jobs) != 1:
        raise WorkloadError(f"expected one fio job, got {len(report.jobs)}")
    return report.jobs[0]


def run_jobfile(
    jobfile: str | os.PathLike,
    *,
    target: str | os.PathLike,
    runner: CommandRunner,
    env: Mapping[str, str] | None = None,
    claim: ExclusiveClaim | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> FioReport:
    """Run a job file from ``workloads/`` against ``target`` (passed as ``${TARGET}``).

    The job files in ``workloads/`` all write, so a block-device target needs
    the guard's ``claim``; other variables (``SIZE``, ``OFFSET``, ...) go in ``env``.

    Examples
    --------
    >>> run_jobfile(jobfile_path("recsize-sweep.fio"), target="/mnt/test/recsize.dat",
    ...             env={"SWEEP_SIZE": "128m"}, runner=SubprocessRunner())      # doctest: +SKIP
    FioReport(fio_version='fio-3.33', ...)
    """
    require_claim_for_write(target, claim)
    full_env = {**(env or {}), "TARGET": os.fspath(target)}
    return _run(jobfile_argv(jobfile), runner=runner, env=full_env, timeout_s=timeout_s)

"""The mock bench's validation: the real fio on a scratch file, the drive's side from the model.

fio runs the same job as on a bench, against a scratch file on the host's file system, so
the I/O path and the JSON parsing are the real ones.  What the file system did says
nothing about the simulated drive, so the MB/s, current and energy of each record size
come from :func:`charz.sim._stream.play_stream` playing exactly the requests fio issued
(``total_ios`` writes of ``bs``) through the simulated SSD.  Every figure is a model
figure and is labelled so.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from charz.errors import UsageError
from charz.validate._format import format_size
from charz.validate._result import RailVoltage, ValidationResult, build_result
from charz.validate._rows import MODEL, ValidationRow
from charz.validate._sections import JOBFILE, check_sweep, run_section
from charz.validate._unit import MeasuredUnit, is_aligned

__all__ = ["run_mock"]


def _model_notes(model, streams, turnaround_s: float, unit: MeasuredUnit) -> list[str]:
    c = model.currents
    notes = [
        f"model: O_DIRECT writes at queue depth 1, write cache off (003 Table 3), {turnaround_s * 1e6:g} µs of host "
        "turnaround before each request; every request programs its own flash pages and waits for them (no "
        "request merging); noise, hum, ISPP ripple and idle peaks left out (zero mean, or idle-only)",
    ]
    if c.tail_a and c.tail_s:
        notes.append(f"model: the drive's post-I/O tail ({c.tail_a * 1e3:g} mA for {c.tail_s:g} s after each "
                     "completion) is on from the first completion to the end of each stream")
    for s in streams:
        if s.rmw_s > 0:
            notes.append(f"model, {format_size(s.record_size_bytes)}: read-modify-write takes "
                         f"{100 * s.rmw_s / s.duration_s:.0f} % of the time")
        if s.scaled:
            notes.append(f"model, {format_size(s.record_size_bytes)}: the first {s.simulated_requests} of "
                         f"{s.requests} requests were simulated and the time and charge scaled to all of them")
    truth = model.firmware.write_io_unit_bytes
    said = f"the profile says {format_size(unit.value_bytes)}" if unit.known else "no unit was given"
    notes.append(f"mock cross-check: the simulated firmware writes {format_size(truth)} units; {said}")
    return notes


def run_mock(*, model, play_stream: Callable, record_sizes_bytes: Sequence[int], file_size_bytes: int, unit: MeasuredUnit,
             rail: RailVoltage, runner, scratch_dir: str | Path | None = None, turnaround_s: float = 20e-6,
             seed: int = 0, max_requests: int | None = None, timeout_s: float = 600.0,
             log: Callable[[str], None] = lambda text: None,
             advance: Callable[[], None] = lambda: None) -> ValidationResult:
    """Run the sweep's fio sections on a scratch file and model the drive's side.

    Parameters
    ----------
    model : charz.sim.DriveModel
        The simulated drive (``charz.sim.load_preset(name)``).
    play_stream : callable
        ``charz.sim._stream.play_stream``; passed in by the CLI, so this package (runtime
        code) never imports the simulator.
    record_sizes_bytes, file_size_bytes
        The sweep (003: 4 KiB ... 64 KiB, 128 MiB).
    unit : MeasuredUnit
        From ``--profile``, or :data:`charz.validate.NO_PROFILE`.
    rail : RailVoltage
    runner
        Runs fio (``charz.device.SubprocessRunner``).
    scratch_dir : path, optional
        Where the scratch file goes (a file system that accepts O_DIRECT); default the
        system's temporary directory.  The file is removed afterwards.
    turnaround_s, seed, max_requests
        Passed to :func:`charz.sim._stream.play_stream`.
    log, advance
        Told what runs (one line per record size), and called when a record size is done
        (a progress bar).

    Examples
    --------
    >>> from charz.sim import load_preset; from charz.sim._stream import play_stream  # doctest: +SKIP
    >>> r = run_mock(model=load_preset("qpro"), play_stream=play_stream, record_sizes_bytes=[4096, 32768],
    ...              file_size_bytes=1 << 20,
    ...              unit=MeasuredUnit(32768, "test"), rail=RailVoltage.from_option(None),
    ...              runner=SubprocessRunner())                                     # doctest: +SKIP
    >>> [round(row.mb_per_s, 1) for row in r.rows]                                   # doctest: +SKIP
    [2.0, 18.9]
    """
    preset = model.name
    sizes = check_sweep(record_sizes_bytes, file_size_bytes)
    rows: list[ValidationRow] = []
    streams = []
    version = ""
    try:
        scratch = tempfile.TemporaryDirectory(prefix="charz-validate-", dir=scratch_dir)
    except OSError as exc:
        where = scratch_dir if scratch_dir is not None else tempfile.gettempdir()
        raise UsageError(f"cannot make the scratch directory in {where}: {exc.strerror or exc}",
                         hint="give --scratch-dir an existing, writable directory on a file system "
                              "that accepts O_DIRECT") from None
    with scratch as tmp:
        target = Path(tmp) / "recsize.dat"
        for size in sizes:
            log(f"fio: {format_size(size)} records, {format_size(file_size_bytes)} to {target}")
            report, job = run_section(target, size, file_size_bytes, runner=runner, timeout_s=timeout_s)
            version = report.fio_version
            stream = play_stream(model, size, job.write.total_ios, turnaround_s=turnaround_s, seed=seed,
                                 max_requests=max_requests)
            streams.append(stream)
            rows.append(ValidationRow(
                record_size_bytes=size, aligned=is_aligned(size, unit), bytes_written=stream.bytes_written,
                duration_s=stream.duration_s, mean_current_a=stream.mean_current_a, rail_v=rail.volts,
                source=MODEL, fio_total_ios=job.write.total_ios, fio_runtime_ms=job.write.runtime_ms,
                fio_mb_per_s=job.write.bw_bytes_per_s / 1e6))
            advance()
    notes = [f"{version} ran workloads/{JOBFILE} for real, once per record size, on a scratch file (the host's file "
             "system, not the drive); the model played the same writes fio issued (its total_ios × bs); the fio columns "
             "are fio's own figures for the scratch file, which say nothing about the simulated drive"]
    notes += _model_notes(model, streams, turnaround_s, unit)
    return build_result(mode="mock", drive=f"preset {preset} (simulated: {model.description})", preset=preset,
                        file_size_bytes=file_size_bytes, rows=rows, unit=unit, rail=rail, fio_version=version,
                        jobfile=f"workloads/{JOBFILE}", notes=notes, program_time_s=model.timing.t_prog_us * 1e-6)

"""The bench's validation: fio on the claimed device while the scope averages its current.

    claim (guard, O_EXCL) → reach the scope → identify → confirm with the serial → 003 Table 3 settings
      → per record size: fio in a worker thread, scope records back to back → restore

Energy per section is mean current × rail voltage × fio's runtime for the section.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TypeVar

from charz.errors import UsageError
from charz.scope import Scope, ScopeSettings
from charz.validate._format import format_size
from charz.validate._result import RailVoltage, ValidationResult, build_result
from charz.validate._rows import MEASURED, ValidationRow
from charz.validate._scope import CurrentAverage, average_current
from charz.validate._sections import JOBFILE, by_hand, check_sweep, run_section
from charz.validate._unit import MeasuredUnit, is_aligned

__all__ = ["run_bench", "measure_section"]

T = TypeVar("T")


def measure_section(scope: Scope, settings: ScopeSettings, run_fio: Callable[[], T]) -> tuple[T, CurrentAverage]:
    """Run ``run_fio`` in a worker thread and average the scope's current while it runs.

    fio's own errors come back from here; when the scope fails, the section is still
    let finish (the device stays claimed until fio is done) and the scope's error raised.

    Example
    -------
    >>> job, avg = measure_section(scope, averaging_settings(), lambda: run_section(...))   # doctest: +SKIP
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="charz-fio") as pool:
        future = pool.submit(run_fio)
        average = average_current(scope, settings, running=lambda: not future.done())
        return future.result(), average


def _ask_serial(confirmation, confirm_serial: str | None, ask: Callable[[str, str], str | None],
                log: Callable[[str], None]) -> str | None:
    if confirm_serial is None:
        return ask(confirmation.text, confirmation.token_name)
    log(confirmation.text)  # confirmed by a script: still say, in the log, what was confirmed
    return confirm_serial


def run_bench(*, device: str | os.PathLike, scope_resource: str, record_sizes_bytes: Sequence[int],
              file_size_bytes: int, unit: MeasuredUnit, rail: RailVoltage, settings: ScopeSettings,
              runner, ask: Callable[[str, str], str | None], confirm_serial: str | None = None,
              allow_signatures: bool = False, drive_settings: bool = True, output_dir: str | os.PathLike = ".",
              visa_library: str = "@auto", timeout_s: float = 3600.0,
              log: Callable[[str], None] = lambda text: None) -> ValidationResult:
    """Measure the sweep on a real drive.

    Parameters
    ----------
    device : path
        A whole-disk block device; its first ``file_size_bytes`` are overwritten.
    scope_resource : str
        VISA resource of the scope with the current probe.
    settings : ScopeSettings
        Usually :func:`charz.validate.averaging_settings`.
    ask : callable
        ``ask(text, token_name)`` shows the confirmation and returns what was typed (None:
        nobody to ask); ``confirm_serial`` answers it for scripts.
    drive_settings : bool
        Apply 003 Table 3's settings (write cache off, ...) for the sweep and restore them
        after, as ``charz characterize`` does; False leaves the drive as found.

    Raises
    ------
    UnsafeTarget, ConfirmationRequired
        The guard refused the device, or the serial was not confirmed; nothing was written.

    Examples
    --------
    >>> run_bench(device="/dev/sdb", scope_resource="TCPIP::192.168.1.20::4000::SOCKET",
    ...           record_sizes_bytes=DEFAULT_RECORD_SIZES, file_size_bytes=DEFAULT_FILE_SIZE,
    ...           unit=unit, rail=RailVoltage.from_option(None), settings=averaging_settings(),
    ...           runner=SubprocessRunner(), ask=prompt)                              # doctest: +SKIP
    """
    from charz.device import claim_target, confirmation_for, identify, initialize, plan_initialization
    from charz.scope import open_scope
    from charz.scope._models import screen_position_div

    sizes = check_sweep(record_sizes_bytes, file_size_bytes)
    rows: list[ValidationRow] = []
    notes: list[str] = []
    version = ""
    # The scope is reached before anything is asked or written: a wrong address costs only
    # the message (as characterize does it).
    with claim_target(device, output_dir=output_dir, allow_signatures=allow_signatures, runner=runner) as hold, \
            open_scope(scope_resource, visa_library=visa_library) as scope:
        # Zero one division above the bottom of this scope's own screen: the -4 divisions
        # of a Tek are an InfiniiVision's bottom edge, where the idle noise would clip.
        settings = replace(settings, vertical_position_div=screen_position_div(scope))
        ident = identify(hold.path, runner=runner)
        if ident.size_bytes < file_size_bytes:
            raise UsageError(f"{hold.path} holds {ident.size_bytes} B, less than the {file_size_bytes} B file size",
                             hint="give a smaller --file-size")
        confirmation = confirmation_for(
            ident, f"the record-size sweep overwrites the first {format_size(file_size_bytes)} of", hold.report)
        typed = _ask_serial(confirmation, confirm_serial, ask, log)
        confirmation.check(typed)
        drive = f"{ident.model or '(no model reported)'}, serial {ident.serial or '(none)'}, at {hold.path}"
        plan = plan_initialization(ident, erase=None, standby=False) if drive_settings else None
        if plan is not None:
            log(plan.describe())
        settings_ctx = initialize(plan, runner=runner, hold=hold, confirm_serial=typed) if plan \
            else contextlib.nullcontext()
        with settings_ctx as init:
            if init is not None:
                notes += [f"drive setting for the sweep: {a.label} {a.before} → {a.after} (restored afterwards)"
                          for a in init.applied]
                notes += [f"drive setting not applied: {s.label}: {s.reason}" for s in init.skipped]
            else:
                notes.append("drive settings left as found (--keep-drive-settings): the write cache may be on")
            for size in sizes:
                log(f"fio: {format_size(size)} records on {hold.path}, scope averaging "
                    f"{settings.record_length} points at {settings.sample_interval_s:g} s")
                (report, job), average = measure_section(scope, settings, lambda: run_section(
                    hold.path, size, file_size_bytes, runner=runner, claim=hold, timeout_s=timeout_s))
                version = report.fio_version
                rows.append(ValidationRow(
                    record_size_bytes=size, aligned=is_aligned(size, unit), bytes_written=job.write.io_bytes,
                    duration_s=job.write.runtime_ms / 1000.0, mean_current_a=average.mean_a, rail_v=rail.volts,
                    source=MEASURED, fio_total_ios=job.write.total_ios, fio_runtime_ms=job.write.runtime_ms,
                    fio_mb_per_s=job.write.bw_bytes_per_s / 1e6, current_records=average.records,
                    current_sem_a=average.sem_a))
                if average.mean_a is None:
                    notes.append(f"{format_size(size)}: fio finished ({job.write.runtime_ms} ms) before one "
                                 f"{average.window_s:g} s record did; no mean current. Use a larger --file-size "
                                 "or fewer --scope-points")
        notes.append(f"each record size overwrote the first {format_size(file_size_bytes)} of {hold.path}; "
                     f"to repeat one by hand: {by_hand(hold.path, sizes[0], file_size_bytes)}")
        notes.append(f"mean current: records of {settings.record_length} points at {settings.sample_interval_s:g} s "
                     f"({settings.vertical_scale:g} A/div, {settings.channel}) taken while fio ran; "
                     "energy = mean current × rail voltage × fio's runtime")
    return build_result(mode="bench", drive=drive, preset=None, file_size_bytes=file_size_bytes, rows=rows,
                        unit=unit, rail=rail, fio_version=version, jobfile=f"workloads/{JOBFILE}", notes=notes)


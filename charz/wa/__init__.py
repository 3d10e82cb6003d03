"""Write amplification from one die's Ready/Busy pin (RB-Explorer, papers 000/001): the run.

The session layer of ``charz wa``: what a run is asked (``_request``), its plan of steps
and the executor that counts each step's R/B stream on a bench and commits a record
(``_run``), the job files as data (``_jobs``), and the two benches charz owns: a real
drive with fio and sigrok-cli (``_device``) and recordings charz did not make
(``_files``).  The simulated drive's bench is ``charz.sim``'s (the CLI wires it in);
all three answer the :class:`WaBench` protocol (``_bench``).

Below it: the pure counting, checks and Eq. 7 in ``charz.analysis`` (arrays and
numbers in, frozen values out), the archive's files in ``charz.archive``, the analyser
in ``charz.logic``, the drive in ``charz.device``.

Request (``_request``)
    WaRequest, MockOptions             a checked ``charz wa run`` (no Typer needed)
    WaAnalyzeRequest, volumes_for      a checked ``charz wa analyze`` (no Typer needed)
    parse_window, parse_sizes, settle_notes, die_notes, resolve_geometry
Settings, steps, records (``_records``)
    WaSettings, WaStep, WaRecord, DieCount, HostVolume
                                       frozen values; JSON only at the archive
    read_wa                            an archive's settings and records, typed
    closed_form_of                     a mock drive's closed-form inputs, as its archive states them
Benches (``_bench``)
    WaBench, RunningStep               what the executor asks of a bench
Plan and executor (``_run``)
    build_plan, run_plan, create_archive, RunSummary, job_of, step_label, counters_record
Job files (``_jobs``)
    WaJob, job_params, table3_jobs, calibration_job, parse_size, TABLE3_FILES, TABLE3_SIZES
What the records add up to (``_summary``)
    steady_series, SteadySeries, wa_section
                                       steady WA of a sub-test series; the profile's section
The two benches (``_device``, ``_files``)
    DeviceWaBench, sectors_written, SECTOR, FileWaBench, HostVolume, volume_outcome, resolve_channels
"""

from charz.wa._bench import RunningStep, WaBench
from charz.wa._device import SECTOR, DeviceWaBench, sectors_written
from charz.wa._files import FileWaBench, resolve_channels, volume_outcome
from charz.wa._jobs import (
    CALIBRATION_FILE,
    TABLE3_FILES,
    TABLE3_SIZES,
    WaJob,
    calibration_job,
    job_params,
    parse_size,
    table3_jobs,
)
from charz.wa._records import (
    DieCount,
    HostVolume,
    WaRecord,
    WaSettings,
    WaStep,
    closed_form_of,
    read_wa,
)
from charz.wa._analyze_request import WaAnalyzeRequest, volumes_for
from charz.wa._request import (
    BENCH_MIN_GAP_US,
    BENCH_SETTLE_S,
    MockOptions,
    WaRequest,
    die_notes,
    parse_sizes,
    parse_window,
    resolve_geometry,
    settle_notes,
)
from charz.wa._run import (
    RunSummary,
    build_plan,
    counters_record,
    create_archive,
    job_of,
    run_plan,
    step_label,
)
from charz.wa._summary import SteadySeries, steady_series, wa_section

__all__ = [
    "BENCH_MIN_GAP_US", "BENCH_SETTLE_S", "CALIBRATION_FILE", "SECTOR", "TABLE3_FILES", "TABLE3_SIZES",
    "DeviceWaBench", "DieCount", "FileWaBench", "HostVolume", "MockOptions", "RunSummary", "RunningStep", "WaBench",
    "SteadySeries", "steady_series", "wa_section", "WaJob", "WaRecord", "WaRequest", "WaAnalyzeRequest", "volumes_for", "WaSettings", "WaStep", "closed_form_of", "create_archive", "read_wa",
    "step_label",
    "build_plan", "calibration_job", "counters_record", "die_notes", "job_of", "job_params", "parse_size",
    "parse_sizes", "parse_window", "resolve_channels", "resolve_geometry", "run_plan", "sectors_written",
    "settle_notes", "table3_jobs", "volume_outcome",
]

"""The bench WA path: a real drive, the real fio, a logic analyser through the real sigrok-cli.

Before anything is written the target goes through what ``charz characterize``
does (``charz.session.prepared_target``): the guard (never a mounted, held, swap or
signature-carrying device), an ``O_EXCL`` claim for the whole run, identification,
the serial typed back, 003 Table 3's initialization (write cache off) restored at
the end.  Each step then:

1. reads the device's written-sector counter (``/sys/block/X/stat``, field 7);
2. starts ``sigrok-cli --continuous`` on the R/B channel;
3. runs the step's job file with fio (O_DIRECT, volume limit) in a thread;
4. counts until fio is done and R/B has been high for the settle time (000 §4.2);
5. takes L_Volume_Data from fio's JSON (write ``io_bytes``) and checks it against
   the counter's difference × 512; their disagreement is the volume's uncertainty.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace

from charz.device import SubprocessRunner, identify, read_counters
from charz.errors import UsageError, WorkloadError
from charz.logic import LogicSpec, SigrokStream, StepOutcome, find_sigrok_cli, stream_argv
from charz.session import DeviceOptions, claimed_target, prepared_target
from charz.wa._jobs import WaJob
from charz.wa._records import WaStep
from charz.workload import jobfile_path, run_jobfile

__all__ = ["DeviceWaBench", "sectors_written"]

SECTOR = 512  # /sys/block/X/stat counts 512-byte sectors whatever the logical block size


def sectors_written(stat_text: str) -> int:
    """Field 7 of ``/sys/block/X/stat`` (Documentation/block/stat.rst: "write sectors").

    >>> sectors_written("  100 0 800 10   2000 0 16000 50 0 60 60")
    16000
    """
    fields = stat_text.split()
    if len(fields) < 7:
        raise WorkloadError(f"unexpected block stat line: {stat_text!r}")
    return int(fields[6])


def _log_stderr(text: str) -> None:
    lines = [w for line in text.splitlines() for w in (textwrap.wrap(line, 80, subsequent_indent="    ") or [""])]
    print("\n".join(lines), file=sys.stderr)


class _UI:
    def __init__(self, confirm, log=_log_stderr):  # stdout carries the result (JSON with --json)
        self._confirm = confirm
        self._log = log

    def log(self, text: str) -> None:
        self._log(text)

    def confirm(self, text: str, token_name: str) -> str | None:
        return self._confirm(text, token_name)


class _RecordingRunner:
    """The real runner, keeping fio's stdout (its JSON) for the archive."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.stdout = ""

    def run(self, argv, *, timeout_s, env=None):
        r = self.inner.run(argv, timeout_s=timeout_s, env=env)
        self.stdout = r.stdout
        return r


class _Running:
    """A step on the drive: fio in a thread, the analyser's stream (``charz.wa.RunningStep``)."""

    rate_given = False
    train = None  # the stream is live: no file to name

    def __init__(self, bench: "DeviceWaBench", job: WaJob) -> None:
        self.bench = bench
        self.job = job
        self.samplerate_hz = bench.samplerate_hz
        self.bits = list(bench.spec.bits) or [bench.spec.bit]  # an archive from before several dies: one bit
        self.channels = list(bench.spec.channels) or [f"D{b}" for b in self.bits]
        self.stat0 = bench.read_sectors()
        self.counters: dict = {}
        self._read_counters("before")
        self.stream = SigrokStream(stream_argv(bench.spec.driver, ",".join(bench.spec.channels), bench.samplerate_hz,
                                               sigrok=bench.sigrok),
                                   unitsize=1 if max(bench.spec.bits) < 8 else 2,
                                   strip_meta=True)  # a driver that sends its samplerate as META prints it first
        self.runner = _RecordingRunner(SubprocessRunner())
        self.error: BaseException | None = None
        self.report = None

        def work() -> None:
            try:
                self.report = run_jobfile(jobfile_path(job.file), target=bench.hold.path, runner=self.runner,
                                          env=job.env(), claim=bench.hold, timeout_s=24 * 3600)
            except BaseException as exc:  # reported by finish(), in the main thread
                self.error = exc

        self.thread = threading.Thread(target=work, name="fio", daemon=True)
        self.thread.start()

    def _read_counters(self, when: str) -> None:
        """The drive's SMART write counters (smartctl; OCP C0h on NVMe); a failure is kept as a note."""
        if self.counters.get("error"):
            return
        try:
            self.counters[when] = read_counters(self.bench.hold.path, SubprocessRunner(),
                                                nvme="nvme" in Path(self.bench.hold.path).name)
        except Exception as exc:  # smartctl missing, a timeout: the R/B measurement goes on
            self.counters = {"error": f"reading the drive's counters ({when}): {exc}"}

    def workload_done(self) -> bool:
        return not self.thread.is_alive()

    def progress(self, samples_seen: int) -> tuple[float, str]:
        """How far the step is: the bytes the block layer has written since it began
        (``/sys/block/X/stat``) against the job's volume."""
        if self.workload_done():
            return 1.0, "fio done"
        written = (self.bench.read_sectors() - self.stat0) * SECTOR
        return min(1.0, written / self.job.volume_bytes), "fio writing"

    def finish(self) -> StepOutcome:
        self.thread.join()
        self._read_counters("after")
        if self.error is not None:
            raise self.error
        written = sum(j.write.io_bytes for j in self.report.jobs)
        by_stat = (self.bench.read_sectors() - self.stat0) * SECTOR
        return StepOutcome(written, float(abs(by_stat - written)),
                           f"fio's JSON (write io_bytes {written} B); /sys/block stat says {by_stat} B",
                           fio_json=self.runner.stdout)


_IDENTITY = ("model", "serial", "size_bytes", "transport")


def _check_same_drive(hold, expected: dict) -> None:
    ident = identify(hold.path, runner=SubprocessRunner())
    now = {"model": ident.model, "serial": ident.serial, "size_bytes": ident.size_bytes,
           "transport": str(ident.transport)}
    differ = [f"{k} {now[k]!r} (the run's: {expected.get(k)!r})" for k in _IDENTITY if now[k] != expected.get(k)]
    if differ:
        raise UsageError(f"{hold.path} is not the drive this run measured: {'; '.join(differ)}",
                         hint="resume only on the drive the run started on (--device names where it is now); "
                              "nothing was written")


class DeviceWaBench:
    """A real drive, the real fio and sigrok-cli (``charz.wa.WaBench``); see the module docstring."""

    kind = "device"

    def __init__(self, hold, drive: dict, init: dict, spec: LogicSpec, samplerate_hz: float, settle_s: float,
                 sigrok: str = "sigrok-cli") -> None:
        self.hold = hold
        self.sigrok = sigrok
        self.bits = list(spec.bits)
        self.channels = list(spec.channels)
        self.drive = drive
        self.init = init
        self.spec = spec
        self.samplerate_hz = samplerate_hz
        self.settle_s = settle_s
        self.bit = spec.bit

    @classmethod
    @contextlib.contextmanager
    def open(cls, device: Path, spec: LogicSpec, *, out: Path, samplerate_hz: float,
             settle_s: float, confirm_serial: str | None, confirm, expect_drive: dict | None = None,
             sigrok: str | None = None, earlier: list | None = None, journal=None):
        """Check, claim, identify, confirm and initialize ``device``.  With ``expect_drive``
        (a resume: the archive's ``bench.drive``) a drive whose model, serial, size or
        transport differ is refused right after the claim, before anything is asked or
        changed; a drive without a serial (a loop device) is told by the other three.
        ``earlier`` are the archive's initialization records (what a killed run left changed
        is put back with the value first found); ``journal`` is called with the
        initialization's record before each change and after the restore."""
        exe = find_sigrok_cli(sigrok)  # before the drive is touched
        config = SimpleNamespace(target=str(device), target_is_scratch=False)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        options = DeviceOptions(confirm_serial=confirm_serial, standby=False)
        with claimed_target(config, Path(out), options) as hold:
            if expect_drive is not None:
                _check_same_drive(hold, expect_drive)
            with prepared_target(config, hold, options, _UI(confirm), span_bytes=0,
                                  action="the write-amplification workloads (fio) overwrite the whole of",
                                  earlier=earlier, journal=journal) as (drive, init):
                yield cls(hold, drive, init, spec, samplerate_hz, settle_s, sigrok=exe)

    def describe(self) -> dict:
        return {"kind": "device", "drive": self.drive, "initialization": self.init,
                "analyser": {"driver": self.spec.driver, "channel": self.spec.channel, "bit": self.spec.bit,
                             "channels": list(self.spec.channels), "bits": list(self.spec.bits),
                             "sigrok": self.sigrok}}

    def read_sectors(self) -> int:
        name = self.hold.report.kernel_name if self.hold.report else Path(self.hold.path).name
        return sectors_written(Path(f"/sys/class/block/{name}/stat").read_text())

    def start(self, index: int, step: WaStep, job: WaJob) -> _Running:
        return _Running(self, job)

    def cleanup(self, index: int) -> None:
        """Nothing kept per step: fio's JSON is in the archive."""

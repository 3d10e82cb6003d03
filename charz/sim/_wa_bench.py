"""The mock WA bench: the simulated FTL behind the real sigrok-cli.

Each step runs the request stream the step's fio job file describes through the
simulated drive (``charz.sim.ftl``), takes die 0's R/B operations, renders them at
the analyser's samplerate, writes a sigrok session file and streams it back
through ``sigrok-cli -i FILE -O binary`` — the bytes charz counts are sigrok's.
The drive's own true WA comes along for 000 §4.3's check (Eq. 9).

Drive state per step kind: a Table 3 benchmark gets a fresh drive filled once
sequentially (so garbage collection runs, as on a used drive); the calibration a
fresh, empty drive (true WA 1, 000 §3.5); sub-tests share one drive per series
(000 Fig. 10: the first carries the initial fill) — on resume the series' earlier
sub-tests are replayed into the drive, uncounted, since the simulator is seeded.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from charz.logic import SessionMeta, SigrokStream, StepOutcome, file_argv, place_pulses, render_chunks, write_session
from charz.sim._smart import counter_texts
from charz.sim.ftl import FtlConfig, SimDrive, Workload, make_requests, user_bytes_for_op_percent

__all__ = ["closed_form_inputs", "FTL_CHOICES", "MOCK_MIN_GAP_US", "MOCK_SETTLE_S", "MockWaBench", "ftl_options", "mock_config"]

FTL_CHOICES = ("greedy", "cost-benefit", "wolf", "fdp", "nvm", "cdm")

KIND_PROGRAM = 1

# The mock's own stop rule and gaps (a self-check, not 000's bench): its replay ends each
# train with 1.5 × the settle time of high, so it need not wait 000's five minutes; and it
# puts at least MOCK_MIN_GAP_US of high between two operations, which --samplerate 100k resolves.
MOCK_SETTLE_S = 0.05
MOCK_MIN_GAP_US = 20.0


def mock_config(**kw) -> FtlConfig:
    """The default mock drive, after 000 Table 2's SSD-v scaled down: 4 channels × 1 chip ×
    1 die, 2 planes, 4 KiB pages, MLC, OP 2/14 (SSD-v: 16 GB physical, 14 GB user),
    256 MiB physical; multi-plane programs so the calibration has an M_p to find.

    Garbage collection works on lines — the block of one index on every die, written a
    program at a time on each die in turn (FEMU's and pblk's lines, the superblock FTL
    000 cites as [29]) — so every die does the same work, as 000 §3.2.3 takes a drive to
    do.  ``lines=False`` collects each die on its own (MQSim's per-plane GC): at 128 MiB
    per benchmark one die's count then strays from the mean by up to 10 %.  The papers'
    block managers (``policy`` wolf, nvm, cdm) run on lines as well: a Wolf group's or a
    cache's units are then lines."""
    base = dict(channels=4, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=64,
                pages_per_block=128, page_size=4096, over_provisioning=2 / 14, gc="greedy", multi_plane=True,
                write_cache=False, cell="MLC", seed=0)
    base.update(kw)
    if base.get("lines") is None:
        base["lines"] = True
    return FtlConfig(**base)



def closed_form_inputs(cfg: FtlConfig) -> dict | None:
    """What the uniform closed forms (``charz wa model``, the report's models figure) need of
    this drive, stated by the simulator itself and archived as ``bench.closed_form``:
    physical pages, page size, the pages of the erase unit its GC picks (a line over every
    die's planes, a die's multi-plane block, or one block) and units per GC pool, and the
    units its GC keeps free beyond the spare (docs/ftl.md: a reserve of 1, collects until 2
    are).  None unless the drive is a plain greedy one: the formulas describe no other."""
    if cfg.policy != "plain" or cfg.gc != "greedy" or cfg.write_cache:
        return None
    return {"physical_pages": cfg.physical_pages, "page_size": cfg.page_size, "pages_per_unit": cfg.pages_per_unit,
            "units_per_pool": cfg.units_per_pool, "held_units": [1.0, 2.0]}


def ftl_options(name: str, nvm_cache_bytes: int) -> dict:
    """``FtlConfig`` fields for a block manager named as ``--mock-ftl`` names it."""
    if name not in FTL_CHOICES:
        raise ValueError(f"--mock-ftl must be one of {', '.join(FTL_CHOICES)}, not {name!r}")
    if name in ("greedy", "cost-benefit"):
        return {"gc": name}
    if name == "wolf":
        return {"policy": "wolf"}
    if name == "fdp":
        return {"policy": "wolf", "wolf_fdp": True}
    if nvm_cache_bytes <= 0:
        raise ValueError(f"--mock-ftl {name} needs an NVM cache: --mock-nvm-cache SIZE (e.g. 8m)")
    return {"policy": name, "nvm_cache_bytes": nvm_cache_bytes}


class _Running:
    """A step of the mock: one die's pulses (bit 0 of the session file) replayed by sigrok-cli
    (``charz.wa.RunningStep``)."""

    rate_given = False
    bits = [0]  # the session file's one probe
    channels = ["D0"]

    def __init__(self, stream: SigrokStream, outcome: StepOutcome, train_info: dict, samplerate_hz: float,
                 counters: dict | None = None) -> None:
        self.stream = stream
        self._outcome = outcome
        self.train = train_info
        self.samplerate_hz = samplerate_hz
        self.counters = counters  # the drive's SMART JSON before and after, as the tools print it

    def workload_done(self) -> bool:
        return True  # the simulated run finished before its pulses were written

    def progress(self, samples_seen: int) -> tuple[float, str]:
        """How far the step is: the session file's samples sigrok has delivered."""
        total = self.train["samples"]
        return (min(1.0, samples_seen / total) if total else 1.0), "sigrok replay"

    def finish(self) -> StepOutcome:
        return self._outcome


class MockWaBench:
    """``charz wa run --mock``'s bench (``charz.wa.WaBench``): see the module docstring."""

    kind = "mock"

    def __init__(self, cfg: FtlConfig, workdir: Path, *, samplerate_hz: float, settle_s: float,
                 sigrok: str = "sigrok-cli", keep_sr: bool = False, counters: str = "micron") -> None:
        self.cfg = cfg
        self.counters = counters  # which real family's SMART counters the drive reports (charz.sim._smart)
        self.workdir = Path(workdir)
        self.samplerate_hz = samplerate_hz
        self.settle_s = settle_s
        self.sigrok = sigrok
        self.keep_sr = keep_sr
        self._series: dict[str, tuple[SimDrive, int]] = {}

    def describe(self) -> dict:
        return {"kind": "mock", "ftl": {k: v for k, v in dataclasses.asdict(self.cfg).items()}, "min_gap_us": MOCK_MIN_GAP_US,
                "analyser": f"sigrok session file read back by {self.sigrok} -i", "counters": self.counters,
                "closed_form": closed_form_inputs(self.cfg)}

    def geometry_values(self) -> tuple[int, int, int, int]:
        """Eq. 7's constants as the simulated drive has them (channels, chips/ch, dies/chip, page)."""
        c = self.cfg
        return c.channels, c.chips_per_channel, c.dies_per_chip, c.page_size

    # -- drives ---------------------------------------------------------------

    def _fresh(self, fill: float | None) -> SimDrive:
        d = SimDrive(self.cfg)
        if fill:
            d.precondition(fill)
        return d

    def _series_drive(self, step, job) -> SimDrive:
        key = f"op{step.op_percent}"
        k = int(step.subtest)
        drive, done = self._series.get(key, (None, 0))
        if drive is None or done > k:
            drive = SimDrive(self.cfg)
            if step.op_percent is not None:
                drive.set_user_space(user_bytes_for_op_percent(drive, float(step.op_percent)))
            drive.precondition(1.0, carry=True)
            done = 0
        while done < k:  # resume: replay the series' earlier sub-tests, uncounted
            drive.run(make_requests(self._workload(job, seed=1 + done), drive.user_bytes))
            done += 1
        self._series[key] = (drive, k + 1)
        return drive

    @staticmethod
    def _workload(job, seed: int) -> Workload:
        return Workload(write_fraction=job.write_fraction, random=job.random, aligned=job.aligned,
                        block_size=job.block_size, volume_bytes=job.volume_bytes, seed=seed)

    # -- one step -------------------------------------------------------------

    def start(self, index: int, step, job) -> _Running:
        """Step ``index`` (a ``charz.wa.WaStep``) of job ``job`` on the drive its kind wants."""
        kind = step.kind
        if kind == "calibrate":
            drive = self._fresh(None)
        elif kind == "subtest":
            drive = self._series_drive(step, job)
        else:
            drive = self._fresh(1.0)
        seed = 1 + int(step.subtest or 0)
        before = counter_texts(drive.lifetime_counters, self.cfg.page_size, self.counters)
        res = drive.run(make_requests(self._workload(job, seed), drive.user_bytes))
        after = counter_texts(drive.lifetime_counters, self.cfg.page_size, self.counters)
        tr = res.rb_trace(die=0)
        train = place_pulses(tr.start_us, tr.width_us, self.samplerate_hz, tail_us=self.settle_s * 1e6 * 1.5,
                             min_gap_us=MOCK_MIN_GAP_US)
        self.workdir.mkdir(parents=True, exist_ok=True)
        path = self.workdir / f"{index:04d}.sr"
        write_session(path, render_chunks(train), SessionMeta(self.samplerate_hz, ("RB",)))
        truth = {"true_wa": res.true_wa, "flash_pages_programmed": int(res.flash_pages_programmed),
                 "host_bytes_written": int(res.host_bytes_written),
                 "initial_bytes_written": int(res.initial_bytes_written),
                 "die0_program_pulses": int(res.die_program_ops[0]),
                 "die_program_pulses": [int(x) for x in res.die_program_ops],
                 "gc_copies": int(res.gc_copies), "erases": int(res.erases), **res.policy_counts,
                 "user_bytes": int(drive.user_bytes), "pulses_moved": train.moved}
        # The host's written bytes from the request stream: what fio's JSON reports on a bench.
        outcome = StepOutcome(int(res.host_bytes_written), 0.0, "the simulated request stream (fio's write io_bytes)",
                              truth=truth)
        stream = SigrokStream(file_argv(path, sigrok=self.sigrok))
        counters = {"before": before, "after": after}
        if res.initial_bytes_written:
            counters["note"] = ("read after the initial fill, which R/B's first sub-test includes (000 Fig. 10): "
                                "the two differ there by design")
        return _Running(stream, outcome, {"sr_file": path.name, "samples": train.total_samples}, self.samplerate_hz,
                        counters)

    def cleanup(self, index: int) -> None:
        if not self.keep_sr:
            (self.workdir / f"{index:04d}.sr").unlink(missing_ok=True)

"""A ``charz wa`` run as data (a plan of steps) and a small executor over a bench.

Plan: step 0 calibrates M_p (000 §3.5) unless M_p is given; then 000 Table 3's
micro-benchmarks, sub-tests of one workload (000 Fig. 10, WALVD) and an
over-provisioning sweep (000 Table 4) as asked.  The plan is stored in the
archive, so ``charz wa resume`` runs exactly the steps that have no record.

Each step: the bench starts the workload and its R/B stream; the counter counts
until the stop rule holds (000 §4.2); the counts are checked (``_wa_checks``);
Eq. 7 gives WA with its uncertainty; the step is committed.  A step whose stream
failed is kept as ``NNNN.partial.json`` (counts so far, the error) and is not
committed, so a resume runs it again.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from charz.analysis import PulseCounter, Quantity, WaGeometry, calibrate_mp, check_counts, re_wa, wa_eq7
from charz.archive import WaArchive, write_atomic
from charz.device import counter_wa, counters_from_texts
from charz.errors import DeviceError, LogicError
from charz.logic import CountResult, StepOutcome, count_until_settled
from charz.wa._bench import RunningStep, WaBench
from charz.wa._jobs import TABLE3_FILES, TABLE3_SIZES, WaJob, calibration_job, job_params
from charz.wa._records import DieCount, WaRecord, WaSettings, WaStep

__all__ = ["build_plan", "run_plan", "RunSummary", "job_of", "counters_record", "create_archive"]


def build_plan(*, volume_bytes: int, benchmarks: bool = True, files=TABLE3_FILES, sizes=TABLE3_SIZES,
               calibrate: bool = True, calibration_bytes: int | None = None, subtests: int = 0,
               subtest_file: str = "wa-w100-rd-align.fio", subtest_bs: int = 4096,
               op_percents: tuple[float, ...] = ()) -> list[WaStep]:
    plan: list[WaStep] = []
    if calibrate:
        plan.append(WaStep("calibrate", "wa-calibrate.fio", bs=None, volume=calibration_bytes or volume_bytes))
    if benchmarks:
        plan += [WaStep("benchmark", f, bs=bs, volume=volume_bytes) for f in files for bs in sizes]
    for op in (op_percents or ((None,) if subtests else ())):
        plan += [WaStep("subtest", subtest_file, bs=subtest_bs, volume=volume_bytes, subtest=k, op_percent=op)
                 for k in range(max(subtests, 1))]
    return plan


def create_archive(path: str | os.PathLike, settings: WaSettings) -> WaArchive:
    """A new WA archive holding ``settings`` (the one place they become JSON)."""
    return WaArchive.create(path, settings.to_dict())


def job_of(step: WaStep) -> WaJob:
    if step.kind == "calibrate":
        return calibration_job(int(step.volume))
    return job_params(step.file, int(step.bs), int(step.volume))


def step_label(step: WaStep, job: WaJob | None) -> str:
    """000's name of a step: Table 3's for a benchmark, Fig. 10's "sub-test k" for a sub-test."""
    if step.kind == "subtest":  # 000 Fig. 10's "5G-k": sub-test k of one workload
        return (f"OP {step.op_percent:g} % " if step.op_percent else "") + \
            f"sub-test {step.subtest + 1} ({job.label.split('-4KiB')[0]})"
    return step.label or ("M_p calibration" if step.kind == "calibrate" else job.label)


@dataclass(frozen=True)
class RunSummary:
    """A run's settings and committed steps (typed), the steps not trusted, and M_p."""

    settings: WaSettings
    records: dict[int, WaRecord]
    untrusted: list[int]
    m_p: Quantity | None


def _mp_from(settings: WaSettings, records: Mapping[int, WaRecord]) -> Quantity | None:
    """M_p as given, else as the calibration step found it (None before it ran)."""
    if settings.m_p_given:
        return Quantity.given(int(settings.m_p_given), "pages/pulse")
    for r in records.values():
        if r.step.kind == "calibrate":
            mp = r.m_p
            if mp.value is None:
                return Quantity.undetermined("pages/pulse", "inferred", mp.evidence)
            return Quantity(mp.value, "pages/pulse", mp.origin, confidence=mp.confidence, evidence=mp.evidence)
    return None


def _step_watcher(running, counter: PulseCounter, settle_s: float, report: Callable[[float, str], None],
                  every_s: float = 0.25) -> Callable[[int], None]:
    """An ``on_chunk`` for :func:`count_until_settled` telling ``report`` how far a long
    step is (at most every ``every_s``): the bench's own measure of its workload (the
    block layer's written bytes, a replay's samples), then the R/B settle wait."""
    seen = [0, -math.inf]

    def on_chunk(n: int) -> None:
        seen[0] += n
        now = time.monotonic()
        if now - seen[1] < every_s:
            return
        seen[1] = now
        frac, text = running.progress(seen[0])
        if frac >= 1.0 and running.workload_done() and settle_s > 0:
            high = min(counter.counts.high_for_us / 1e6, settle_s)
            text = f"R/B high {high:.3g} of {settle_s:g} s"
        report(frac, text)

    return on_chunk


def _hidden_erases(wa: float, dies: list[DieCount], gc_wa: float = 1.1, copy_reads: float = 0.01) -> str | None:
    """Garbage collection — WA above 1 *and* reads beside the programs (a copy reads the page
    it programs) — erases blocks; a count with no erase anywhere (neither in the erase window,
    nor beyond it, nor counted apart) has them among the programs: the window holds them
    (000 §4.3).  WA above 1 alone is not enough: sub-page writes (read-modify-write, 000
    Eq. 10) and data written before the count (000 Fig. 10's first sub-test) raise it too."""
    if wa <= gc_wa:
        return None
    seen = sum(d.counts.erases + d.counts.other + d.erases_in_window for d in dies)
    reads = sum(d.counts.reads for d in dies)
    programs = sum(d.programs for d in dies)
    if seen or reads < copy_reads * programs:
        return None
    return (f"erases: WA {wa:.2f} with {reads} reads beside the programs looks like garbage collection, which "
            "erases blocks, but no erase pulse was seen outside the program window: they are likely inside it, "
            "counted as programs (000 §4.3); the count is an upper bound")


def counters_record(texts: dict) -> dict:
    """The drive's own counters around a step: both reads as parsed, their WA, or why not.
    A counter that cannot be read costs a note, never the step: R/B is the measurement."""
    if texts.get("error"):
        return {"error": texts["error"]}
    try:
        before, after = counters_from_texts(texts["before"]), counters_from_texts(texts["after"])
        wa = counter_wa(before, after)
        if texts.get("note"):
            wa.notes.append(texts["note"])
        return {"before": before.to_dict(), "after": after.to_dict(), "wa": wa.to_dict()}
    except DeviceError as exc:
        return {"error": str(exc)}


def _write_partial(archive: WaArchive, index: int, doc: dict) -> None:
    write_atomic(archive.root / "steps" / f"{index:04d}.partial.json",
                 lambda f: f.write(json.dumps(doc, indent=1).encode()))


def _dies(res: CountResult, names: list[str], s: WaSettings, host_wrote: bool) -> tuple[list[DieCount], list[str],
                                                                                        list[str]]:
    """Each counted die's programs (erases counted apart taken out) and the checks'
    errors and warnings, each said once (prefixed by the die's name when several)."""
    errors: list[str] = []
    warnings: list[str] = []
    dies = []
    for name, cc in zip(names, res.all_counts or (res.counts,)):
        chk = check_counts(cc, settled=cc.high_for_us >= s.settle_s * 1e6, settle_s=s.settle_s,
                           host_wrote=host_wrote, min_gap_us=s.min_gap_us, pages_per_block=s.pages_per_block)
        tag = f"{name}: " if len(names) > 1 else ""
        errors += [tag + e for e in chk.errors if tag + e not in errors]
        warnings += [tag + w for w in chk.warnings if tag + w not in warnings]
        dies.append(DieCount(name, cc, chk.erases_in_window, cc.programs - chk.erases_in_window,
                             cc.partial + (1 if cc.open_us else 0)))
    return dies, errors, warnings


def _wa_parts(step: WaStep, dies: list[DieCount], outcome: StepOutcome, geometry: WaGeometry, s: WaSettings,
              mp_known: Quantity | None) -> dict:
    """M_p (a calibration), WA by Eq. 7 and the errors that stop either (a dict of
    :class:`WaRecord` fields: ``m_p``, ``estimate``, ``errors``, ``die_spread``)."""
    per_die = [d.programs for d in dies]
    n = per_die[0]
    die_counts = per_die if len(per_die) > 1 else None
    out: dict = {"errors": []}
    if die_counts:
        mean = sum(per_die) / len(per_die)
        out["die_spread"] = {"programs": per_die, "mean": mean,
                             "spread": (max(per_die) - min(per_die)) / mean if mean else None}
    kw = dict(u_logical_bytes=outcome.u_logical_bytes, cut_pulses=max(d.cut for d in dies), die_counts=die_counts)
    if step.kind == "calibrate":
        mp = calibrate_mp(n, geometry, outcome.logical_bytes, planes=s.planes, **kw)
        out["m_p"] = mp
        if not mp.known:
            out["errors"].append(f"M_p cannot be told: {mp.evidence}")
        else:
            out["estimate"] = wa_eq7(n, mp, geometry, outcome.logical_bytes, volume_evidence=outcome.volume_evidence,
                                     **kw)
        return out
    if mp_known is None or not mp_known.known or outcome.logical_bytes <= 0:
        out["errors"].append("no WA: M_p is not known (calibration failed or missing)"
                             if outcome.logical_bytes > 0 else "no WA: the host wrote nothing")
        return out
    est = wa_eq7(n, mp_known, geometry, outcome.logical_bytes, volume_evidence=outcome.volume_evidence, **kw)
    out["estimate"] = est
    hidden = _hidden_erases(est.wa.value, dies)
    if hidden:
        out["errors"].append(hidden)
    return out


def _count(running: RunningStep, counters: list[PulseCounter], s: WaSettings, watch) -> CountResult:
    try:
        return count_until_settled(running.stream, counters, settle_s=s.settle_s,
                                   workload_done=running.workload_done, byte_index=[b // 8 for b in running.bits],
                                   max_wait_s=s.settle_timeout_s, on_chunk=watch)
    finally:
        running.stream.close()


def _run_step(archive: WaArchive, bench: WaBench, s: WaSettings, geometry: WaGeometry, done: Mapping[int, WaRecord],
              index: int, step: WaStep, label: str, job: WaJob | None,
              step_progress) -> tuple[WaRecord, StepOutcome]:
    """Start, count, finish and judge one step; a failed stream or workload leaves a
    ``NNNN.partial.json`` and raises, so nothing is committed and a resume runs it again."""
    running = bench.start(index, step, job)
    rate = running.samplerate_hz
    counters = [PulseCounter(rate, s.windows, bit=b % 8) for b in running.bits]
    watch = _step_watcher(running, counters[0], s.settle_s, step_progress) if step_progress else None
    res = _count(running, counters, s, watch)
    try:
        outcome = running.finish()
    except Exception as exc:  # fio failed: keep the counts, then report fio's error
        _write_partial(archive, index, {"step": step.to_dict(), "label": label, "counts": res.counts.to_dict(),
                                        "errors": [str(exc)]})
        raise
    dies, errors, warnings = _dies(res, running.channels, s, outcome.logical_bytes > 0)
    fields = dict(step=step, job=job, label=label, counts=res.counts, settled=res.settled,
                  warnings=tuple(warnings), logical_bytes=outcome.logical_bytes,
                  u_logical_bytes=outcome.u_logical_bytes, volume_evidence=outcome.volume_evidence,
                  truth=outcome.truth, stream=running.train, dies=tuple(dies))
    if res.error:
        errors.append(f"the stream failed: {res.error}")
        _write_partial(archive, index, WaRecord(errors=tuple(errors), **fields).to_dict())
        raise LogicError(f"step {index} ({label}): {res.error}",
                         hint=f"counts up to the failure are in {archive.root}/steps/{index:04d}.partial.json; "
                              f"fix the cause and run: charz wa resume {archive.root}")
    meta = running.stream.meta_samplerate_hz
    if meta and abs(meta - rate) > 1e-6 * rate and not running.rate_given:
        errors.append(f"sigrok-cli says the samples come at {meta / 1e3:g} kS/s, counted at "
                      f"{rate / 1e3:g} kS/s: every width is off by that ratio; set the samplerate "
                      "the analyser really runs at")
    parts = _wa_parts(step, dies, outcome, geometry, s, None if step.kind == "calibrate" else _mp_from(s, done))
    errors += parts.pop("errors")
    drive_counters = counters_record(running.counters) if running.counters else None
    est = parts.get("estimate")
    true_wa = (outcome.truth or {}).get("true_wa")
    rel = re_wa(est.wa.value, true_wa) if est is not None and true_wa else None
    return WaRecord(errors=tuple(errors), counters=drive_counters, re_wa=rel, **parts, **fields), outcome


def run_plan(archive: WaArchive, bench: WaBench, *, log: Callable[[str], None] = print,
             progress: Callable[[int, int, str], None] | None = None,
             step_progress: Callable[[float, str], None] | None = None) -> RunSummary:
    """Run the plan's steps that have no record.  ``progress(i, n, label)`` as each step
    starts; ``step_progress(fraction, text)`` within a step (see ``_step_watcher``)."""
    s = WaSettings.from_dict(archive.settings)
    geometry = s.geometry  # Eq. 7's constants as the run was asked (and archived) with
    done = {i: WaRecord.from_dict(r) for i, r in archive.records.items()}
    for index, step in enumerate(s.plan):
        if index in done:
            continue
        job = None if step.recorded else job_of(step)
        label = step_label(step, job)
        if progress:
            progress(index, len(s.plan), label)
        record, outcome = _run_step(archive, bench, s, geometry, done, index, step, label, job, step_progress)
        archive.commit(index, record.to_dict(), fio_json=outcome.fio_json)
        done[index] = record
        bench.cleanup(index)
        for e in record.errors:
            log(f"step {index} ({label}): {e}")
    if progress:
        progress(len(s.plan), len(s.plan), "done")
    untrusted = [i for i, r in sorted(done.items()) if not r.trusted]
    return RunSummary(WaSettings.from_dict(archive.settings), done, untrusted, _mp_from(s, done))

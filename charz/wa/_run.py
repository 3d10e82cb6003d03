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
import time
from collections.abc import Callable
from dataclasses import dataclass

from charz.analysis import PulseCounter, PulseWindows, Quantity, WaGeometry, calibrate_mp, check_counts, re_wa, wa_eq7
from charz.archive import WaArchive, write_atomic
from charz.device import counter_wa, counters_from_texts
from charz.errors import DeviceError, LogicError
from charz.logic import count_until_settled
from charz.wa._jobs import TABLE3_FILES, TABLE3_SIZES, WaJob, calibration_job, job_params

__all__ = ["build_plan", "run_plan", "RunSummary", "job_of", "counters_record"]


def build_plan(*, volume_bytes: int, benchmarks: bool = True, files=TABLE3_FILES, sizes=TABLE3_SIZES,
               calibrate: bool = True, calibration_bytes: int | None = None, subtests: int = 0,
               subtest_file: str = "wa-w100-rd-align.fio", subtest_bs: int = 4096,
               op_percents: tuple[float, ...] = ()) -> list[dict]:
    plan: list[dict] = []
    if calibrate:
        plan.append({"kind": "calibrate", "file": "wa-calibrate.fio", "bs": None,
                     "volume": calibration_bytes or volume_bytes})
    if benchmarks:
        plan += [{"kind": "benchmark", "file": f, "bs": bs, "volume": volume_bytes} for f in files for bs in sizes]
    for op in (op_percents or ((None,) if subtests else ())):
        plan += [{"kind": "subtest", "file": subtest_file, "bs": subtest_bs, "volume": volume_bytes,
                  "subtest": k, "op_percent": op} for k in range(max(subtests, 1))]
    return plan


def job_of(step: dict) -> WaJob:
    if step["kind"] == "calibrate":
        return calibration_job(int(step["volume"]))
    return job_params(step["file"], int(step["bs"]), int(step["volume"]))


@dataclass
class RunSummary:
    records: dict[int, dict]
    untrusted: list[int]
    m_p: dict | None


def _mp_from(archive: WaArchive) -> Quantity | None:
    given = archive.settings.get("m_p_given")
    if given:
        return Quantity.given(int(given), "pages/pulse")
    for r in archive.records.values():
        if r["step"]["kind"] == "calibrate":
            mp = r["m_p"]
            if mp["value"] is None:
                return Quantity.undetermined("pages/pulse", "inferred", mp.get("evidence", ""))
            return Quantity(mp["value"], "pages/pulse", mp["origin"], confidence=mp["confidence"],
                            evidence=mp.get("evidence", ""))
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


def _hidden_erases(wa: float, dies: list[dict], gc_wa: float = 1.1, copy_reads: float = 0.01) -> str | None:
    """Garbage collection — WA above 1 *and* reads beside the programs (a copy reads the page
    it programs) — erases blocks; a count with no erase anywhere (neither in the erase window,
    nor beyond it, nor counted apart) has them among the programs: the window holds them
    (000 §4.3).  WA above 1 alone is not enough: sub-page writes (read-modify-write, 000
    Eq. 10) and data written before the count (000 Fig. 10's first sub-test) raise it too."""
    if wa <= gc_wa:
        return None
    seen = sum(d["counts"]["erases"] + d["counts"]["other"] + d["erases_in_window"] for d in dies)
    reads = sum(d["counts"]["reads"] for d in dies)
    programs = sum(d["programs"] for d in dies)
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


def run_plan(archive: WaArchive, bench, *, log: Callable[[str], None] = print,
             progress: Callable[[int, int, str], None] | None = None,
             step_progress: Callable[[float, str], None] | None = None) -> RunSummary:
    """Run the plan's steps that have no record.  ``progress(i, n, label)`` as each step
    starts; ``step_progress(fraction, text)`` within a step (see ``_step_watcher``)."""
    s = archive.settings
    windows = PulseWindows.from_dict(s["windows"])
    if hasattr(bench, "geometry_values"):  # the mock: its configuration, as given
        geometry = WaGeometry.given(*bench.geometry_values(), evidence="the simulated drive's configuration")
    else:
        geometry = bench.geometry()
    plan = s["plan"]
    for index, step in enumerate(plan):
        if index in archive.records:
            continue
        job = None if step.get("recorded") else job_of(step)
        label = step.get("label") or ("M_p calibration" if step["kind"] == "calibrate" else job.label)
        if step["kind"] == "subtest":  # 000 Fig. 10's "5G-k": sub-test k of one workload
            label = (f"OP {step['op_percent']:g} % " if step.get("op_percent") else "") + \
                f"sub-test {step['subtest'] + 1} ({job.label.split('-4KiB')[0]})"
        if progress:
            progress(index, len(plan), label)
        running = bench.start(index, step, job)
        rate = getattr(running, "samplerate_hz", None) or s["samplerate_hz"]
        bits = getattr(running, "bits", None) or getattr(bench, "bits", None) or [bench.bit]
        names = getattr(running, "channels", None) or getattr(bench, "channels", None) or [f"D{b}" for b in bits]
        counters = [PulseCounter(rate, windows, bit=b % 8) for b in bits]
        watch = _step_watcher(running, counters[0], s["settle_s"], step_progress) if step_progress else None
        try:
            res = count_until_settled(running.stream, counters, settle_s=s["settle_s"],
                                      workload_done=running.workload_done, byte_index=[b // 8 for b in bits],
                                      max_wait_s=s.get("settle_timeout_s"), on_chunk=watch)
        finally:
            running.stream.close()
        try:
            outcome = running.finish()
        except Exception as exc:  # fio failed: keep the counts, then report fio's error
            write_atomic(archive.root / "steps" / f"{index:04d}.partial.json",
                                 lambda f: f.write(json.dumps({"step": step, "label": label,
                                                               "counts": res.counts.to_dict(),
                                                               "errors": [str(exc)]}, indent=1).encode()))
            raise
        c = res.counts
        errors: list[str] = []
        warnings: list[str] = []
        dies = []
        for name, cc in zip(names, res.all_counts or (c,)):
            chk = check_counts(cc, settled=cc.high_for_us >= s["settle_s"] * 1e6, settle_s=s["settle_s"],
                               host_wrote=outcome.logical_bytes > 0, min_gap_us=s.get("min_gap_us"),
                               pages_per_block=s.get("pages_per_block"))
            tag = f"{name}: " if len(bits) > 1 else ""
            errors += [tag + e for e in chk.errors if tag + e not in errors]
            warnings += [tag + w for w in chk.warnings if tag + w not in warnings]
            dies.append({"channel": name, "counts": cc.to_dict(), "erases_in_window": chk.erases_in_window,
                         "programs": cc.programs - chk.erases_in_window,
                         "cut": cc.partial + (1 if cc.open_us else 0)})
        record = {"step": step, "job": job.to_dict() if job else None, "label": label, "counts": c.to_dict(),
                  "settled": res.settled, "errors": errors, "warnings": warnings,
                  "logical_bytes": outcome.logical_bytes, "u_logical_bytes": outcome.u_logical_bytes,
                  "volume_evidence": outcome.volume_evidence, "truth": outcome.truth,
                  "stream": getattr(running, "train", None), "dies": dies}
        if res.error:
            record["errors"].append(f"the stream failed: {res.error}")
            write_atomic(archive.root / "steps" / f"{index:04d}.partial.json",
                                 lambda f: f.write(json.dumps(record, indent=1).encode()))
            raise LogicError(f"step {index} ({label}): {res.error}",
                             hint=f"counts up to the failure are in {archive.root}/steps/{index:04d}.partial.json; "
                                  f"fix the cause and run: charz wa resume {archive.root}")
        meta = getattr(running.stream, "meta_samplerate_hz", None)
        if meta and abs(meta - rate) > 1e-6 * rate and not getattr(running, "rate_given", False):
            record["errors"].append(f"sigrok-cli says the samples come at {meta / 1e3:g} kS/s, counted at "
                                    f"{rate / 1e3:g} kS/s: every width is off by that ratio; set the samplerate "
                                    "the analyser really runs at")
        per_die = [d["programs"] for d in dies]
        n = per_die[0]
        die_counts = per_die if len(per_die) > 1 else None
        cut = max(d["cut"] for d in dies)
        if die_counts:
            mean = sum(per_die) / len(per_die)
            record["die_spread"] = {"programs": per_die, "mean": mean,
                                    "spread": (max(per_die) - min(per_die)) / mean if mean else None}
        kw = dict(u_logical_bytes=outcome.u_logical_bytes, cut_pulses=cut, die_counts=die_counts)
        if step["kind"] == "calibrate":
            mp = calibrate_mp(n, geometry, outcome.logical_bytes, planes=s.get("planes"), **kw)
            record["m_p"] = mp.to_dict()
            if not mp.known:
                record["errors"].append(f"M_p cannot be told: {mp.evidence}")
            else:
                est = wa_eq7(n, mp, geometry, outcome.logical_bytes, volume_evidence=outcome.volume_evidence, **kw)
                record["estimate"] = est.to_dict()
        else:
            mp = _mp_from(archive)
            if mp is None or not mp.known or outcome.logical_bytes <= 0:
                record["errors"].append("no WA: M_p is not known (calibration failed or missing)"
                                        if outcome.logical_bytes > 0 else "no WA: the host wrote nothing")
            else:
                est = wa_eq7(n, mp, geometry, outcome.logical_bytes, volume_evidence=outcome.volume_evidence, **kw)
                record["estimate"] = est.to_dict()
                hidden = _hidden_erases(est.wa.value, dies)
                if hidden:
                    record["errors"].append(hidden)
        if getattr(running, "counters", None):
            record["counters"] = counters_record(running.counters)
        if "estimate" in record and outcome.truth and outcome.truth.get("true_wa"):
            record["re_wa"] = re_wa(record["estimate"]["wa"]["value"], outcome.truth["true_wa"])
        record["trusted"] = not record["errors"]
        archive.commit(index, record, fio_json=outcome.fio_json)
        if hasattr(bench, "cleanup"):
            bench.cleanup(index)
        for e in record["errors"]:
            log(f"step {index} ({label}): {e}")
    if progress:
        progress(len(plan), len(plan), "done")
    untrusted = [i for i, r in sorted(archive.records.items()) if not r.get("trusted")]
    mp = _mp_from(archive)
    return RunSummary(archive.records, untrusted, mp.to_dict() if mp else None)

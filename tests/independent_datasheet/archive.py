"""Write a drive's sweep as a session directory, from docs/archive.md's text.

``session.json`` (schema ``charz.archive/1``, created_utc, tool, drive with the
datasheet's ``given`` values, bench, plan), then per capture ``captures/NNNNNN.<ch>.npy``
(NumPy .npy 1.0, 1-D int8 or little-endian int16) and, last, its commit record
``captures/NNNNNN.json`` with the file's size and SHA-256.  The truth goes to a sidecar
next to the directory (``DIR.truth.json``), never inside it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
from pathlib import Path

import numpy as np

from tests.independent_datasheet.controller import duration_us, read_ops, write_ops
from tests.independent_datasheet.ssd import Ssd
from tests.independent_datasheet.waveform import background_erase, bench, clean_current, digitise, package_gains

MIB = 1 << 20
PRE = 0.1  # share of the record before the request, as a trigger position


def truth_path(session: str | Path) -> Path:
    p = Path(session)
    return p.with_name(p.name + ".truth.json")


def _npy(codes: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(codes), allow_pickle=False)
    return buf.getvalue()


def _record_samples(ssd: Ssd, longest_us: float) -> int:
    """A person sets the timebase so the longest request fits, in 1-2-5 steps."""
    need_s = longest_us * 1e-6 * 1.25 / (1 - PRE)
    for window in (0.005, 0.01, 0.02, 0.05, 0.1):
        if window >= need_s:
            break
    return int(round(window / (ssd.dt_us * 1e-6)))


def _full_scale(ssd: Ssd, gains: np.ndarray, fill: float) -> float:
    busiest = (ssd.i_idle + ssd.i_ctrl + ssd.i_host + ssd.channels * ssd.icc4
               + float(gains.sum()) * ssd.icc2 * (1 + ssd.ispp_depth / 2) + ssd.icc3 * gains.max())
    return busiest / fill


def _plan(ssd: Ssd) -> list[dict]:
    steps, offset = [], 0
    stride = max(MIB, -(-max(ssd.write_sizes()) // MIB) * MIB)
    for op, sizes in (("write", ssd.write_sizes()), ("read", ssd.read_sizes())):
        for s in sizes:
            steps.append({"id": len(steps), "op": op, "size_bytes": s, "offset_bytes": offset,
                          "repeats": ssd.repeats})
            offset += stride * ssd.repeats
    return steps


def write_session(ssd: Ssd, out: str | Path, *, noise: float = 1.0) -> Path:
    root = Path(out)
    (root / "captures").mkdir(parents=True, exist_ok=False)
    rng = np.random.default_rng([ssd.seed, 4242, int(round(noise * 1000))])
    gains = package_gains(ssd)
    fs = _full_scale(ssd, gains, rng.uniform(0.5, 0.9))
    mid = np.random.default_rng(0)
    n_w = _record_samples(ssd, max(duration_us(write_ops(ssd, s, mid)) for s in ssd.write_sizes()[-3:]))
    n_r = _record_samples(ssd, duration_us(read_ops(ssd, max(ssd.read_sizes()), mid)))
    given = {"channels": ssd.channels, "packages": ssd.packages, "page_size_bytes": ssd.page_bytes,
             "host_rate_bytes_per_s": ssd.host_mb_s * 1e6}
    if ssd.give_timing:  # what the NAND datasheet states: the interface's page time and tPROG typ
        given["t_xfer_page_s"] = ssd.t_io_page_us * 1e-6
        given["t_prog_s"] = ssd.t_prog_us * 1e-6
    steps = _plan(ssd)
    meta = {
        "schema": "charz.archive/1",
        "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "tool": {"name": "datasheet-generator", "version": "1"},
        "drive": {"model": f"datasheet drive {ssd.seed}", "serial": f"DS-{ssd.seed}", "given": given},
        "bench": {"kind": "independent-datasheet", "noise": noise, "adc_bits": ssd.adc_bits},
        "plan": {"steps": steps},
    }
    (root / "session.json").write_text(json.dumps(meta), "utf-8")
    index = 0
    for step in steps:
        for rep in range(step["repeats"]):
            write = step["op"] == "write"
            n = n_w if write else n_r
            dt = ssd.dt_us
            t_first_us = -PRE * n * dt
            t = t_first_us + np.arange(n) * dt - rng.uniform(-ssd.jitter_us, ssd.jitter_us)
            ops = (write_ops if write else read_ops)(ssd, step["size_bytes"], rng)
            ops = ops + background_erase(ssd, t, rng)
            amps = bench(ssd, clean_current(ssd, ops, t, gains), noise, rng)
            codes, scaling, cmin, cmax, dtype = digitise(ssd, amps, fs, rng)
            blob = _npy(codes)
            name = f"{index:06d}.current.npy"
            (root / "captures" / name).write_bytes(blob)
            record = {
                "schema": "charz.capture/1", "index": index, "step": step["id"], "op": step["op"],
                "size_bytes": step["size_bytes"], "offset_bytes": step["offset_bytes"] + rep * MIB,
                "repeat": rep, "sample_interval_s": dt * 1e-6, "t_first_sample_s": t_first_us * 1e-6,
                "time_reference": "request",
                "channels": [{"name": "current", "file": name, "dtype": dtype, "n_samples": n,
                              "file_bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest(),
                              "scaling": scaling, "source": "CH1", "code_min": cmin, "code_max": cmax}],
                "warnings": [], "host": {}, "extra": {},
            }
            (root / "captures" / f"{index:06d}.json").write_text(json.dumps(record), "utf-8")
            index += 1
    truth_path(root).write_text(json.dumps({"truth": ssd.truth(), "ssd": ssd.to_json()}, indent=1), "utf-8")
    return root

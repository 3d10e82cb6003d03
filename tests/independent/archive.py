"""A session directory in the documented archive format (docs/archive.md), numpy + json only.

The layout, field names and commit order come from docs/archive.md: ``session.json``,
``captures/NNNNNN.json`` commit records and one ``.npy`` of int8 codes per channel,
each with its size and SHA-256.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
from pathlib import Path

import numpy as np

from tests.independent.drive import Drive, read_sizes, write_sizes
from tests.independent.physics import (
    Bench,
    DriveState,
    current,
    full_scale_a,
    nuisances,
    quantise,
    read_activity,
    write_activity,
)

REPEATS = 5
READ_RECORD_S = 0.04
MIB = 1 << 20


def _npy_bytes(codes: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, codes, allow_pickle=False)
    return buf.getvalue()


def _plan(drive: Drive) -> list[dict]:
    """Writes of every size per repeat, ascending; then reads of every size per repeat."""
    steps, offset = [], 0
    stride = max(MIB, ((max(write_sizes(drive)) + MIB - 1) // MIB) * MIB)
    for r in range(REPEATS):
        for s in write_sizes(drive):
            steps.append({"id": len(steps), "op": "write", "size_bytes": s, "offset_bytes": offset, "repeat": r})
            offset += stride
    for r in range(REPEATS):
        for s in read_sizes(drive):
            steps.append({"id": len(steps), "op": "read", "size_bytes": s, "offset_bytes": offset, "repeat": r})
            offset += stride
    return steps


def write_session(drive: Drive, out: str | Path, *, noise: float = 1.0, give_timing: bool = True) -> Path:
    """Render every capture of a sweep on ``drive`` into a new session directory."""
    root = Path(out)
    (root / "captures").mkdir(parents=True, exist_ok=False)
    bench = Bench.of(drive).scaled(noise)
    state = DriveState(drive)
    rng = np.random.default_rng([drive.seed, 11, int(noise * 1000)])
    fs = full_scale_a(drive)
    given = {"channels": drive.channels, "packages": drive.packages, "page_size_bytes": drive.page_bytes,
             "host_rate_bytes_per_s": drive.host_mb_s * 1e6}
    if give_timing:  # a datasheet gives the page transfer rate and tPROG, not the switch delay
        given["t_xfer_page_s"] = drive.t_xfer_page_us * 1e-6
        given["t_prog_s"] = drive.t_prog_us * 1e-6
    steps = _plan(drive)
    meta = {
        "schema": "charz.archive/1",
        "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "tool": {"name": "independent-generator", "version": "1"},
        "drive": {"model": f"independent drive {drive.seed}", "serial": f"IND-{drive.seed}", "given": given},
        "bench": {"kind": "independent", "noise": noise},
        "plan": {"steps": steps},
    }
    for index, step in enumerate(steps):
        dt = bench.write_dt_s if step["op"] == "write" else bench.read_dt_s
        # a person sets the timebase so the longest read (512 KiB) fits: 40 ms at any rate
        n = bench.n_samples if step["op"] == "write" else int(round(READ_RECORD_S / dt))
        t_first = -bench.pre_fraction * n * dt
        jitter = rng.uniform(-bench.jitter_us, bench.jitter_us)
        t_us = (t_first + np.arange(n) * dt) * 1e6 - jitter
        act = (write_activity if step["op"] == "write" else read_activity)(state, step["size_bytes"], rng)
        amps = nuisances(current(state, act, t_us), dt, bench, rng)
        codes, y_mult, offset = quantise(amps, fs)
        blob = _npy_bytes(codes)
        name = f"{index:06d}.current.npy"
        (root / "captures" / name).write_bytes(blob)
        record = {
            "schema": "charz.capture/1",
            "index": index,
            "step": step["id"],
            "op": step["op"],
            "size_bytes": step["size_bytes"],
            "offset_bytes": step["offset_bytes"],
            "repeat": step["repeat"],
            "sample_interval_s": dt,
            "t_first_sample_s": t_first,
            "time_reference": "request",
            "channels": [{
                "name": "current",
                "file": name,
                "dtype": "int8",
                "n_samples": n,
                "file_bytes": len(blob),
                "sha256": hashlib.sha256(blob).hexdigest(),
                "scaling": {"y_mult": y_mult, "y_offset_codes": offset, "y_zero": 0.0, "unit": "A"},
                "source": "CH1",
                "code_min": -128,
                "code_max": 127,
            }],
            "warnings": [],
            "host": {},
            "extra": {},
        }
        (root / "captures" / f"{index:06d}.json").write_text(json.dumps(record), "utf-8")
    (root / "session.json").write_text(json.dumps(meta), "utf-8")
    (root / "truth.json").write_text(json.dumps({"truth": drive.truth(), "drive": drive.to_json()}, indent=1), "utf-8")
    return root

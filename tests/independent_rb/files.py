"""Low intervals → samples → files sigrok-cli reads: a session (.sr), a VCD, a CSV.

Written from the formats' descriptions, not from charz: a sigrok session file is a
zip holding ``version`` ("2"), ``metadata`` (an INI file, ``[device 1]`` with
``samplerate``, ``total probes``, ``probeN`` names and ``unitsize``) and the raw
samples in ``logic-1-1``, ``logic-1-2``, … (bit k of a byte is probe k+1); a VCD
(IEEE 1364 §18) lists value changes at integer times of its ``$timescale``; sigrok's
CSV input reads one sample per line.  A sample at time i/rate is low when it falls
inside a low interval [a, b).
"""

from __future__ import annotations

import math
import zipfile
from pathlib import Path

import numpy as np


def sample(lows: list[list[tuple[float, float]]], end_s: float, rate: float) -> np.ndarray:
    """One byte per sample, bit d high when die d's R/B is high (ready)."""
    n = int(math.ceil(end_s * rate))
    out = np.zeros(n, np.uint8)
    for d, iv in enumerate(lows):
        if not iv:
            out |= np.uint8(1 << d)
            continue
        a = np.array([x for x, _ in iv]) * rate
        b = np.array([y for _, y in iv]) * rate
        lo = np.clip(np.ceil(a - 1e-9).astype(np.int64), 0, n)
        hi = np.clip(np.ceil(b - 1e-9).astype(np.int64), 0, n)
        diff = np.zeros(n + 1, np.int32)
        np.add.at(diff, lo, 1)
        np.add.at(diff, hi, -1)
        low = np.cumsum(diff[:n]) > 0
        out |= (~low).astype(np.uint8) << d
    return out


def _rate_text(rate: float) -> str:
    r = int(rate)
    for unit, k in (("GHz", 10**9), ("MHz", 10**6), ("kHz", 10**3)):
        if r % k == 0:
            return f"{r // k} {unit}"
    return f"{r} Hz"


def write_sr(path: Path, samples: np.ndarray, rate: float, names: list[str], chunk: int = 1 << 22) -> None:
    meta = ["[global]", "sigrok version=0.5.2", "", "[device 1]", "capturefile=logic-1",
            f"total probes={len(names)}", f"samplerate={_rate_text(rate)}", "total analog=0"]
    meta += [f"probe{i + 1}={n}" for i, n in enumerate(names)] + ["unitsize=1", ""]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("version", "2")
        z.writestr("metadata", "\n".join(meta))
        for k, i in enumerate(range(0, samples.size, chunk)):
            z.writestr(f"logic-1-{k + 1}", samples[i:i + chunk].tobytes())


def write_vcd(path: Path, samples: np.ndarray, rate: float, names: list[str]) -> None:
    """Timescale 1/rate, which must be 1, 10 or 100 of a unit (VCD's rule)."""
    period = 1.0 / rate
    for unit, k in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        m = period / k
        if any(abs(m - x) < 1e-9 * x for x in (1, 10, 100)):
            scale = f"{round(m)} {unit}"
            break
    else:
        raise ValueError(f"a VCD's timescale cannot be 1/{rate} s")
    ids = [chr(33 + d) for d in range(len(names))]
    lines = [f"$timescale {scale} $end", "$scope module rb $end"]
    lines += [f"$var wire 1 {i} {n} $end" for i, n in zip(ids, names)]
    lines += ["$upscope $end", "$enddefinitions $end"]
    change = np.flatnonzero(np.diff(samples.astype(np.int16))) + 1
    prev = None
    for t in np.concatenate(([0], change)):
        v = int(samples[t])
        vals = [f"{(v >> d) & 1}{i}" for d, i in enumerate(ids) if prev is None or ((prev ^ v) >> d) & 1]
        lines.append(f"#{t}")
        lines += vals
        prev = v
    lines.append(f"#{samples.size}")
    Path(path).write_text("\n".join(lines) + "\n")


def write_csv(path: Path, samples: np.ndarray, names: list[str]) -> None:
    bits = [((samples >> d) & 1).astype(np.uint8) for d in range(len(names))]
    cols = np.stack(bits, axis=1) + ord("0")
    body = np.concatenate([cols, np.full((samples.size, 1), ord("\n"), np.uint8)], axis=1) if len(names) == 1 else None
    with open(path, "wb") as f:
        f.write((",".join(names) + "\n").encode())
        if body is not None:
            f.write(body.tobytes())
        else:
            for row in cols:
                f.write(",".join(chr(c) for c in row).encode() + b"\n")

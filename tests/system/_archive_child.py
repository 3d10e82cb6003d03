"""Writer process for test_archive_crash.py: append captures until killed.

Usage: python _archive_child.py SESSION SEED [--stall=npy|json]

Capture ``i`` is a pure function of (SEED, i) (:func:`make_capture`), so the
parent can tell what every index must hold.  After each append returns the
child prints ``committed <index> <digest>``.  ``--stall=npy`` stops (prints
``stalled``, sleeps) inside the first channel file's write, before its rename;
``--stall=json`` stops after all channel files, before the commit record.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from charz.archive import ArchiveWriter, Capture, Channel
from charz.waveform import Waveform


def make_capture(seed: int, index: int) -> Capture:
    rng = np.random.default_rng([seed, index])
    n = int(rng.integers(0, 60_000))
    channels = []
    for name in ("current", "voltage")[: int(rng.integers(1, 3))]:
        dtype = (np.int8, np.int16)[int(rng.integers(0, 2))]
        info = np.iinfo(dtype)
        codes = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
        w = Waveform(codes, float(rng.uniform(1e-5, 1e-2)), 0.5, 0.0, 2e-6, -1e-4, unit="A", source="CH1",
                     code_min=int(info.min), code_max=int(info.max))
        channels.append(Channel(name, w))
    return Capture(
        step=index // 3, op=("write", "read", "idle")[index % 3], size_bytes=4096 * (1 + index % 16),
        offset_bytes=4096 * index, repeat=index % 3,
        time_reference="request", channels=channels, host={"seed": seed, "index": index},
    )


def digest(capture: Capture) -> str:
    """SHA-256 over every field and every code, so equal digests mean equal captures."""
    h = hashlib.sha256()
    head = [capture.step, capture.op, capture.size_bytes, capture.offset_bytes, capture.repeat,
            capture.sample_interval_s, capture.t_first_sample_s, capture.time_reference,
            list(capture.warnings), capture.host, capture.extra]
    h.update(json.dumps(head, sort_keys=True).encode())
    for ch in capture.channels:
        w = ch.waveform
        h.update(json.dumps([ch.name, w.codes.dtype.name, w.source, w.code_min, w.code_max,
                             [w.y_mult, w.y_offset_codes, w.y_zero, w.unit]]).encode())
        h.update(np.ascontiguousarray(w.codes, dtype=w.codes.dtype.newbyteorder("<")).tobytes())
    return h.hexdigest()


def _stall_at(where: str) -> None:
    """Stop inside the commit protocol, so the parent can kill us exactly there."""
    from charz.archive import _atomic, _writer

    def stall() -> None:
        print("stalled", flush=True)
        time.sleep(60)

    if where == "json":
        real_write = _atomic.write_atomic

        def write_atomic(path, write, **kwargs):
            if path.parent.name == "captures" and path.suffix == ".json":
                stall()
            return real_write(path, write, **kwargs)

        _atomic.write_atomic = write_atomic
    else:
        real_npy = _writer._write_npy

        def write_npy(f, ch, file_name):
            result = real_npy(f, ch, file_name)  # the temp file is full, not yet renamed
            stall()
            return result

        _writer._write_npy = write_npy


def main(argv: list[str]) -> None:
    path, seed = Path(argv[1]), int(argv[2])
    for arg in argv[3:]:
        _stall_at(arg.removeprefix("--stall="))
    if (path / "session.json").exists():
        writer = ArchiveWriter.open_append(path)
    else:
        writer = ArchiveWriter.create(path, {"plan": {"seed": seed}})
    print(f"ready {writer.next_index}", flush=True)
    while True:
        capture = make_capture(seed, writer.next_index)
        index = writer.append(capture)
        print(f"committed {index} {digest(capture)}", flush=True)


if __name__ == "__main__":
    main(sys.argv)

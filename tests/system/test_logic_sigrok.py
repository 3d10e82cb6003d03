"""The logic-analyser path through the real sigrok-cli (Debian package sigrok-cli).

Session files charz writes are read back by ``sigrok-cli -i``; the bytes it prints
are compared with what was written and counted against pulse trains whose counts
the test knows by construction.  The demo driver stands in for an analyser on the
``--continuous`` path: stopped by a key on stdin, frozen (SIGSTOP), killed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import zipfile

import numpy as np
import pytest

from charz.analysis._pulses import PulseCounter
from charz.errors import LogicError
from charz.logic import (
    SessionMeta,
    SigrokStream,
    count_until_settled,
    file_argv,
    parse_metadata,
    place_pulses,
    read_session_chunks,
    render_chunks,
    stream_argv,
    write_session,
)

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

DEMO = "demo:analog_channels=0"


def _hand_made(rate):
    # 40 programs (200..2200 µs, exclusive), 25 reads (40 µs), 3 erases (3.5 ms), back to back with gaps
    rng = np.random.default_rng(3)
    widths = np.concatenate([rng.uniform(260, 2100, 40), np.full(25, 40.0), np.full(3, 3500.0)])
    rng.shuffle(widths)
    gaps = rng.uniform(10, 400, widths.size)
    starts = np.cumsum(gaps + np.concatenate(([0], widths[:-1])))
    return starts, widths


def test_session_file_read_back_by_sigrok_cli_is_byte_identical_and_counts_by_construction(tmp_path):
    rate = 250_000
    starts, widths = _hand_made(rate)
    train = place_pulses(starts, widths, rate, lead_us=500, tail_us=20_000)
    assert train.moved == 0  # gaps ≥ 10 µs > min gap: nothing moved
    path = tmp_path / "rb.sr"
    n = write_session(path, render_chunks(train, 10_000), SessionMeta(rate, ("RB",)), chunk_bytes=7_000)
    assert n == train.total_samples
    # sigrok's own listing of the file
    info = subprocess.run(["sigrok-cli", "-i", str(path), "--show"], capture_output=True, text=True, timeout=30)
    assert "RB" in info.stdout + info.stderr
    out = subprocess.run(file_argv(path), capture_output=True, timeout=30, check=True).stdout
    ours = np.concatenate(list(render_chunks(train)))
    assert np.array_equal(np.frombuffer(out, np.uint8), ours)
    # the zip holds what sigrok documents: version 2, metadata, logic-1-k
    with zipfile.ZipFile(path) as z:
        assert z.read("version") == b"2"
        meta = parse_metadata(z.read("metadata").decode())
        assert meta.samplerate_hz == rate and meta.probes == ("RB",)
        assert "logic-1-1" in z.namelist()
    meta2, chunks = read_session_chunks(path)
    assert np.array_equal(np.concatenate(list(chunks)), ours) and meta2 == meta

    with SigrokStream(file_argv(path), chunk_bytes=4096) as stream:
        res = count_until_settled(stream, PulseCounter(rate), settle_s=0.015)
    c = res.counts
    assert (c.programs, c.reads, c.erases) == (40, 25, 3)
    assert res.settled and res.error is None


def test_stream_with_the_settle_tail_missing_is_not_settled(tmp_path):
    rate = 100_000
    train = place_pulses([0.0, 3000.0], [900.0, 900.0], rate, tail_us=1000)
    path = tmp_path / "rb.sr"
    write_session(path, render_chunks(train), SessionMeta(rate, ("RB",)))
    with SigrokStream(file_argv(path)) as stream:
        res = count_until_settled(stream, PulseCounter(rate), settle_s=0.5)
    assert res.counts.programs == 2 and not res.settled


def test_damaged_session_file_is_a_logic_error(tmp_path):
    path = tmp_path / "bad.sr"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LogicError, match="sigrok-cli"):
        list(SigrokStream(file_argv(path)))


def test_demo_driver_streams_continuously_until_a_key_on_stdin():
    with SigrokStream(stream_argv(DEMO, "D0", 200_000), chunk_bytes=8192) as stream:
        res = count_until_settled(stream, PulseCounter(200_000), settle_s=0.0,
                                  workload_done=lambda: stream.bytes_read > 200_000)
    assert res.error is None
    assert res.counts.samples >= 200_000 and stream.returncode == 0


def test_unknown_channel_is_an_error_not_an_empty_count():
    with pytest.raises(LogicError, match="unknown channel .D9"):
        list(SigrokStream(stream_argv(DEMO, "D9", 100_000)))


def test_killed_sigrok_cli_keeps_the_counts_so_far():
    stream = SigrokStream(stream_argv(DEMO, "D0", 200_000), chunk_bytes=8192)
    counter = PulseCounter(200_000)

    def done():  # kill it once some samples are in
        if stream.bytes_read > 100_000 and stream._proc.poll() is None:
            os.kill(stream._proc.pid, signal.SIGKILL)
        return False

    try:
        res = count_until_settled(stream, counter, settle_s=1e9, workload_done=done)
    finally:
        stream.close()
    assert res.error is not None and "exited with code -9" in res.error
    assert res.counts.samples >= 100_000 and not res.settled


def test_frozen_analyser_is_reported_as_stopped():
    stream = SigrokStream(stream_argv(DEMO, "D0", 200_000), chunk_bytes=8192, stall_timeout_s=1.0)
    counter = PulseCounter(200_000)
    frozen = []

    def done():
        if stream.bytes_read > 50_000 and not frozen:
            os.kill(stream._proc.pid, signal.SIGSTOP)
            frozen.append(1)
        return False

    try:
        res = count_until_settled(stream, counter, settle_s=1e9, workload_done=done)
    finally:
        stream.close()  # reaps the stopped child (SIGCONT, then SIGTERM / SIGKILL)
    assert res.error is not None and "sent nothing" in res.error
    assert res.counts.samples >= 50_000
    assert stream._proc.poll() is not None  # nothing left behind

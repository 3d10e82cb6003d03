"""The bench path (`charz wa run --device LOOP --logic …`) on independent R/B traces.

As issue 23's outside check did it: the real fio writes the job to a loop device while
the "analyser" is a sigrok-cli stand-in (``--sigrok-cli PATH``) that replays one trace of
tests/independent_rb through the real ``sigrok-cli -i TRACE -O binary``.  The host volume
is fio's (and the block layer's), so the truth is WA_true = dies · P_a · pulses / fio's bytes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.independent_rb import files, model
from tests.system.charz_cli import run

pytestmark = [pytest.mark.system, pytest.mark.root,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

PAGE, DIES, VOLUME = 4096, 4, 4 << 20


@pytest.fixture
def loop(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from conftest_device import LoopDevice, need_root, need_tools
    need_root()
    need_tools("losetup", "fio")
    (tmp_path / "d").mkdir()
    dev = LoopDevice(tmp_path / "d", size_bytes=64 << 20)
    try:
        yield dev
    finally:
        dev.close()


def bench(tmp_path, loop, capsys, sc, fmt, *extra):
    tr = model.make(sc)
    samples = files.sample(tr["lows"], tr["end_s"], sc.samplerate_hz)
    trace = tmp_path / f"trace.{fmt}"
    (files.write_sr if fmt == "sr" else files.write_vcd)(trace, samples, sc.samplerate_hz, ["RB0"])
    fake = tmp_path / "sigrok-replay"
    fake.write_text(f"#!/bin/sh\nexec {shutil.which('sigrok-cli')} -i {trace} -O binary\n")
    fake.chmod(0o755)
    out = tmp_path / "wa"
    code = run(["wa", "run", "--device", loop.path, "--logic", "fx2lafw:D0", "--sigrok-cli", str(fake),
                "--channels", "2", "--chips", "1", "--dies", "2", "--page-size", "4k", "--mp", "1",
                "--volume", "4m", "--sizes", "4k", "--files", "wa-w100-sq-align.fio",
                "--confirm-serial", loop.kname, "--json", "-o", str(out), *extra])
    step = json.loads(capsys.readouterr().out)["steps"][0]
    wa_true = tr["dies"][0].programs * DIES * PAGE / step["logical_bytes"]
    return code, step, wa_true


def test_late_gc_through_the_bench_path(tmp_path, loop, capsys):
    sc = model.Scenario("late", 1e6, programs=300, late_programs=60, seed=31)
    code, step, wa_true = bench(tmp_path, loop, capsys, sc, "vcd", "--samplerate", "1M", "--settle", "0.2")
    assert step["logical_bytes"] == VOLUME
    assert code == 0 and step["trusted"] and abs(step["wa"]["value"] - wa_true) / wa_true < 0.01, step
    # 000's five minutes: the replay ends 0.3 s after the last pulse, so the count is not trusted
    (tmp_path / "x").mkdir()
    code, step, _ = bench(tmp_path / "x", loop, capsys, sc, "vcd", "--samplerate", "1M")
    assert code == 4 and any("settle time (300 s)" in e for e in step["errors"])


def test_an_analyser_running_at_another_samplerate_is_not_trusted(tmp_path, loop, capsys):
    sc = model.Scenario("rate", 1e6, programs=300, seed=32)
    code, step, wa_true = bench(tmp_path, loop, capsys, sc, "vcd", "--samplerate", "250k", "--settle", "0.2")
    assert code == 4 and any("come at 1000 kS/s, counted at 250 kS/s" in e for e in step["errors"])

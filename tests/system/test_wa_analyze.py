"""``charz wa analyze`` on recordings: the same counts as ``wa run`` on the same trace, and bad input.

The trace is the mock drive's (``wa run --mock --mock-keep-sr``), saved again by the real
``sigrok-cli -i … -o saved.sr`` (so the file analysed is sigrok's own writing, not charz's).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.system.charz_cli import run

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

MOCK_GEOMETRY = ["--channels", "4", "--chips", "1", "--dies", "1", "--page-size", "4k"]


@pytest.fixture(scope="module")
def mock_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("wa")
    out, keep = d / "run", d / "sr"
    assert run(["wa", "run", "--mock", "--volume", "16m", "--files", "wa-w100-rd-align.fio,wa-w50-sq-align.fio",
                "--sizes", "4k", "--mp", "2", "--samplerate", "250k", "-q", "-o", str(out),
                "--mock-keep-sr", str(keep)]) == 0
    recs = {int(p.stem): json.loads(p.read_text()) for p in (out / "steps").glob("[0-9]*.json")}
    return d, keep, recs


def test_analyze_of_a_sr_saved_by_sigrok_cli_gives_wa_runs_counts_and_wa(mock_run, capsys):
    d, keep, recs = mock_run
    capsys.readouterr()
    saved = []
    for i in sorted(recs):
        path = d / f"saved-{i}.sr"
        subprocess.run(["sigrok-cli", "-i", str(keep / f"{i:04d}.sr"), "-o", str(path)], check=True, timeout=60)
        saved.append(path)
    argv = ["wa", "analyze", *map(str, saved), "--mp", "2", *MOCK_GEOMETRY, "--settle", "0.05", "--min-gap", "20",
            "--json", "-o", str(d / "analyzed")]
    for i in sorted(recs):
        argv += ["--host-bytes", str(recs[i]["logical_bytes"])]
    assert run(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    for k, i in enumerate(sorted(recs)):
        mine, theirs = doc["steps"][k], recs[i]
        with open(d / "analyzed" / "steps" / f"{k:04d}.json") as f:
            counts = json.load(f)["counts"]
        for key in ("programs", "reads", "erases", "glitches", "other", "partial", "pulses", "samples", "histogram"):
            assert counts[key] == theirs["counts"][key], key
        assert mine["wa"]["value"] == theirs["estimate"]["wa"]["value"]
        assert mine["trusted"] and theirs["trusted"]


def test_show_json_is_the_same_document(mock_run, capsys):
    d, _, recs = mock_run
    capsys.readouterr()
    assert run(["wa", "show", str(d / "run"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["programs"][0] for s in doc["steps"]] == [recs[i]["counts"]["programs"] for i in sorted(recs)]
    assert any("self-check" in n for n in doc["notes"])


def test_bad_input_says_what_and_loses_nothing(tmp_path, capsys):
    junk = tmp_path / "junk.vcd"
    junk.write_text("this is not a VCD\n")
    geo = [*MOCK_GEOMETRY, "--mp", "1", "--host-bytes", "1m"]
    assert run(["wa", "analyze", str(junk), "-I", "vcd", *geo, "-o", str(tmp_path / "a")]) == 9  # LogicError: its own exit status
    assert "sigrok-cli cannot read" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()  # refused before an archive is made: the same -o works next time
    good = tmp_path / "good.vcd"
    good.write_text("$timescale 1 us $end\n$scope module m $end\n$var wire 1 ! RB $end\n$upscope $end\n"
                    "$enddefinitions $end\n#0\n1!\n#100\n0!\n#1000\n1!\n#5000\n")
    assert run(["wa", "analyze", str(good), "-I", "vcd", *geo, "--channel", "RBX", "-o", str(tmp_path / "b")]) == 2
    assert "has no logic channel 'RBX'" in capsys.readouterr().err and not (tmp_path / "b").exists()
    assert run(["wa", "analyze", str(tmp_path / "missing.sr"), *geo]) == 2
    assert run(["wa", "analyze", str(junk), *MOCK_GEOMETRY, "--host-bytes", "1m"]) == 2  # no M_p
    assert run(["wa", "analyze", str(junk), *MOCK_GEOMETRY, "--mp", "1"]) == 2            # no host volume
    assert "--host-bytes" in capsys.readouterr().err
    assert run(["wa", "analyze", str(junk), str(junk), *geo]) == 2                          # one volume, two files


def test_host_volume_from_fio_json_and_block_stat(tmp_path):
    from charz.wa import HostVolume, volume_outcome
    (tmp_path / "b").write_text("  100 0 800 10   2000 0 16000 50 0 60 60\n")
    (tmp_path / "a").write_text("  100 0 800 10   2000 0 16512 50 0 60 60\n")
    o = volume_outcome(HostVolume(blockstat=(str(tmp_path / "b"), str(tmp_path / "a"))))
    assert o.logical_bytes == 512 * 512 and "sectors" in o.volume_evidence
    fio = Path(__file__).resolve().parents[1] / "fixtures" / "fio" / "probe-write-20k.json"  # real fio output
    written = sum(j["write"]["io_bytes"] for j in json.loads(fio.read_text())["jobs"])
    o = volume_outcome(HostVolume(fio_json=str(fio)))
    assert o.logical_bytes == written > 0 and "fio's JSON" in o.volume_evidence and o.fio_json


def test_raw_binary_with_its_options_counts_like_the_session_file(tmp_path, capsys):
    # the same samples as a raw binary file (sigrok's binary input, samplerate as its option)
    from tests.independent_rb import files, model
    sc = model.Scenario("bin", 1e6, programs=200, seed=21)
    tr = model.make(sc)
    samples = files.sample(tr["lows"], tr["end_s"], sc.samplerate_hz)
    samples.tofile(tmp_path / "rb.bin")
    files.write_sr(tmp_path / "rb.sr", samples, sc.samplerate_hz, ["RB0"])
    common = [*MOCK_GEOMETRY, "--mp", "1", "--host-bytes", "1m", "--settle", "0.2", "--json"]
    assert run(["wa", "analyze", str(tmp_path / "rb.bin"), "-I", "binary:samplerate=1000000:numchannels=8",
                *common, "-o", str(tmp_path / "a")]) == 0
    a = json.loads(capsys.readouterr().out)["steps"][0]
    assert run(["wa", "analyze", str(tmp_path / "rb.sr"), *common, "-o", str(tmp_path / "b")]) == 0
    b = json.loads(capsys.readouterr().out)["steps"][0]
    assert a["programs"] == b["programs"] == [tr["dies"][0].programs] and a["samplerate_hz"] == 1e6
    # without a samplerate sigrok's binary input has none: said, with what to give
    assert run(["wa", "analyze", str(tmp_path / "rb.bin"), "-I", "binary", *common, "-o", str(tmp_path / "c")]) == 2
    assert "does not say its samplerate" in capsys.readouterr().err

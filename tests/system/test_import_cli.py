"""``charz export`` → ``charz import`` → ``charz analyze``: the same profile, through the real CLI.

The session is exported as a scope would save it (ISF and Keysight BIN by charz's writers,
Tek CSV and WFM by Tektronix's tm_data_types), imported back and analyzed.  ISF keeps the
ADC codes, so its profile is identical; the float formats give the same results to the
float32 precision tm_data_types and BIN store samples in.
"""

from __future__ import annotations

import json

import pytest
from charz_cli import run

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    path = tmp_path_factory.mktemp("import") / "mxp"
    assert run(["simulate", "--preset", "mxp", "--out", str(path), "--sizes", "4k,8k,16k,32k,64k",
                "--read-sizes", "4k,64k", "--repeats", "2", "--seed", "5", "--quiet"]) == 0
    return path


def _results(session, out):
    assert run(["analyze", str(session), "--json", "-o", str(out)]) == 0
    return json.loads(out.read_text())["results"]


@pytest.fixture(scope="module")
def original(session, tmp_path_factory):
    return _results(session, tmp_path_factory.mktemp("p") / "original.json")


# tolerance in amperes: tm_data_types keeps a CSV's offset in float32 (≈ 1 µA on a 4 mA code)
@pytest.mark.parametrize("fmt, amps", [("isf", 0.0), ("tek-csv", 1e-5), ("keysight-bin", 1e-6), ("tek-wfm", 1e-9)])
def test_round_trip_gives_the_same_profile(session, original, tmp_path, fmt, amps):
    files, back = tmp_path / "files", tmp_path / "back"
    assert run(["export", str(session), "--out", str(files), "--format", fmt, "--quiet"]) == 0
    assert (files / "manifest.toml").is_file()
    assert run(["import", str(files), "--out", str(back), "--quiet"]) == 0
    got = _results(back, tmp_path / "profile.json")
    assert set(got) == set(original)
    for key, q in original.items():
        assert got[key]["origin"] == q["origin"] and got[key]["confidence"] == q["confidence"], key
        if isinstance(q.get("value"), float):
            tol = amps if q.get("unit") == "A" else 1e-9 * abs(q["value"])
            assert got[key]["value"] == pytest.approx(q["value"], rel=0, abs=tol), key
        else:
            assert got[key].get("value") == q.get("value"), key
    if fmt == "isf":
        assert got == original


def test_malformed_file_is_named_and_nothing_is_written(session, tmp_path, capsys):
    files, back = tmp_path / "files", tmp_path / "back"
    assert run(["export", str(session), "--out", str(files), "--format", "isf", "--quiet"]) == 0
    victim = sorted(files.glob("*.isf"))[3]
    victim.write_bytes(victim.read_bytes()[:500])
    capsys.readouterr()
    assert run(["import", str(files), "--out", str(back), "--quiet"]) != 0
    err = capsys.readouterr().err
    assert str(victim) in err and "truncated" in err
    assert not back.exists()


def test_manifest_errors(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("x-axis,1\nsecond,Volt\n0,0.1\n1e-6,0.2\n")
    assert run(["import", str(tmp_path), "--out", str(tmp_path / "s")]) != 0
    assert "no manifest" in capsys.readouterr().err
    (tmp_path / "manifest.toml").write_text('[[capture]]\nfile = "a.csv"\nop = "write"\nsize = "4k"\n')
    assert run(["import", str(tmp_path), "--out", str(tmp_path / "s"), "--quiet"]) != 0
    assert "amps_per_volt" in capsys.readouterr().err       # volts need the probe's A per V
    (tmp_path / "manifest.toml").write_text('amps_per_volt = 10.0\n[[capture]]\nfile = "a.csv"\nop = "write"\nsize = "4k"\n')
    assert run(["import", str(tmp_path), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    from charz.archive import read_archive
    cap = read_archive(tmp_path / "s").captures[0]
    assert cap.size_bytes == 4096 and cap.channel("current").waveform.values() == pytest.approx([1.0, 2.0])


def test_imported_session_feeds_report_and_tune(session, tmp_path):
    files, back = tmp_path / "files", tmp_path / "back"
    assert run(["export", str(session), "--out", str(files), "--format", "isf", "--quiet"]) == 0
    assert run(["import", str(files), "--out", str(back), "--quiet"]) == 0
    assert run(["analyze", str(back)]) == 0
    assert run(["report", str(back), "-o", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.html").is_file()
    assert run(["tune", str(back / "profile.toml"), "--fs", "ext4"]) == 0


def test_guess_builds_the_manifest_from_charz_export_names(session, tmp_path, capsys):
    from charz.archive import read_archive

    files, back = tmp_path / "files", tmp_path / "back"
    assert run(["export", str(session), "--out", str(files), "--format", "isf", "--quiet"]) == 0
    (files / "manifest.toml").unlink()
    (files / "TEK0001.ISF").write_bytes(next(files.glob("*.isf")).read_bytes())   # a name that says nothing
    capsys.readouterr()
    assert run(["import", str(files), "--guess", "-o", str(back), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "TEK0001.ISF" in out and "left out" in out
    want = [(c.op, c.size_bytes, c.repeat) for c in read_archive(session).captures]
    got = [(c.op, c.size_bytes, c.repeat) for c in read_archive(back).captures]
    assert got == want
    assert run(["import", str(files), "--guess"]) != 0               # the manifest it wrote is not overwritten
    assert "does not overwrite" in capsys.readouterr().err


def test_a_file_of_several_channels_keeps_them_all_or_names_them(tmp_path, capsys):
    from charz.archive import read_archive

    rows = "".join(f"{i * 1e-6:.6e},{0.010 + 0.002 * (i % 3):.4f},{0.5 + 0.1 * (i % 2):.2f}\n" for i in range(50))
    (tmp_path / "write-4k-0.csv").write_text("x-axis,1,2\nsecond,Volt,Volt\n" + rows)
    (tmp_path / "manifest.toml").write_text('amps_per_volt = 1.0\n[[capture]]\nfile = "write-4k-0.csv"\n'
                                            'op = "write"\nsize = "4k"\n')
    capsys.readouterr()
    assert run(["import", str(tmp_path), "-o", str(tmp_path / "s"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "2 analog channels (1, 2)" in err and 'channel = "1"' in err and not (tmp_path / "s").exists()
    (tmp_path / "manifest.toml").write_text('amps_per_volt = 1.0\nchannel = "1"\n[[capture]]\n'
                                            'file = "write-4k-0.csv"\nop = "write"\nsize = "4k"\n')
    assert run(["import", str(tmp_path), "-o", str(tmp_path / "s"), "--quiet"]) == 0
    cap = read_archive(tmp_path / "s").captures[0]
    assert [c.name for c in cap.channels] == ["current", "ch2"]
    assert cap.channel("ch2").waveform.values()[:2] == pytest.approx([0.5, 0.6]) and cap.channel("ch2").waveform.unit == "V"
    assert cap.channel("current").waveform.values()[:3] == pytest.approx([0.010, 0.012, 0.014])

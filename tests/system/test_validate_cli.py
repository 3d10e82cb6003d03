"""``charz validate --mock``: 003 §6 / Table 4 on profiles made by charz simulate + analyze.

The real fio runs each record size on a scratch file; the simulated SSD's timing model
gives the drive's MB/s and current.  Q Pro and MXP (32 KiB units, 003 Table 2) must show
the aligned record size winning on both MB/s and J/MB against 4 KiB, as 003 Table 4 does.
A 2 MiB file keeps the run short (the CLI's default is 003's 128 MiB).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from charz_cli import run

from charz.errors import WorkloadError
from charz.profile import read_profile
from charz.workload import open_direct

pytestmark = pytest.mark.system

MIB = 1 << 20
FILE = "2M"


@pytest.fixture(scope="module")
def scratch_dir(tmp_path_factory):
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    d = tmp_path_factory.mktemp("scratch")
    try:
        open_direct(d / "probe.dat", create_size_bytes=MIB).close()
    except WorkloadError as exc:
        pytest.skip(f"the temp directory's file system refuses O_DIRECT: {exc}")
    return d


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    root = tmp_path_factory.mktemp("validate")
    out = {}
    for preset in ("qpro", "mxp"):
        session = root / preset
        assert run(["simulate", "--preset", preset, "--out", str(session), "--seed", "21",
                    "--read-sizes", "none", "--quiet"]) == 0
        assert run(["analyze", str(session)]) == 0
        out[preset] = session / "profile.toml"
    # 12 packages contradict the Q Pro's 4 × 4-page staircase: the unit is undetermined
    assert run(["analyze", str(root / "qpro"), "--packages", "12", "-o", str(root / "undetermined.toml")]) == 0
    out["undetermined"] = root / "undetermined.toml"
    return out


def fio_version() -> str:
    return subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("preset, paper", [("qpro", (201.0, -85.0)), ("mxp", (123.0, -71.0))])
def test_aligned_record_size_wins_as_in_table4(preset, paper, profiles, scratch_dir, tmp_path, capsys):
    profile = tmp_path / "profile.toml"
    shutil.copy(profiles[preset], profile)
    capsys.readouterr()
    assert run(["validate", "--mock", "--preset", preset, "--profile", str(profile), "--file-size", FILE,
                "--scratch-dir", str(scratch_dir), "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["record_size_bytes"]: r for r in doc["rows"]}
    assert sorted(rows) == [4096, 8192, 16384, 32768, 65536]
    assert [rows[s]["aligned"] for s in sorted(rows)] == [False, False, False, True, True]
    assert rows[32768]["mb_per_s"] > rows[4096]["mb_per_s"]
    assert rows[32768]["j_per_mb"] < rows[4096]["j_per_mb"]
    ratio = doc["aligned_vs_4k"]
    assert ratio["aligned_record_size_bytes"] == 32768
    assert ratio["mb_per_s_change_pct"] > 0 > ratio["energy_change_pct"]
    assert doc["reference_003_table4"] == {"mb_per_s_change_pct": paper[0], "energy_change_pct": paper[1]}
    # every figure is labelled a model figure, with the rail's origin
    assert doc["source"] == "model" and {r["source"] for r in doc["rows"]} == {"model"}
    assert doc["rail_v"] == 5.0 and doc["rail_v_origin"].startswith("assumed")
    # the fio JSON came from the real fio, one run per record size, all of the file written
    assert doc["fio"]["version"] == fio_version()
    for size, r in rows.items():
        assert r["fio_total_ios"] == 2 * MIB // size and r["bytes_written"] == 2 * MIB
        assert r["fio_runtime_ms"] >= 0 and r["fio_mb_per_s"] > 0
    # the profile gained a validation section and still validates
    assert doc["profile_written"] == str(profile)
    section = read_profile(profile)["validation"]
    assert [r["record_size_bytes"] for r in section["rows"]] == sorted(rows)
    assert {r["source"] for r in section["rows"]} == {"model"}
    assert section["aligned_vs_4k"]["mb_per_s_change_pct"] == pytest.approx(ratio["mb_per_s_change_pct"])
    assert section["aligned_vs_4k"]["energy_change_pct"] == pytest.approx(ratio["energy_change_pct"])
    assert read_profile(profile)["results"] == read_profile(profiles[preset])["results"]


def test_text_report(profiles, scratch_dir, tmp_path, capsys):
    profile = tmp_path / "qpro.toml"
    shutil.copy(profiles["qpro"], profile)
    capsys.readouterr()
    assert run(["validate", "--mock", "--preset", "qpro", "--profile", str(profile), "--file-size", FILE,
                "--record-sizes", "4k,32k", "--scratch-dir", str(scratch_dir), "--rail-v", "5", "--quiet"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # lines are folded at 80 columns
    assert "source: model (the simulated SSD's timing model; fio ran for real on a scratch file)" in flat
    assert "rail: 5 V (given on the command line)" in flat
    assert re.search(r"^ *4 KiB +no +[0-9.]+ ", out, re.M) and re.search(r"^ *32 KiB +yes +[0-9.]+ ", out, re.M)
    assert "aligned (32 KiB) vs 4 KiB: +" in out and "% energy   [model]" in out
    assert "003 Table 4, qpro (measured on the real drive): +201 % MB/s, −85 % energy" in flat
    assert "model, 4 KiB: read-modify-write takes" in flat
    assert "mock cross-check: the simulated firmware writes 32 KiB units; the profile says 32 KiB" in flat
    assert f"validation section written to {profile}" in out


def test_without_a_profile_there_is_no_verdict(scratch_dir, capsys):
    capsys.readouterr()
    assert run(["validate", "--mock", "--preset", "mxp", "--file-size", "1M", "--record-sizes", "4k,32k",
                "--scratch-dir", str(scratch_dir), "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["aligned"] for r in doc["rows"]] == [None, None]
    assert doc["aligned_vs_4k"]["mb_per_s_change_pct"] is None and "unknown" in doc["aligned_vs_4k"]["reason"]
    assert doc["write_io_unit"]["value_bytes"] is None and doc["profile_written"] is None


def test_an_undetermined_unit_is_said(profiles, scratch_dir, capsys):
    capsys.readouterr()
    assert run(["validate", "--mock", "--preset", "qpro", "--profile", str(profiles["undetermined"]),
                "--file-size", "1M", "--record-sizes", "4k,32k", "--scratch-dir", str(scratch_dir), "--quiet"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # lines are folded at 80 columns
    assert "results.write_io_unit_bytes is undetermined in" in out
    assert "aligned vs 4 KiB: not computed (the write I/O unit is unknown" in out
    assert "validation" in read_profile(profiles["undetermined"])


@pytest.mark.parametrize("argv, code, message", [
    (["validate", "--mock", "--device", "/dev/null"], 2, "choose the bench"),
    (["validate", "--device", "/dev/null"], 2, "needs both --device and --scope"),
    (["validate"], 2, "choose the bench"),
    (["validate", "--mock", "--record-sizes", "3000"], 2, "not a multiple of 512 B"),
    (["validate", "--mock", "--record-sizes", "12k"], 2, "not a whole number of 12288 B records"),
    (["validate", "--mock", "--preset", "nope", "--file-size", "64k", "--record-sizes", "4k"], 2, "'nope' is not one of"),
])
def test_usage_errors(argv, code, message, capsys):
    assert run(argv) == code
    assert message in capsys.readouterr().err


def test_a_malformed_profile_fails_before_any_io(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = "charz.profile/1"\n[provenance]\ntool = "charz"\n')
    assert run(["validate", "--mock", "--profile", str(bad), "--scratch-dir", str(tmp_path / "none")]) == 8  # ProfileError
    err = capsys.readouterr().err
    assert "bad.toml" in err and "required property" in err
    assert not (tmp_path / "none").exists()


def test_a_missing_scratch_dir_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    argv = ["validate", "--mock", "--file-size", "64k", "--record-sizes", "4k", "--scratch-dir", str(tmp_path / "none")]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert "cannot make the scratch directory in" in err and "none" in err and "Traceback" not in err
    assert not (tmp_path / "none").exists()


def _long_lines(text: str) -> list[str]:
    """Lines over 80 columns; a path counts as one word of 20 (paths stay whole, to copy)."""
    return [line for line in text.splitlines() if len(re.sub(r"(?<!\S)/\S+|\S+/\S+/\S+", "P" * 20, line)) > 80]


def test_defaults_are_characterize_s(profiles, scratch_dir, tmp_path, capsys):
    import typer

    from charz.cli import app

    commands = typer.main.get_command(app).commands
    characterize_default = next(p.default for p in commands["characterize"].params if p.name == "preset")
    capsys.readouterr()
    assert run(["validate", "--mock", "--file-size", "1M", "--record-sizes", "4k,32k",
                "--scratch-dir", str(scratch_dir), "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["preset"] == characterize_default == "mxp"
    # a profile of a simulated drive names its preset: validating it needs no --preset
    profile = tmp_path / "qpro.toml"
    shutil.copy(profiles["qpro"], profile)
    assert run(["validate", "--mock", "--profile", str(profile), "--file-size", "1M", "--record-sizes", "4k,32k",
                "--scratch-dir", str(scratch_dir), "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["preset"] == "qpro"


def test_fio_s_own_figures_beside_the_model_and_a_progress_bar(profiles, scratch_dir, tmp_path, capsys):
    profile = tmp_path / "mxp.toml"
    shutil.copy(profiles["mxp"], profile)
    capsys.readouterr()
    assert run(["validate", "--mock", "--profile", str(profile), "--file-size", "4M", "--record-sizes", "4k,32k",
                "--scratch-dir", str(scratch_dir)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert not _long_lines(out), _long_lines(out)
    assert "fio on the scratch file" in out
    for size in ("4 KiB", "32 KiB"):
        cells = re.search(rf"^ *{size} +(yes|no) +([\d.]+) +([\d.]+) mA +([\d.]+) +([\d.]+) +(\d+) ms$", out, re.M)
        assert cells, out
        fio_mb_per_s, runtime_ms = float(cells.group(5)), int(cells.group(6))
        # fio's MB/s is its bytes over its runtime (ms granularity): 4 MiB in runtime_ms
        assert fio_mb_per_s == pytest.approx(4 * MIB / 1e3 / max(runtime_ms, 1), rel=0.05 + 1.0 / max(runtime_ms, 1))
    # the bar on stderr: what ran, and how far
    assert "validating (mock, mxp)" in captured.err and "2/2" in captured.err


def test_the_gap_to_table_4_is_explained_from_the_times_per_request(profiles, scratch_dir, tmp_path, capsys):
    profile = tmp_path / "mxp.toml"
    shutil.copy(profiles["mxp"], profile)
    capsys.readouterr()
    assert run(["validate", "--mock", "--profile", str(profile), "--file-size", "2M", "--record-sizes", "4k,32k",
                "--scratch-dir", str(scratch_dir), "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["record_size_bytes"]: r for r in doc["rows"]}
    per_request = {s: r["duration_s"] / (r["bytes_written"] / s) for s, r in rows.items()}
    # MB/s at QD1 = record / time per request, so 003's +123 % (Table 4, MXP) puts its drive's
    # 4 KiB write at 2.23 × t(32 KiB) / 8.
    implied_us = (1 + 123 / 100) * per_request[32768] / 8 * 1e6
    gap = doc["gap_to_003"]
    ours = (per_request[4096] / per_request[32768] * 8 - 1) * 100
    assert gap.startswith(f"why +{ours:.0f} % here and +123 % in 003")
    assert f"a 4 KiB write takes {per_request[4096] * 1e6:.0f} µs" in gap
    assert f"about {implied_us:.0f} µs" in gap
    # 003 §5.5: the MXP programs a page in 900 µs; 003's implied 4 KiB time is well below it
    assert implied_us < 900 and "less than one 900 µs page program" in gap

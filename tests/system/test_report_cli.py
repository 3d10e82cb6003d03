"""``charz report`` on simulated MXP sessions, end to end through the real CLI.

Two sessions: a short sweep (4–64 KiB, two repeats) that stops half-way up the MXP's
staircase, so its results are undetermined and no profile is written (the report makes
one); and a sweep to 160 KiB whose profile (from ``charz analyze``) has
every section.  Then the errors: a missing named profile, a damaged archive, --tolerant.
"""

from __future__ import annotations

import base64
import re
import struct

import pytest
from charz_cli import run

from charz.profile import read_profile

pytestmark = pytest.mark.system

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FIGURES = ("1-peak-staircase", "2-write-waveforms", "3-allocation", "3b-rise", "4-read-bursts",
           "6-read-modify-write", "7-power-budget")


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which a valid PNG has first."""
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def short_session(tmp_path_factory):
    session = tmp_path_factory.mktemp("report") / "mxp-short"
    # Writes up to 28 KB: less than one of mxp's 32 KB units, so neither the peaks nor the
    # durations can show a step, and the report has to say what it skipped.
    assert run(["simulate", "--preset", "mxp", "--out", str(session), "--sizes", "4k:28k:4k", "--repeats", "2",
                "--read-sizes", "4k,32k,36k,64k", "--seed", "3", "--quiet"]) == 0
    return session


@pytest.fixture(scope="module")
def full_session(tmp_path_factory):
    session = tmp_path_factory.mktemp("report") / "mxp-full"
    assert run(["simulate", "--preset", "mxp", "--out", str(session), "--sizes", "4k:160k:4k", "--repeats", "2",
                "--read-sizes", "4k,32k,36k,64k,512k", "--seed", "4", "--quiet"]) == 0
    assert run(["analyze", str(session)]) == 0
    return session


def test_report_without_a_profile_makes_one_and_writes_figures(short_session, tmp_path, capsys):
    out = tmp_path / "out"
    assert not (short_session / "profile.toml").exists()
    capsys.readouterr()
    assert run(["report", str(short_session), "-o", str(out)]) == 0
    printed, said = capsys.readouterr()
    # it says what it is doing while it works (seconds of reading and drawing), on stderr
    assert "measuring each capture" in " ".join(said.split()) and "analysing the session too" in " ".join(said.split())
    assert "captures measured; drawing the figures" in said
    assert f"report   {out / 'report.html'}" in printed
    assert "(the session had none; made now, as charz analyze would)" in " ".join(printed.split())
    assert all(len(line) <= 80 or "/" in line for line in printed.splitlines())  # only a path overflows
    assert not (short_session / "profile.toml").exists()  # the session is left as it was
    profile = read_profile(out / "profile.toml")
    assert profile["results"]["n_step"]["confidence"] == "undetermined"  # no write spans a unit

    for key in ("1-peak-staircase", "2-write-waveforms", "4-read-bursts"):
        width, height = png_size((out / f"{key}.png").read_bytes())
        assert 600 <= width <= 1400 and 300 <= height <= 1200, key
    assert not (out / "3-allocation.png").exists()  # no allocation without the staircase
    assert "skipped  Predicted vs measured durations per allocation candidate" in printed

    page = (out / "report.html").read_text(encoding="utf-8")
    assert "profile computed now (no profile.toml in the session)" in page
    assert re.search(r'id="result-n_step"[^>]*>.*?undetermined — ', page)
    assert "http://" not in page and "https://" not in page


def test_report_from_an_analysed_session_draws_every_figure(full_session, capsys):
    capsys.readouterr()
    assert run(["report", str(full_session)]) == 0
    out = full_session / "report"
    printed = capsys.readouterr().out
    assert "profile  " not in printed  # the session's own profile was used
    for key in FIGURES:
        data = (out / f"{key}.png").read_bytes()
        width, height = png_size(data)
        assert width >= 600 and height >= 300, key
    page = (out / "report.html").read_text(encoding="utf-8")
    assert 100_000 < len(page) < 3_000_000  # six figures inline, nothing else heavy
    assert "http://" not in page and "https://" not in page
    images = re.findall(r'<img src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(FIGURES)
    assert [base64.b64decode(b)[:8] for b in images] == [PNG_SIGNATURE] * len(FIGURES)
    profile = read_profile(full_session / "profile.toml")
    for key, quantity in profile["results"].items():
        row = re.search(rf'<tr id="result-{key}"[^>]*data-confidence="([a-z]+)"', page)
        assert row and row.group(1) == quantity["confidence"], key
    assert "4 steps" in page and "32 KiB (32768 B)" in page and "channel-only" in page


def test_quiet_report_says_only_what_it_wrote(short_session, tmp_path, capsys):
    capsys.readouterr()
    assert run(["report", str(short_session), "-o", str(tmp_path / "q"), "-q"]) == 0
    printed, said = capsys.readouterr()
    assert said == "" and "report.html" in printed


def test_report_with_a_named_profile(full_session, tmp_path):
    profile = full_session / "profile.toml"
    assert run(["report", str(full_session), "--profile", str(profile), "-o", str(tmp_path / "named")]) == 0
    assert f"read from {profile}" in (tmp_path / "named" / "report.html").read_text(encoding="utf-8")


def test_a_named_profile_that_is_missing_is_an_error(full_session, tmp_path, capsys):
    capsys.readouterr()
    assert run(["report", str(full_session), "--profile", str(tmp_path / "nope.toml"), "-o", str(tmp_path / "x")]) == 8
    assert "cannot read profile" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_not_a_session_is_an_archive_error(tmp_path, capsys):
    capsys.readouterr()
    assert run(["report", str(tmp_path / "missing")]) == 3
    assert "does not exist" in capsys.readouterr().err


def test_a_damaged_capture_stops_the_report_unless_tolerant(short_session, tmp_path, capsys):
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(short_session, damaged)
    (damaged / "captures" / "000005.json").write_text("{not json", encoding="utf-8")
    capsys.readouterr()
    assert run(["report", str(damaged), "-o", str(tmp_path / "strict")]) == 3
    err = capsys.readouterr().err.replace("\n", "")  # the console wraps long paths
    assert "000005.json: not valid JSON" in err and "add --tolerant" in err
    assert not (tmp_path / "strict").exists()

    assert run(["report", str(damaged), "-o", str(tmp_path / "tolerant"), "--tolerant"]) == 0
    page = (tmp_path / "tolerant" / "report.html").read_text(encoding="utf-8")
    assert "Damaged files skipped (read with --tolerant)" in page
    assert "000005.json: not valid JSON" in page

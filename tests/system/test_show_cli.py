"""``charz show DIR [INDEX]`` through the CLI: a PNG of the capture and a summary from its own samples."""

from __future__ import annotations

import numpy as np
import pytest
from charz_cli import run

from charz.archive import read_archive

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def session(short_dir):
    path = short_dir() / "s"  # paths are printed, and held to 80 columns
    assert run(["simulate", "--preset", "mxp", "--out", str(path), "--sizes", "4k,32k", "--read-sizes", "none",
                "--repeats", "1", "--quiet"]) == 0
    return path


def test_show_writes_a_png_and_states_the_capture(session, short_dir, capsys):
    out = short_dir() / "c1.png"
    assert run(["show", str(session), "1", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = capsys.readouterr().out
    cap = read_archive(session).captures[1]
    amps = cap.channel("current").waveform.values()
    assert text.startswith("capture 1: write 32 KiB")
    assert f"max {amps.max() * 1e3:.4g} mA" in text and f"median {np.median(amps) * 1e3:.4g}" in text
    assert f"{amps.size} samples every {cap.sample_interval_s * 1e6:.4g} µs" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_show_default_png_in_session(session, capsys):
    assert run(["show", str(session)]) == 0
    assert (session / "capture-000000.png").is_file()


def test_index_out_of_range_says_the_range(session, capsys):
    assert run(["show", str(session), "7"]) != 0
    assert "has 2 captures; there is no capture 7" in capsys.readouterr().err

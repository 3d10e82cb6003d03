"""``charz diff A B`` through the CLI: a profile against itself, against a copy with edits, and errors."""

from __future__ import annotations

import json

import pytest
from charz_cli import run

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    d = tmp_path_factory.mktemp("diff")
    session = d / "s"
    assert run(["simulate", "--preset", "mxp", "--out", str(session), "--sizes", "4k,8k,16k",
                "--read-sizes", "none", "--repeats", "2", "--quiet"]) == 0
    assert run(["analyze", str(session), "--json", "-o", str(d / "a.json")]) == 0
    return d / "a.json"


def test_same_profile_agrees(profile, capsys):
    capsys.readouterr()
    assert run(["diff", str(profile), str(profile)]) == 0
    assert "agree on every given value and result" in capsys.readouterr().out


def test_each_edit_is_shown_with_origin_and_confidence(profile, tmp_path, capsys):
    data = json.loads(profile.read_text())
    data["results"]["idle_a"]["value"] = data["results"]["idle_a"]["value"] + 0.005
    data["results"]["idle_a"]["confidence"] = "medium"
    data["given"]["channels"] = 4
    edited = tmp_path / "b.json"
    edited.write_text(json.dumps(data))
    capsys.readouterr()
    assert run(["diff", str(profile), str(edited)]) == 0
    out = capsys.readouterr().out
    assert "2 fields differ" in out
    assert "given channels" in out and "\n    B  4\n" in out
    a_idle = json.loads(profile.read_text())["results"]["idle_a"]
    assert f"A  {a_idle['value'] * 1e3:.4g} mA ({a_idle['origin']}, {a_idle['confidence']})" in out
    assert f"B  {(a_idle['value'] + 0.005) * 1e3:.4g} mA ({a_idle['origin']}, medium)" in out


def test_session_without_profile_says_what_to_do(tmp_path, capsys):
    assert run(["diff", str(tmp_path), str(tmp_path)]) != 0
    assert "charz analyze" in capsys.readouterr().err

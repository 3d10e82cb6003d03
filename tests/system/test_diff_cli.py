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
    assert run(["diff", str(profile), str(edited)]) == 1  # both beyond: a given value, and 0.005 A ≫ u
    out = capsys.readouterr().out
    assert "2 fields differ, 2 beyond" in out
    assert "given channels" in out and "\n    B  4\n" in out
    a_idle = json.loads(profile.read_text())["results"]["idle_a"]
    assert f"A  {a_idle['value'] * 1e3:.4g} mA ({a_idle['origin']}, {a_idle['confidence']})" in out
    assert f"B  {(a_idle['value'] + 0.005) * 1e3:.4g} mA ({a_idle['origin']}, medium)" in out


def test_session_without_profile_says_what_to_do(tmp_path, capsys):
    assert run(["diff", str(tmp_path), str(tmp_path)]) != 0
    assert "charz analyze" in capsys.readouterr().err


def _edited(profile, tmp_path, edit) -> str:
    data = json.loads(profile.read_text())
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_change_within_the_stated_uncertainty_is_listed_but_exits_0(profile, tmp_path, capsys):
    idle = json.loads(profile.read_text())["results"]["idle_a"]
    assert idle["uncertainty"] > 0
    # half the stated standard error: printed differently at 4 digits, well within 2 × √2 u
    other = _edited(profile, tmp_path, lambda d: d["results"]["idle_a"].update(value=idle["value"] + idle["uncertainty"] / 2))
    capsys.readouterr()
    assert run(["diff", str(profile), other]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "idle_a (within uncertainty:" in out and "0 beyond the stated uncertainty" in out


def test_a_change_beyond_the_stated_uncertainty_exits_1(profile, tmp_path, capsys):
    idle = json.loads(profile.read_text())["results"]["idle_a"]
    other = _edited(profile, tmp_path, lambda d: d["results"]["idle_a"].update(value=idle["value"] + 4 * idle["uncertainty"]))
    capsys.readouterr()
    assert run(["diff", str(profile), other]) == 1
    assert "1 beyond the stated uncertainty" in capsys.readouterr().out


def test_sides_that_print_identically_are_not_differences(profile, tmp_path, capsys):
    idle = json.loads(profile.read_text())["results"]["idle_a"]
    other = _edited(profile, tmp_path, lambda d: (d["results"]["idle_a"].update(value=idle["value"] + 1e-9),
                                                  d["given"].update(t_prog_s=d["given"]["t_prog_s"] * (1 + 1e-12))))
    capsys.readouterr()
    assert run(["diff", str(profile), other]) == 0
    assert "agree on every given value and result" in capsys.readouterr().out


def test_json_lists_each_difference_with_its_verdict(profile, tmp_path, capsys):
    other = _edited(profile, tmp_path, lambda d: d["given"].update(channels=3))
    capsys.readouterr()
    assert run(["diff", str(profile), other, "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "charz.diff/1"
    assert doc["differences"] == [{"field": "given channels", "a": str(json.loads(profile.read_text())["given"]["channels"]),
                                   "b": "3", "beyond": True, "within": ""}]

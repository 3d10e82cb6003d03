"""Malformed profiles and bad arguments: a ProfileError / UsageError that names the problem, never a crash."""

from __future__ import annotations

import copy
import json

import pytest

from charz.errors import ProfileError, UsageError
from charz.profile import read_profile, to_toml
from charz.tune import TARGETS, advise, build_report, format_advice
from charz.tune.testing import preset_profile

pytestmark = pytest.mark.unit


def broken(edit):
    p = copy.deepcopy(preset_profile("mxp"))
    edit(p)
    return p


@pytest.mark.parametrize("edit, names", [
    (lambda p: p["results"]["write_io_unit_bytes"].__setitem__("value", "32k"), "results/write_io_unit_bytes/value"),
    (lambda p: p["results"]["n_step"].__setitem__("value", 4.5), "results/n_step/value"),
    (lambda p: p["given"].__setitem__("page_size_bytes", "4096"), "given/page_size_bytes"),
    (lambda p: p["results"].pop("write_io_unit_bytes"), "write_io_unit_bytes"),
    (lambda p: p["results"]["step_pages"].__setitem__("confidence", "sure"), "results/step_pages/confidence"),
])
def test_a_bad_quantity_is_a_profile_error_naming_the_key(edit, names):
    with pytest.raises(ProfileError) as info:
        advise(broken(edit), fs="ext4", limits=None)
    assert names in info.value.message


def test_a_wrong_schema_is_a_profile_error_with_a_hint():
    with pytest.raises(ProfileError, match="schema is 'charz.profile/0'") as info:
        advise(broken(lambda p: p.__setitem__("schema", "charz.profile/0")), fs="xfs", limits=None)
    assert info.value.hint


def test_a_truncated_toml_file_is_a_profile_error(tmp_path):
    path = tmp_path / "profile.toml"
    text = to_toml(preset_profile("mxp"))
    path.write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\n[results.write_io")
    with pytest.raises(ProfileError, match="not valid TOML"):
        read_profile(path)


def test_a_toml_file_round_trips_into_the_same_advice(tmp_path):
    path = tmp_path / "profile.toml"
    path.write_text(to_toml(preset_profile("qpro")))
    assert advise(read_profile(path), fs="zfs", limits=None) == advise(preset_profile("qpro"), fs="zfs", limits=None)


@pytest.mark.parametrize("kwargs, match", [
    ({"fs": "ntfs"}, "unknown target"),
    ({"fs": "ext4", "block_size_bytes": 3000}, "not a power of two"),
    ({"fs": "ext4", "block_size_bytes": 128 * 1024}, "not a power of two from 1 KiB to 64 KiB"),
    ({"fs": "mdadm", "data_disks": 0}, "positive"),
])
def test_bad_arguments_are_usage_errors(kwargs, match):
    with pytest.raises(UsageError, match=match):
        advise(preset_profile("mxp"), limits=None, **kwargs)


def test_json_document_is_plain_json_with_argv_lists():
    doc = json.loads(json.dumps(build_report(preset_profile("mxp"), fs="all", limits=None, profile_path="p.toml").to_dict()))
    assert doc["schema"] == "charz.tune/1" and doc["runs_nothing"] is True
    assert [a["target"] for a in doc["advice"]] == list(TARGETS)
    ext4 = doc["advice"][0]["commands"][0]
    assert ext4["argv"] == ["mkfs.ext4", "-b", "4096", "-E", "stride=8,stripe_width=32", "DEV"]
    assert ext4["options"][1] == {
        "name": "stride", "value": 8, "unit": "fs blocks", "fallback": False,
        "reason": ext4["options"][1]["reason"],
        "sources": [
            {"key": "results.write_io_unit_bytes", "value": 32768, "unit": "B", "kind": "profile",
             "confidence": "high", "origin": "inferred"},
            {"key": "block size", "value": 4096, "unit": "B", "kind": "option", "confidence": None,
             "origin": "--block-size default"},
        ],
    }
    assert doc["basis"]["kind"] == "unit" and doc["basis"]["full_bytes"] == 131072
    assert doc["advice"][0]["placeholders"] == {"DEV": "the block device (give --device to fill it in)"}


def test_text_shows_each_option_on_its_own_line_with_its_source():
    text = format_advice(advise(preset_profile("mxp"), fs="ext4", limits=None))
    lines = text.splitlines()
    assert lines[1] == "  $ mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 DEV"
    assert any(line.strip().startswith("stride = 8 fs blocks:") and "results.write_io_unit_bytes = 32 KiB (inferred, high)"
               in line for line in lines)
    assert any(line.strip().startswith("stripe_width = 32 fs blocks:") and "results.n_step = 4 steps (measured, high)"
               in line for line in lines)

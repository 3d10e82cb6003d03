"""``charz tune`` on a profile made by ``charz simulate`` + ``charz analyze`` (once per module), and its errors.

Expected commands are 003's MXP numbers worked out by hand: a 32 KiB unit, 4 units in
parallel (128 KiB), 4 KiB pages, 4 KiB blocks.
"""

from __future__ import annotations

import json
import subprocess
import sys

import tomllib

import pytest
from charz_cli import run

from charz.device.testing import SSD_QUEUE, make_fake_sysfs

pytestmark = pytest.mark.system


def _flat(text: str) -> str:
    """Text as words: tune folds its lines to the terminal (commands continued with a backslash)."""
    return " ".join(text.replace(" \\\n", " ").split())


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    session = tmp_path_factory.mktemp("tune") / "mxp"
    assert run(["simulate", "--preset", "mxp", "--out", str(session), "--seed", "21", "--read-sizes", "none", "--quiet"]) == 0
    assert run(["analyze", str(session)]) == 0
    # 12 packages contradicts the 4 × 8-page staircase (Eq. 1 gives 2.67 dies): the unit is undetermined
    assert run(["analyze", str(session), "--packages", "12", "-o", str(session / "p12.toml")]) == 0
    return {"mxp": session / "profile.toml", "p12": session / "p12.toml"}


def test_all_targets_for_the_mxp(profiles, capsys):
    capsys.readouterr()
    assert run(["tune", str(profiles["mxp"]), "--fs", "all"]) == 0
    out = _flat(capsys.readouterr().out)
    assert out.startswith("charz tune prints commands; it runs nothing.")
    for line in ("$ mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 DEV",
                 "$ mkfs.xfs -b size=4096 -d su=32k,sw=4 DEV",
                 "$ zpool create -o ashift=12 POOL DEV",
                 "$ zfs set recordsize=32K POOL",
                 "$ mkfs.btrfs -s 4096 -n 32768 DEV",
                 "$ mdadm --create MD --level=LEVEL --raid-devices=N --chunk=32K MEMBERS...",
                 "$ pvcreate --dataalignment 128k DEV",
                 "$ printf 'label: gpt\\nstart=2048\\n' | sfdisk DEV",
                 "$ parted --script -a optimal DEV mklabel gpt mkpart primary 1MiB 100%"):
        assert _flat(line) in out, line
    # The basis is quoted with the profile's own confidence (the staircase alone says
    # "medium" since issue 22's two-views rule; the tune output must not round it up).
    unit = tomllib.loads(profiles["mxp"].read_text())["results"]["write_io_unit_bytes"]
    assert f"results.write_io_unit_bytes = 32 KiB (inferred, {unit['confidence']})" in out


def test_json_for_scripts(profiles, capsys):
    capsys.readouterr()
    assert run(["tune", str(profiles["mxp"]), "--fs", "xfs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs_nothing"] is True and doc["basis"]["align_bytes"] == 32768 and doc["basis"]["parallel_units"] == 4
    (xfs,) = doc["advice"]
    assert xfs["commands"][0]["argv"] == ["mkfs.xfs", "-b", "size=4096", "-d", "su=32k,sw=4", "DEV"]


def test_device_limits_from_a_fake_sysfs_are_shown_and_compared(profiles, tmp_path, capsys):
    queue = {**SSD_QUEUE, "physical_block_size": "4096", "minimum_io_size": "4096", "optimal_io_size": "0"}
    root = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(8, 240), queue=queue)
    capsys.readouterr()
    assert run(["tune", str(profiles["mxp"]), "--fs", "ext4", "--device", "sdz", "--sysfs-root", str(root)]) == 0
    out = _flat(capsys.readouterr().out)
    assert _flat(f"kernel    {root}/block/sdz/queue: minimum_io_size 4096 B, optimal_io_size 0 B") in out
    assert "queue/optimal_io_size is 0: tools that align to it pick nothing; charz measured 128 KiB" in out
    assert "$ mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 /dev/sdz" in out
    assert "ext4 stride: mkfs.ext4 alone → no stride; charz → stride=8" in out


def test_io_size_overrides_change_what_the_tools_would_pick(profiles, capsys):
    capsys.readouterr()
    assert run(["tune", str(profiles["mxp"]), "--fs", "xfs", "--min-io", "32k", "--opt-io", "128k", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["limits"]["sectors_assumed"] is True
    assert doc["advice"][0]["disagreements"] == []  # mkfs.xfs alone would pick su=32k,sw=4 too
    assert not any("io_size" in d for d in doc["limit_disagreements"])


def test_undetermined_unit_gives_a_flagged_fallback_and_no_invented_numbers(profiles, capsys):
    capsys.readouterr()
    assert run(["tune", str(profiles["p12"]), "--fs", "all"]) == 0
    out = capsys.readouterr().out
    assert "[FALLBACK]" in out and "--packages" in out and "not a whole number" in out
    commands = [line for line in out.splitlines() if line.startswith("  $ ")]
    assert commands and not any(x in c for c in commands for x in ("stride", "su=", "recordsize", "--chunk", "128k"))


@pytest.mark.parametrize("content, message", [
    (None, "cannot read profile"),
    ('schema = "charz.profile/1"\n[results.n_step\nvalue = 4\n', "not valid TOML"),
    ('schema = "something/2"\n', "schema is 'something/2'"),
])
def test_bad_profiles_exit_8_with_a_message(tmp_path, capsys, content, message):
    path = tmp_path / "profile.toml"
    if content is not None:
        path.write_text(content)
    capsys.readouterr()
    assert run(["tune", str(path), "--fs", "ext4"]) == 8  # ProfileError
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines at the terminal width
    assert "error:" in err and message in err


def test_a_string_where_a_number_belongs_names_the_key_without_a_traceback(profiles, tmp_path):
    text = profiles["mxp"].read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[results.write_io_unit_bytes]\nvalue = 32768", '[results.write_io_unit_bytes]\nvalue = "32k"'))
    assert bad.read_text() != text
    proc = subprocess.run([sys.executable, "-m", "charz", "tune", str(bad), "--fs", "ext4"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 8  # ProfileError
    assert "results/write_io_unit_bytes/value" in " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("args", [["--fs", "ntfs"], ["--fs", "ext4", "--block-size", "3000"], ["--fs", "ext4", "--opt-io", "x"]])
def test_bad_options_exit_2(profiles, capsys, args):
    assert run(["tune", str(profiles["mxp"]), *args]) == 2


@pytest.mark.root
@pytest.mark.parametrize("start_sector, misaligned", [(2048, False), (2049, True)])
def test_a_real_partition_off_the_unit_is_said(profiles, tmp_path, capsys, start_sector, misaligned):
    # A real GPT on a real loop device, read through the real /sys: the kernel's `start`.
    from conftest_device import LoopDevice, need_root, need_tools

    need_root()
    need_tools("losetup", "sfdisk", "partx")
    dev = LoopDevice(tmp_path, partscan=True)
    try:
        part = dev.partition(start_sector=start_sector)
        capsys.readouterr()
        assert run(["tune", str(profiles["mxp"]), "--fs", "ext4", "--device", part]) == 0
        out = capsys.readouterr().out
    finally:
        dev.close()
    name = part.rsplit("/", 1)[1]
    assert f"{name} starts at byte {start_sector * 512}" in _flat(out)
    said = f"{name} starts at byte {start_sector * 512} (1 MiB + 512 B), 512 B past a multiple of the 32 KiB measured write unit"
    assert (said in _flat(out)) is misaligned, out


def test_a_session_directory_is_taken_like_analyze_and_report_take_it(profiles, tmp_path, capsys):
    # Issue 15 (12): "Is a directory".  With its profile.toml, the same answer as the file;
    # without one (a fresh simulate), analysed now, said on stderr, nothing written.
    session = profiles["mxp"].parent
    capsys.readouterr()
    assert run(["tune", str(profiles["mxp"]), "--fs", "xfs", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert run(["tune", str(session), "--fs", "xfs", "--json"]) == 0
    from_dir = json.loads(capsys.readouterr().out)
    assert from_dir["advice"] == from_file["advice"]

    bare = tmp_path / "bare"
    assert run(["simulate", "--preset", "mxp", "--out", str(bare), "--seed", "21", "--read-sizes", "none",
                "--quiet"]) == 0
    capsys.readouterr()
    assert run(["tune", str(bare), "--fs", "ext4"]) == 0
    captured = capsys.readouterr()
    assert "$ mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 DEV" in captured.out
    assert "has no profile.toml: analysed the session now" in captured.err
    assert not (bare / "profile.toml").exists()

    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(["tune", str(empty), "--fs", "ext4"]) == 2
    assert "neither a profile.toml nor a session.json" in capsys.readouterr().err

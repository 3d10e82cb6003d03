"""Every line the commands print fits the terminal: 80 columns by default (issue 25 item 4).

`simulate --list` and `tune` once printed lines up to 333 columns.  The truth is the
character count of what the command printed; the profile is charz.tune's test fixture.
"""

from __future__ import annotations

import pytest
from charz_cli import run

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def mxp_profile(short_dir):
    from charz.profile import write_profile
    from charz.tune.testing import preset_profile

    return write_profile(preset_profile("mxp"), short_dir() / "mxp.toml")  # its path is printed


def _lines(argv, capsys, monkeypatch, columns="80"):
    monkeypatch.setenv("COLUMNS", columns)
    capsys.readouterr()
    code = run(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines() + err.splitlines()


@pytest.mark.parametrize("argv", [["simulate", "--list"], ["wa", "model", "--mock"],
                                  ["wa", "model", "--op", "7%", "--pages-per-block", "256"]],
                         ids=lambda a: " ".join(a))
def test_listings_fit_80_columns(argv, capsys, monkeypatch):
    lines = _lines(argv, capsys, monkeypatch)
    assert lines and max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]


@pytest.mark.parametrize("columns", ["80", "60"])
def test_tune_fits_the_terminal(mxp_profile, capsys, monkeypatch, columns):
    lines = _lines(["tune", str(mxp_profile), "--fs", "all"], capsys, monkeypatch, columns)
    assert len(lines) > 40
    assert max(len(line) for line in lines) <= int(columns), [line for line in lines if len(line) > int(columns)]
    # a command folded to fit still pastes as one: every continued line ends in a backslash
    text = "\n".join(lines)
    assert "$ mkfs.ext4 -b 4096 -E stride=8,stripe_width=32 DEV" in text.replace(" \\\n    ", " ").replace(
        " \\\n      ", " ")


def test_tune_fills_in_the_device_on_the_mdadm_line(mxp_profile, tmp_path, capsys, monkeypatch):
    from charz.device.testing import SSD_QUEUE, make_fake_sysfs

    root = make_fake_sysfs(tmp_path / "sys", disk="sdz", devnum=(8, 240), queue=SSD_QUEUE)
    text = "\n".join(_lines(["tune", str(mxp_profile), "--fs", "mdadm", "--device", "sdz", "--sysfs-root", str(root)],
                            capsys, monkeypatch))
    flat = " ".join(text.replace(" \\\n", " ").split())
    assert "--chunk=32K /dev/sdz OTHERS..." in flat and "MEMBERS..." not in flat
    assert "OTHERS... = the other member devices" in flat

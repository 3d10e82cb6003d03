"""`charz characterize --mock --mock-dialect keysight`: a whole session through the Keysight
InfiniiVision driver and the mock's InfiniiVision dialect (8-division screen, `:CHANnel:OFFSet`
as the value at screen centre) reaches the same profile as the Tektronix dialect on the same
simulated drive, and 003's answers for it.

The session used to clip every capture on this dialect: autoset put zero one division above
the bottom of the 8-division screen, but the capture loop went back to Tek's -4 divisions,
the InfiniiVision screen's bottom edge, where idle noise sits at the lowest ADC code."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from charz.archive import read_archive
from charz.profile import read_profile
from charz.scope import load_model

pytestmark = pytest.mark.system

# 003 Table 2: the MXP has two dies per package, a 32 KiB write unit, channel-only allocation.
MXP = {"dies_per_package": 2, "write_io_unit_bytes": 32768, "allocation_scheme": "channel-only"}
DISCRETE = ("dies_per_package", "write_io_unit_bytes", "allocation_scheme", "packages_per_unit",
            "n_step", "step_pages")
CURRENTS = ("idle_a", "m_peak_a", "M_peak_a")


def charz(*args):
    proc = subprocess.run([sys.executable, "-m", "charz", *args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"charz {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def session(tmp_path, dialect):
    out = tmp_path / dialect
    charz("characterize", "--mock", "--mock-dialect", dialect, "--preset", "mxp", "--out", str(out),
          "--read-sizes", "none", "--repeats", "2", "--seed", "7", "--quiet")
    # The profile the session wrote: the analysis `charz analyze` would run again on the archive.
    return out, read_profile(out / "profile.toml")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dialects")
    return {d: session(tmp, d) for d in ("tek", "keysight")}


def test_keysight_session_reaches_the_tek_profile(both):
    (ks_dir, ks), (tek_dir, tek) = both["keysight"], both["tek"]
    meta = json.loads((ks_dir / "session.json").read_text())
    assert meta["bench"]["scope"].startswith("KEYSIGHT TECHNOLOGIES,DSOX3")  # the Keysight driver ran
    assert meta["bench"]["dialect"] == "keysight"
    r_ks, r_tek = ks["results"], tek["results"]
    for key, value in MXP.items():
        assert r_ks[key]["value"] == value, key
    for key in DISCRETE:  # (a TOML profile has no "value" where a field is undetermined)
        a, b = r_ks[key].get("value"), r_tek[key].get("value")
        if a is not None and b is not None:
            assert a == b, key
        else:
            # Only the quantisation differs, so a field one session decides and the other
            # leaves open must be a borderline one: never "high" on one scope alone.
            assert "high" not in (r_ks[key]["confidence"], r_tek[key]["confidence"]), key
    # The same drive drew the same current; only the quantisation differs: one ADC code
    # (scale / codes per division) of the coarser of the two sessions' records.
    code = max(read_archive(d).captures[0].channel("current").waveform.y_mult for d in (ks_dir, tek_dir))
    for key in CURRENTS:
        assert abs(r_ks[key]["value"] - r_tek[key]["value"]) <= code, key
    assert ks["warnings"] == tek["warnings"]


def test_keysight_captures_keep_zero_one_division_above_the_screen_bottom(both):
    ks_dir, _ = both["keysight"]
    divisions = load_model("keysight_dsox3000").vertical_divisions  # 8 (programmer's guide)
    archive = read_archive(ks_dir)
    assert archive.captures
    for c in archive.captures:
        s = c.channel("current").waveform
        scale = float(re.search(r"([0-9.eE+-]+) A/div", c.extra["scope"]["description"]).group(1))
        # InfiniiVision's y origin is the value at screen centre (:CHANnel:OFFSet, "the value
        # represented at center screen"): zero amperes is y_zero / scale divisions below it.
        assert s.y_offset_codes == 0
        assert -s.y_zero / scale == pytest.approx(-(divisions / 2 - 1))
        assert not s.clipped
        assert np.all(s.codes > s.code_min)

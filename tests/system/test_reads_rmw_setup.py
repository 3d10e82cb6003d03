"""003's read units, read-modify-write, and the set-up warnings, through simulate + analyze.

Expected values are 003's (§5.2–5.5, Fig. 6, 7, 16).
"""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.system

READ_UNIT = {"x25m": 4096, "mxp": 32768, "qpro": 8192}  # 003 Fig. 11, 15, 9


def charz(*args):
    proc = subprocess.run([sys.executable, "-m", "charz", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def profile_of(tmp_path, preset, *sim_args):
    out = tmp_path / preset
    charz("simulate", "--preset", preset, "--out", str(out), "--quiet", "--repeats", "3", *sim_args)
    return json.loads(charz("analyze", str(out), "--json").stdout)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """``shared(preset, *sim_args)``: the --json profile of that simulated session, simulated and
    analyzed once per module for the tests that ask for the very same session (as a string,
    so no test sees another's changes)."""
    texts: dict[tuple[str, ...], str] = {}

    def get(preset, *sim_args):
        key = (preset, *sim_args)
        if key not in texts:
            out = tmp_path_factory.mktemp("shared") / preset
            charz("simulate", "--preset", preset, "--out", str(out), "--quiet", "--repeats", "3", *sim_args)
            texts[key] = charz("analyze", str(out), "--json").stdout
        return json.loads(texts[key])

    return get


X25M_WRITES_AND_READS = ("--sizes", "4k:48k:4k")  # the default read sweep
MXP_PAST_SATURATION = ("--sizes", "4k:160k:4k", "--read-sizes", "4k,32k,64k")


@pytest.mark.parametrize("preset", sorted(READ_UNIT))
def test_read_unit_as_003_reports(preset, tmp_path, shared):
    p = (shared("x25m", *X25M_WRITES_AND_READS) if preset == "x25m" else
         profile_of(tmp_path, preset, "--sizes", "4k:48k:4k" if preset != "qpro" else "8k:48k:8k"))
    q = p["results"]["read_io_unit_bytes"]
    assert q["value"] == READ_UNIT[preset], q
    assert q["origin"] == "measured" and q["confidence"] in ("high", "medium")


def test_840_read_unit_is_larger_than_the_largest_read(tmp_path):
    p = profile_of(tmp_path, "840", "--sizes", "4k:48k:4k")
    q = p["results"]["read_io_unit_bytes"]
    assert q["value"] is None
    # 003 Fig. 13: the same waveform from 4 KB to 512 KB, so the unit is at least 512 KB
    assert q["details"]["at_least_bytes"] == 512 * 1024
    assert q["details"]["more_than_bytes"] < 512 * 1024 <= q["details"]["at_least_bytes"]


def test_rmw_below_the_unit_on_mxp_not_on_x25m(tmp_path, shared):
    # The unit must be known first, so the write sweep runs past saturation (128 KB on the MXP).
    mxp = shared("mxp", *MXP_PAST_SATURATION)
    assert mxp["rmw"]["detected"] is True
    affected = set(mxp["rmw"]["affected_sizes_bytes"])
    assert {k * 1024 for k in range(4, 32, 4)} <= affected  # 003 Fig. 16: 4 KB ... 28 KB
    assert 32768 not in affected and 65536 not in affected
    x25m = profile_of(tmp_path, "x25m", "--sizes", "4k:96k:4k", "--read-sizes", "4k,8k,16k")
    assert x25m["rmw"]["detected"] is False


@pytest.mark.parametrize(
    "preset, flag, kind",
    [
        ("x25m", "--no-standby", "idle-peaks"),  # 003 Fig. 6a
        ("x25m", "--write-cache", "write-cache"),  # 003 Fig. 7a
        ("mxp", None, "standby-tail"),  # 003 §5.5: 80 mA for ~5 s after an I/O
    ],
)
def test_each_setup_warning_fires_on_its_problem(preset, flag, kind, tmp_path):
    args = ["--sizes", "4k:48k:4k", "--read-sizes", "none"] + ([flag] if flag else [])
    p = profile_of(tmp_path, preset, *args)
    kinds = [w["kind"] for w in p.get("setup", [])]
    assert kind in kinds
    assert len(kinds) == 1, f"only the bench's own problem should be reported, got {kinds}"


def test_a_clean_bench_has_no_setup_warnings(shared):
    # The read-unit test's session: writes and reads on a clean bench, and no warning about either.
    p = shared("x25m", *X25M_WRITES_AND_READS)
    assert p.get("setup", []) == []


def test_power_budget_is_the_step_levels(shared):
    # The read-modify-write test's session (its reads do not enter the write staircase).
    p = shared("mxp", *MXP_PAST_SATURATION)
    budget = p["power"]["budget"]["rows"]
    assert [r["packages"] for r in budget] == [4, 8, 12, 16]  # 4 packages per step (Table 2: 16 / 4 steps)
    m_peak, big_m_peak = p["results"]["m_peak_a"]["value"], p["results"]["M_peak_a"]["value"]
    assert budget[0]["peak_a"] == pytest.approx(m_peak, abs=1e-9)
    assert budget[-1]["peak_a"] == pytest.approx(big_m_peak, abs=1e-9)
    assert big_m_peak == pytest.approx(0.400, rel=0.05)  # 003 Table 2: MXP M_peak 400 mA

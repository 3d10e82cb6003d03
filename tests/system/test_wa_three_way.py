"""Issue 14's acceptance on the mock: three views of one drive's WA agree within their uncertainties.

1. R/B pin: ``charz wa run --mock`` counts die 0's program pulses through the real
   sigrok-cli (Eq. 7), with its counting and volume standard error;
2. the drive's own counters: the simulated drive's SMART JSON before and after each
   sub-test, read by the parsers charz uses on a real drive, with their rounding error;
3. the closed form for uniform random page overwrites: Desnoyers' greedy (Eq. 12),
   evaluated with the tests' own Lambert W (tests/independent/closed_forms.py), at the drive's spare factor less the
   1–2 units per GC pool its GC keeps free (docs/ftl.md: a reserve of 1, collects to
   2) — that range is the closed form's stated uncertainty.

Steady state: sub-tests 2–N of 4K-RD-100%-W at the drive's full user space (sub-test 1
carries the initial fill, 000 Fig. 10).
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from tests.independent.closed_forms import greedy_sf

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

CHARZ = [str(Path(sys.executable).parent / "charz")]


def charz(*args, timeout=900):
    return subprocess.run([*CHARZ, *args], capture_output=True, text=True, timeout=timeout)


def mean_u(pairs):
    vals = [v for v, _ in pairs]
    scatter = statistics.stdev(vals) / math.sqrt(len(vals))
    return statistics.fmean(vals), max(scatter, math.sqrt(sum(u * u for _, u in pairs)) / len(pairs))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("wa3") / "a"
    p = charz("wa", "run", "--mock", "--no-benchmarks", "--subtests", "6", "--volume", "64m", "--mp", "2",
              "--samplerate", "100k", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    recs = {int(f.stem): json.loads(f.read_text()) for f in sorted((out / "steps").glob("[0-9][0-9][0-9][0-9].json"))}
    return out, p, recs


def test_rb_counters_and_closed_form_agree(run):
    out, p, recs = run
    steady = [r for r in recs.values() if r["step"]["subtest"] >= 1]
    assert len(steady) == 5
    rb = mean_u([(r["estimate"]["wa"]["value"], r["estimate"]["wa"]["uncertainty"]) for r in steady])
    sm = mean_u([(r["counters"]["wa"]["value"], r["counters"]["wa"]["uncertainty"]) for r in steady])
    # the counters are the drive's own Micron-style page counts, read from its smartctl JSON
    assert {c["name"] for c in steady[0]["counters"]["after"]["counters"]} == {
        "ATA 246 Total_LBAs_Written", "ATA 247 Host_Program_Page_Count", "ATA 248 FTL_Program_Page_Count"}
    # 1 and 2: within their combined standard errors (3 σ)
    assert abs(rb[0] - sm[0]) <= 3 * math.hypot(rb[1], sm[1]), (rb, sm)
    # 3: the closed form at the geometry in the archive (U = ⌊T/(1 + ρ)⌋, docs/ftl.md)
    ftl = json.loads((out / "wa.json").read_text())["bench"]["ftl"]
    units = ftl["blocks_per_plane"]  # multi-plane: one unit per block index (a die's, or a line over all)
    n_p = ftl["pages_per_block"] * ftl["planes"] * (_dies(ftl) if ftl.get("lines") else 1)
    t = ftl["channels"] * ftl["chips_per_channel"] * ftl["dies_per_chip"] * ftl["planes"] * units * \
        ftl["pages_per_block"]
    sf = (t - int(t / (1 + ftl["over_provisioning"]))) / t
    lo, hi = greedy_sf(sf - 1 / units, n_p), greedy_sf(sf - 2 / units, n_p)
    for name, (v, u) in (("R/B", rb), ("SMART", sm)):
        assert lo - 3 * u <= v <= hi + 3 * u, f"{name} {v:.3f} ± {u:.3f} outside the closed form's {lo:.3f}–{hi:.3f}"
    # the held units matter on this small drive: the nominal S_f alone would not hold the measurement
    assert rb[0] - 3 * rb[1] > greedy_sf(sf, n_p)


def _dies(ftl: dict) -> int:
    return ftl["channels"] * ftl["chips_per_channel"] * ftl["dies_per_chip"]


def test_wa_show_and_model_print_the_three_views(run):
    out, p, _ = run
    assert "SMART" in p.stdout and max(len(x) for x in p.stdout.splitlines()) <= 80
    m = charz("wa", "model", "--archive", str(out))
    assert m.returncode == 0, m.stderr
    assert max(len(x) for x in m.stdout.splitlines()) <= 80
    ftl = json.loads((out / "wa.json").read_text())["bench"]["ftl"]  # GC unit: a line over every die
    n_p = ftl["pages_per_block"] * ftl["planes"] * (_dies(ftl) if ftl.get("lines") else 1)
    for text in (f"greedy, {n_p} pages/block", "R/B pin, Eq. 7", "drive's SMART counters", "spare/physical",
                 "spare/user", "held free"):
        assert text in m.stdout


def test_intel_counters_say_too_coarse(tmp_path):
    out = tmp_path / "intel"
    p = charz("wa", "run", "--mock", "--mock-counters", "intel", "--no-benchmarks", "--subtests", "2",
              "--volume", "32m", "--mp", "2", "--samplerate", "100k", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    flat = " ".join(p.stdout.split())
    assert "too coarse: ATA 241 Host_Writes_32MiB counts 32 MiB; write at least 3.12 GiB" in flat
    bad = charz("wa", "run", "--mock", "--mock-counters", "hitachi", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "'hitachi' is not one of 'micron', 'intel', 'nvme'" in bad.stderr  # a Choice


def test_charz_report_draws_the_wa_archive(run, tmp_path):
    out, _, _ = run
    p = charz("report", str(out), "-o", str(tmp_path / "rep"))
    assert p.returncode == 0, p.stdout + p.stderr
    for name in ("wa-1-histogram.png", "wa-3-volume.png", "wa-4-models.png"):
        assert (tmp_path / "rep" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "skipped  WA per micro-benchmark: no Table 3 micro-benchmark" in p.stdout  # --no-benchmarks
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "Measured WA against the closed forms" in page and "data:image/png;base64," in page
    assert "R/B " in page and "counters " in page  # the steady values beside the figure
    for key in ("wa_steady_rb_own_op", "wa_steady_smart_own_op", "wa_greedy_model_own_op"):
        assert f'id="result-{key}"' in page  # and in the page's results table, with origins
    # 80 columns, paths aside (a path is printed whole, as every charz command does)
    assert max(len(x) for x in p.stdout.splitlines() if not x.startswith(("report ", "figure "))) <= 80
    # --wa belongs to a characterization session, not to a WA archive
    bad = charz("report", str(out), "--wa", str(out), "-o", str(tmp_path / "x"))
    assert bad.returncode != 0 and "itself a WA archive" in bad.stdout + bad.stderr


def test_charz_report_adds_wa_to_a_characterization_session(run, tmp_path):
    out, _, _ = run
    sess = tmp_path / "sess"
    p = charz("simulate", "--preset", "x25m", "--out", str(sess), "--repeats", "2", "--read-sizes", "none",
              "--quiet", timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    rep = charz("report", str(sess), "--wa", str(out), "-o", str(tmp_path / "rep"), timeout=900)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert (tmp_path / "rep" / "wa-4-models.png").exists() and (tmp_path / "rep" / "1-peak-staircase.png").exists()
    # the profile's own write_amplification section, drawn without the archive
    prof = sess / "profile.toml"
    if not prof.exists():
        assert charz("analyze", str(sess), "-o", str(prof)).returncode == 0
    # (the mock WA drive is not the x25m: the merge is allowed on purpose, to draw the section)
    assert charz("wa", "profile", str(out), "-o", str(prof), "--allow-geometry-mismatch").returncode == 0
    rep2 = charz("report", str(sess), "-o", str(tmp_path / "rep2"), timeout=900)
    assert rep2.returncode == 0, rep2.stdout + rep2.stderr
    assert (tmp_path / "rep2" / "8-write-amplification.png").exists()

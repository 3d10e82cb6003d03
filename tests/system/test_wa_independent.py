"""``charz wa analyze`` against R/B traces drawn by tests/independent_rb (from 000's text, not charz's).

Each trace goes to a file sigrok-cli reads (.sr, VCD or CSV, written by the generator's
own writers) and through the real ``sigrok-cli`` into ``charz wa analyze --json``.
The truth is the generator's: WA_true = dies · P_a · program pulses · M_p / host bytes
(000 Eq. 10), late background programs included.  Every case checks 000's bar the other
way round too: a count that is off by 1 % or more is never trusted; the clean and
normal cases are trusted and within 1 %.
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.independent_rb import files, model
from tests.system.charz_cli import run

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(shutil.which("sigrok-cli") is None, reason="sigrok-cli not installed")]

PAGE = 4096
DIES = 4          # 2 channels × 1 chip × 2 dies
GEOMETRY = ["--channels", "2", "--chips", "1", "--dies", "2", "--page-size", "4k", "--mp", "1"]
S = model.Scenario

# name, scenario, file format, extra options, expected: "good" (trusted, < 1 %) or "flagged"
CASES = [
    ("clean 1 MS/s .sr", S("a", 1e6), "sr", [], "good"),
    ("clean 1 MS/s VCD", S("b", 1e6, seed=1), "vcd", [], "good"),
    ("clean 250 kS/s CSV", S("c", 250e3, programs=300, seed=2), "csv", [], "good"),
    ("clean 4 MS/s .sr", S("d", 4e6, programs=300, seed=3), "sr", [], "good"),
    ("clean 24 MS/s .sr", S("e", 24e6, programs=150, seed=4), "sr", [], "good"),
    ("300 blips 0.02-2 µs at 250 kS/s", S("f", 250e3, glitches=300, seed=5), "sr", [], "good"),
    ("300 blips 0.02-2 µs at 1 MS/s", S("g", 1e6, glitches=300, seed=6), "vcd", [], "good"),
    ("100 kS/s: gaps merge", S("h", 100e3, seed=7), "vcd", [], "flagged"),
    ("erases 1.8-2.15 ms among the programs", S("i", 1e6, erase_us=(1800, 2150), pages_per_block=16, seed=8),
     "sr", [], "flagged"),
    ("erases 1.8-2.15 ms, a mode of their own", S("j", 1e6, erase_us=(1800, 2150), seed=9,
                                                  program_us=((250, 600), (900, 1500))), "sr", [], "good"),
    ("erases in a mode of their own, 16-page blocks", S("u", 1e6, erase_us=(1800, 2150), seed=20,
                                                       pages_per_block=16, program_us=((250, 600), (900, 1500))),
     "sr", [], "flagged"),
    ("... with --pages-per-block 16", S("u", 1e6, erase_us=(1800, 2150), seed=20, pages_per_block=16,
                                        program_us=((250, 600), (900, 1500))), "sr", ["--pages-per-block", "16"],
     "good"),
    ("erases 2.2-2.45 ms, just above the window", S("k", 1e6, erase_us=(2210, 2450), pages_per_block=16,
                                                    seed=10), "sr", [], "good"),
    ("erases 1.5-3 ms across the upper edge, 32-page blocks", S("v", 1e6, erase_us=(1500, 3000),
                                                               pages_per_block=32, seed=21), "sr", [], "flagged"),
    ("erases 0.3-1.8 µs after a program, 32-page blocks", S("w", 1e6, erase_gap_us=(0.3, 1.8), pages_per_block=32,
                                                            seed=24), "sr", [], "flagged"),
    ("late GC, recorded to the end", S("l", 250e3, late_programs=200, seed=11), "sr", [], "good"),
    ("late GC, recording stopped early", S("m", 250e3, late_programs=200, cut_end_s=0.05, seed=12), "sr", [],
     "flagged"),
    ("recording begins inside a pulse", S("n", 1e6, cut_start=True, seed=13), "sr", [], "good"),
    ("recording ends inside a pulse", S("o", 1e6, cut_end_s=-0.0003, seed=14), "sr", [], "flagged"),
    ("four dies uneven, all counted", S("p", 1e6, die_programs=(400, 430, 410, 445), seed=15), "sr",
     ["--channel", "RB0,RB1,RB2,RB3"], "good"),
]


def truth_wa(sc: model.Scenario, tr: dict, host: int) -> float:
    per_die = [d.programs for d in tr["dies"]]
    total = sum(per_die) * (DIES // len(per_die))  # one die drawn stands for 4 equal ones
    return total * PAGE / host


def analyze(tmp_path, sc: model.Scenario, fmt: str, extra: list[str], settle: str | None = "0.2"):
    tr = model.make(sc)
    names = [f"RB{d}" for d in range(len(tr["lows"]))]
    samples = files.sample(tr["lows"], tr["end_s"], sc.samplerate_hz)
    path = tmp_path / f"{sc.name}.{fmt}"
    opts = []
    if fmt == "sr":
        files.write_sr(path, samples, sc.samplerate_hz, names)
    elif fmt == "vcd":
        files.write_vcd(path, samples, sc.samplerate_hz, names)
        opts = ["-I", "vcd"]
    else:
        files.write_csv(path, samples, names)
        opts = ["-I", f"csv:samplerate={int(sc.samplerate_hz)}"]
    progs = sum(d.programs for d in tr["dies"]) * (DIES // len(tr["dies"]))
    host = int(progs * PAGE / 1.4)  # WA about 1.4
    argv = ["wa", "analyze", str(path), *opts, *GEOMETRY, "--host-bytes", str(host), "--json",
            "-o", str(tmp_path / f"wa-{sc.name}"), "--channel", "RB0", *extra]
    if settle is not None:
        argv += ["--settle", settle]
    return argv, truth_wa(sc, tr, host)


@pytest.mark.parametrize("name,sc,fmt,extra,expect", CASES, ids=[c[0] for c in CASES])
def test_independent_trace(tmp_path, capsys, name, sc, fmt, extra, expect):
    argv, wa_true = analyze(tmp_path, sc, fmt, extra)
    code = run(argv)
    doc = json.loads(capsys.readouterr().out)
    step = doc["steps"][0]
    wa = step["wa"]["value"] if step["wa"] else None
    re = abs(wa - wa_true) / wa_true if wa else None
    why = f"{name}: WA {wa} vs {wa_true:.4f}, errors {step['errors']}, warnings {step['warnings']}"
    assert not (step["trusted"] and re >= 0.01), why   # never trusted and 1 % off
    if expect == "good":
        assert step["trusted"] and code == 0 and re < 0.01, why
    else:
        assert not step["trusted"] and code == 4, why


def test_late_gc_with_000s_default_settle_is_untrusted_saying_why(tmp_path, capsys):
    # the recording holds 0.3 s of high after the late programs; 000 waits 300 s
    argv, _ = analyze(tmp_path, S("q", 250e3, late_programs=50, programs=200, seed=16), "sr", [], settle=None)
    assert run(argv) == 4
    cap = capsys.readouterr()
    step = json.loads(cap.out)["steps"][0]
    assert any("not high for the settle time (300 s)" in e for e in step["errors"])
    assert "1 of 1 step is not trustworthy" in cap.err


def test_one_die_of_uneven_dies_states_the_assumption_and_its_u_covers_the_miss(tmp_path, capsys):
    sc = S("r", 1e6, die_programs=(400, 430, 410, 445), seed=17)
    argv, wa_true = analyze(tmp_path, sc, "sr", [])
    run(argv)
    doc = json.loads(capsys.readouterr().out)
    step = doc["steps"][0]
    assert any("one die of 4 counted" in n and "(--channel D0,D1,…)" in n for n in doc["notes"])  # its own option
    wa = step["wa"]
    assert abs(wa["value"] - wa_true) <= 2 * wa["uncertainty"] and wa["confidence"] != "high"


def test_two_of_four_dies_report_each_count_and_their_spread(tmp_path, capsys):
    sc = S("s", 1e6, die_programs=(400, 440, 410, 430), seed=18)
    argv, wa_true = analyze(tmp_path, sc, "sr", ["--channel", "RB0,RB1"])
    run(argv)
    step = json.loads(capsys.readouterr().out)["steps"][0]
    assert step["programs"] == [400, 440] and step["channels"] == ["RB0", "RB1"]
    assert step["die_spread"] == pytest.approx(40 / 420)
    wa = step["wa"]
    assert abs(wa["value"] - wa_true) <= 2 * wa["uncertainty"]


def test_erases_in_a_mode_of_their_own_are_counted_apart_one_for_one(tmp_path, capsys):
    sc = S("t", 1e6, erase_us=(1800, 2150), seed=19, program_us=((250, 600), (900, 1500)))
    argv, _ = analyze(tmp_path, sc, "sr", [])
    assert run(argv) == 0
    step = json.loads(capsys.readouterr().out)["steps"][0]
    truth = model.make(sc)["dies"][0]
    assert step["erases_counted_apart"] == [truth.erases] and step["programs"] == [truth.programs]


def test_calibration_recording_finds_two_plane_programs_then_a_benchmark_is_within_1_percent(tmp_path, capsys):
    # 000 §3.5: a sequential run on a fresh drive has WA 1; with two pages under every pulse
    # (multi-plane) Eq. 7 with M_p = 1 reads 0.5.  The generator's truth: 2 pages per pulse.
    paths, hosts, truth = [], [], []
    for k, (sc, wa) in enumerate(((S("cal", 1e6, programs=500, gc_share=0.0, seed=22), 1.0),
                                  (S("bench", 1e6, programs=500, seed=23), 1.4))):
        tr = model.make(sc)
        samples = files.sample(tr["lows"], tr["end_s"], sc.samplerate_hz)
        path = tmp_path / f"{k}-{sc.name}.sr"
        files.write_sr(path, samples, sc.samplerate_hz, ["RB0"])
        pages = tr["dies"][0].programs * 2 * DIES
        hosts.append(str(int(pages * PAGE / wa)))
        truth.append(pages * PAGE / int(hosts[-1]))
        paths.append(str(path))
    geometry = GEOMETRY[:-2]  # without --mp 1: the calibration finds it
    argv = ["wa", "analyze", *paths, "--calibration", *geometry, "--settle", "0.2", "--json",
            "-o", str(tmp_path / "wa")]
    for h in hosts:
        argv += ["--host-bytes", h]
    assert run(argv) == 0
    cal, bench = json.loads(capsys.readouterr().out)["steps"]
    assert cal["kind"] == "calibrate" and cal["m_p"] == 2 and cal["trusted"]
    assert bench["trusted"] and abs(bench["wa"]["value"] - truth[1]) / truth[1] < 0.01

"""Property: over random drives the inference is exact, or says it cannot decide — never confidently wrong.

Random geometry (channels 1–16, ways 1–4, dies 1–4, pages 4/8/16 KB), an I/O unit
consistent with it, any block layout and order, random current levels, timings,
program-time spread, spikes, and noise set from a drawn ratio of step height to
noise σ — the RMS of one sample's white noise and mains hum together, split
between them at random.  The sweep runs one page past saturation,
five repeats, as 003 prescribes.  Three limits keep this under a minute and inside
what 003's method can see at all: the saturating write is at most 64 pages; the
program time outlasts the spread of register transfers, so every package of a
saturating write programs at once (checked on the simulator's own timeline); and
program current dominates the peak (a channel's transfer current is under a third
of a package's program current), 003's premise for reading packages off peaks.

The truth below is computed from the drawn drive with plain loops, not with charz.
Exactness is asked from a step height of 3 σ: the sweep ends one page past saturation, so
the top tread of a drive with one-package units is a single size, and at 2–3 σ that size
alone can read as "still rising" (undetermined, never wrong — which is still asserted).
"""

from __future__ import annotations

import math

EXACT_RATIO = 3.0  # step height over noise σ from which answers should be exact
EXACT_SHARE = 0.9  # ... on this share of those drives at least (undetermined is never wrong)
DRIVES = 100
from collections import Counter

import numpy as np
import pytest

from charz.analysis import Given, Trace, characterize
from charz.sim import Currents, Digitizer, DriveModel, Firmware, Geometry, Nuisances, SimulatedSSD, Timing, digitize
from charz.sim._schedule import PROGRAM
from charz.sim._walk import package_walk

pytestmark = pytest.mark.unit

OUTCOMES: dict[str, Counter] = {"steps": Counter(), "allocation": Counter()}
BANDS = {"steps": Counter(), "allocation": Counter()}
UNDECIDED: list[str] = []  # drives with step/noise >= EXACT_RATIO (and steps) that came out undetermined
CLEAR_EXACT: list[str] = []  # ... and those that came out exact


def _divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def truth_scheme(channels, ways, block_c, block_w, order, k, dies=1):
    """003's name for the drawn walk, from first principles."""
    if ways == 1:
        # No ways to walk; a unit filling one multi-die package is what 003 §5.2 calls way priority.
        return "way-priority" if k == 1 and dies > 1 else "channel-only"
    walk = package_walk(channels, ways, block_c, block_w, order, 2 * k)
    if k > 1:
        unit = walk[:k]
        if len({w for _, w in unit}) == 1:
            return "channel-only"
        return "channel-priority" if unit[1][0] != unit[0][0] else "way-priority"
    return "channel-priority" if walk[1][0] != walk[0][0] else "way-priority"


def drive(case: int):
    """Drive number ``case``: drawn with numpy from the case number alone, so the drives do
    not depend on anything else (Hypothesis also drew numbers written in charz's source:
    adding a literal to charz changed which drives this test saw)."""
    r = np.random.default_rng([case, 2203])
    while True:
        channels = int(r.integers(1, 17))
        ways = int(r.integers(1, 5))
        dies = int(r.integers(1, 5))
        page = int(r.choice([4096, 8192, 16384]))
        packages = channels * ways
        if packages * dies <= 64:
            break
    block_c = int(r.choice(_divisors(channels)))
    block_w = int(r.choice(_divisors(ways)))
    order = str(r.choice(["channel-priority", "way-priority"]))
    k = int(r.choice(_divisors(block_c * block_w)))
    t_xfer = r.uniform(20, 160) * page / 4096 / 2
    t_switch = r.uniform(8, 60)
    t_reg = dies * t_xfer
    # Long enough that every package of a saturating write is programming at one instant.
    t_prog = (packages * max(t_switch, t_reg) + t_reg) * r.uniform(1.3, 2.5) + 300
    prog_a = r.uniform(0.008, 0.12)
    # Step height over the noise's σ (white noise and mains hum together, RMS of one sample).
    ratio = math.exp(r.uniform(math.log(0.3), math.log(30)))
    noise_rms = k * prog_a / ratio
    hum_share = r.uniform(0, 0.7)
    sigma = noise_rms * math.sqrt(1 - hum_share**2)
    hum_amplitude = noise_rms * hum_share * math.sqrt(2)
    timing = Timing(
        t_xfer_page_us=t_xfer, t_switch_us=t_switch, t_prog_us=t_prog,
        t_prog_spread=r.uniform(0, 0.04), t_prog_jitter=r.uniform(0, 0.01),
        t_read_us=r.uniform(20, 90), t_cmd_us=r.uniform(10, 40), t_done_us=r.uniform(5, 25),
        host_rate_bytes_per_s=r.uniform(250e6, 3000e6),
    )
    currents = Currents(
        idle_a=r.uniform(0.01, 0.2), controller_a=r.uniform(0.03, 0.1),
        program_per_package_a=prog_a, transfer_a=prog_a * r.uniform(0.05, 0.3),
        read_per_package_a=prog_a * r.uniform(0.1, 0.5),
        package_spread=r.uniform(0, 0.05), ispp_ripple=r.uniform(0, 0.15),
    )
    nuisances = Nuisances(
        white_noise_a=sigma, hum_a=hum_amplitude, hum_hz=float(r.choice([50.0, 60.0])),
        spike_rate_hz=r.uniform(0, 20), spike_a=r.uniform(0, 0.3),
    )
    # The scope is set so idle, the saturated peak and their noise stay on screen (scope check's advice).
    hi = currents.idle_a + currents.controller_a + packages * prog_a * 1.2 + 0.05 + 6 * sigma + hum_amplitude
    lo = currents.idle_a - 6 * sigma - hum_amplitude - 0.01
    scale = (hi - lo) / 9.4
    dig = Digitizer(scale_a_per_div=scale, position_div=-4.7 - lo / scale, bits=int(r.choice([8, 16])))
    model = DriveModel(
        name="random", description="", given={},
        geometry=Geometry(channels, ways, dies, 2, page),
        firmware=Firmware(k * dies * page, page * int(r.choice([1, 2])) if dies >= 2 else page, block_c, block_w, order),
        timing=timing, currents=currents, nuisances=nuisances, digitizer=dig,
    )
    datasheet = bool(r.random() < 0.5)  # is the NAND timing given, as 003 had it?
    return model, ratio, datasheet, int(r.integers(0, 2**31))


def _saturating_write_overlaps(model, seed):
    g = model.geometry
    ssd = SimulatedSSD(model, seed=seed)
    act = ssd.request("write", g.packages * g.dies_per_package * g.page_size_bytes, 0, np.random.default_rng(seed))
    t0, t1, _, kind, _ = act.intervals
    t0, t1 = t0[kind == PROGRAM], t1[kind == PROGRAM]
    return t0.max() < t1.min(), act


def run(model, datasheet, seed, repeats=5):
    g = model.geometry
    page = g.page_size_bytes
    sat = g.packages * g.dies_per_package
    largest = sat + max(model.unit_pages, 2)
    ssd = SimulatedSSD(model, seed=seed)
    rng = np.random.default_rng(seed)
    probe = ssd.request("write", largest * page, 0, rng)
    dt = 2e-6
    pre = 400
    n = pre + int(probe.end_us * 1e-6 / dt) + 800
    ssd = SimulatedSSD(model, seed=seed)
    traces = []
    for r in range(repeats):
        for pages in range(1, largest + 1):
            # Each request starts on an I/O unit boundary, as 003's sequential sweep on a fresh
            # drive does (charz's 1 MiB-aligned offsets do this for power-of-two units).
            act = ssd.request("write", pages * page, (r * largest + pages) * 64 * model.firmware.write_io_unit_bytes, rng)
            amps = ssd.render(act, -pre * dt, dt, n, rng)
            w, _ = digitize(amps, model.digitizer.scale_a_per_div, model.digitizer.position_div,
                            sample_interval_s=dt, t_first_s=-pre * dt, width_bytes=1 if model.digitizer.bits == 8 else 2)
            traces.append(Trace("write", pages * page, w, repeat=r))
    t = model.timing
    given_ = Given(
        channels=g.channels, packages=g.packages, page_size_bytes=page, host_rate_bytes_per_s=t.host_rate_bytes_per_s,
        t_xfer_page_us=t.t_xfer_page_us if datasheet else None, t_prog_us=t.t_prog_us if datasheet else None,
    )
    return characterize(traces, given_)


def _dump(model, ratio, datasheet, seed):
    # For reproducing a failure by hand: CHARZ_PROPERTY_DUMP=path pytest ...
    import json
    import os
    from dataclasses import asdict

    target = os.environ.get("CHARZ_PROPERTY_DUMP")
    if target:
        with open(f"{target}.{len(os.listdir(os.path.dirname(target) or '.'))}", "w") as f:
            json.dump({"model": asdict(model), "ratio": ratio, "datasheet": datasheet, "seed": seed}, f)


def load_dump(path):
    import json

    d = json.load(open(path))
    m = d["model"]
    model = DriveModel(
        name=m["name"], description="", given={}, geometry=Geometry(**m["geometry"]), firmware=Firmware(**m["firmware"]),
        timing=Timing(**m["timing"]), currents=Currents(**m["currents"]), nuisances=Nuisances(**m["nuisances"]),
        digitizer=Digitizer(**m["digitizer"]),
    )
    return model, d["ratio"], d["datasheet"], d["seed"]


# The same drives in every run (a failure is reproducible, never flaky); drives whose
# saturating write does not program every package at once are outside 003's premise
# (the module docstring's second limit) and are skipped.
@pytest.mark.parametrize("case", range(DRIVES))
def test_inference_is_exact_or_undetermined_never_wrong(case):
    model, ratio, datasheet, seed = drive(case)
    overlaps, _ = _saturating_write_overlaps(model, seed)
    if not overlaps:
        pytest.skip("the saturating write never has every package programming at once")
    c = run(model, datasheet, seed)
    g = model.geometry
    k = model.packages_per_unit
    truth = {
        "n_step": g.packages // k,
        "step_pages": model.unit_pages,
        "dies_per_package": g.dies_per_package,
        "write_io_unit_bytes": model.firmware.write_io_unit_bytes,
    }
    band = "ratio>=3" if ratio >= EXACT_RATIO else "ratio<3"
    f = model.firmware
    what = (f"[{g.channels} ch × {g.ways} ways × {g.dies_per_package} dies, {g.page_size_bytes} B pages, k={k}, "
            f"block {f.block_channels}×{f.block_ways} {f.order}, step/σ {ratio:.2f}, datasheet {datasheet}, seed {seed}]")
    got = {key: c[key].value for key in truth}
    # the dies and the unit divide or multiply D_step: never surer than it
    rank = {"undetermined": 0, "low": 1, "medium": 2, "high": 3}
    for key in ("dies_per_package", "write_io_unit_bytes"):
        if c[key].known and c["step_pages"].known:
            assert rank[c[key].confidence] <= rank[c["step_pages"].confidence], (key, c[key], c["step_pages"])
    # A field left undetermined is not wrong: wrong is a stated field that differs.
    if any(got[key] is not None and got[key] != truth[key] for key in truth):
        outcome = "wrong"
    elif got == truth:
        outcome = "exact"
    else:
        outcome = "undetermined"
    if g.packages // k == 1 and outcome == "undetermined":
        outcome = "undetermined"  # one unit spans every package: only the durations can tell (Fig. 3c)
    if outcome == "wrong" or (ratio >= EXACT_RATIO and g.packages // k > 1 and outcome != "exact"):
        _dump(model, ratio, datasheet, seed)
    OUTCOMES["steps"][outcome] += 1
    BANDS["steps"][(band, outcome)] += 1
    assert outcome != "wrong", f"confidently wrong: got {got}, truth {truth} ({c['n_step'].evidence}) {what}"
    if ratio >= EXACT_RATIO and g.packages // k > 1 and outcome == "exact":
        CLEAR_EXACT.append(what)
    if ratio >= EXACT_RATIO and g.packages // k > 1 and outcome != "exact":
        # Decisiveness is a rate, asserted over all drives in test_rates: one borderline drive
        # (a last step at 3.9 σ) must not decide it.
        UNDECIDED.append(f"step/noise {ratio:.1f}: {c['n_step'].evidence} {what}")

    scheme = c["allocation_scheme"].value
    expected = truth_scheme(g.channels, g.ways, model.firmware.block_channels, model.firmware.block_ways, model.firmware.order, k,
                            g.dies_per_package)
    a_outcome = "undetermined" if scheme is None else ("exact" if scheme == expected else "wrong")
    if a_outcome == "wrong":
        _dump(model, ratio, datasheet, seed)
    OUTCOMES["allocation"][a_outcome] += 1
    BANDS["allocation"][(band, a_outcome)] += 1
    assert a_outcome != "wrong", f"allocation {scheme} but the drive walks {expected}: {c['allocation_scheme'].evidence} {what}"


def test_rates():
    # Runs after the property test in this module; prints what it saw (pytest -s, or the -rA
    # summary) and holds the decisiveness rate: exact on EXACT_SHARE of the drives whose step
    # stands EXACT_RATIO × the noise above it.
    if not sum(OUTCOMES["steps"].values()):
        pytest.skip("no drives seen: run it with the property test (the whole module)")
    lines = []
    for what, counts in OUTCOMES.items():
        total = sum(counts.values()) or 1
        rates = ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(counts.items()))
        lines.append(f"{what}: {sum(counts.values())} drives — {rates}")
        for band in ("ratio>=3", "ratio<3"):
            sub = {o: n for (b, o), n in BANDS[what].items() if b == band}
            if sub:
                lines.append(f"    {band}: " + ", ".join(f"{o} {n}" for o, n in sorted(sub.items())))
    print("\n" + "\n".join(lines))
    clear = len(CLEAR_EXACT) + len(UNDECIDED)
    assert clear == 0 or len(CLEAR_EXACT) / clear >= EXACT_SHARE, (
        f"{len(UNDECIDED)} of {clear} drives with step/noise >= {EXACT_RATIO} undetermined:\n" + "\n".join(UNDECIDED))

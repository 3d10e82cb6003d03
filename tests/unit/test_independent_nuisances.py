"""The independent generator's bench nuisances (issue 22) have the physics they claim.

Each test renders the generator's own noise-free current (``tests.independent.physics``)
and checks it against what the issue and paper 003 describe — edges at transfers and at
program starts, a shoulder between read bursts, a fixed time per page, dies that do not
add — not against anything charz says.  No charz import here.
"""

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from tests.independent.archive import write_session
from tests.independent.drive import NUISANCES, random_drive, with_nuisances
from tests.independent.physics import (
    Bench,
    DriveState,
    current,
    full_scale_a,
    nuisances,
    quantise,
    read_activity,
    write_activity,
)

pytestmark = pytest.mark.unit

SEEDS = range(40)


def _only(seed, name, **changes):
    return replace(random_drive(seed, {name: True}), **changes)


def _grid(act, step_us=0.1):
    return np.arange(0.0, act.busy[1] + 50.0, step_us)


def _rises(i, min_a):
    """Upward jumps of a noise-free, ripple-free waveform, merged when adjacent."""
    d = np.diff(i)
    up = np.flatnonzero(d > min_a)
    return up[np.r_[True, np.diff(up) > 1]] if up.size else up


def test_each_nuisance_is_drawn_on_and_off_in_the_random_sets():
    seen = {n: set() for n in NUISANCES}
    for seed in range(60):
        d, base = random_drive(seed), random_drive(seed, "none")
        seen["transfer_current"].add(d.i_xfer != base.i_xfer)
        seen["read_shoulder"].add(d.read_shoulder)
        seen["per_page_read"].add(d.per_page_read)
        seen["die_interleave"].add(d.die_interleave)
        seen["slow_sampling"].add((d.write_dt_us, d.read_dt_us) != (2.0, 4.0))
        seen["bench_noise"].add(d.noise_a != base.noise_a)
        seen["coarse_scope"].add(d.screen_fill != base.screen_fill)
    assert all(v == {True, False} for v in seen.values()), seen
    with pytest.raises(ValueError, match="unknown nuisances"):
        random_drive(1, {"no-such": True})


def test_switching_one_nuisance_leaves_the_drive_otherwise_alone():
    d = random_drive(5, "none")
    on = random_drive(5, {"die_interleave": True})
    assert replace(on, die_interleave=False) == d


@pytest.mark.parametrize("seed", [s for s in SEEDS if random_drive(s, "none").packages_per_unit > 1][:6])
def test_transfer_current_rises_at_each_transfer_and_again_at_each_program_start(seed):
    d = _only(seed, "transfer_current", ripple=0.0, dies=1)
    assert 0.2 <= d.i_xfer / d.i_prog <= 0.7
    state = DriveState(d)
    act = write_activity(state, d.unit_bytes, np.random.default_rng(seed))
    t = _grid(act)
    i = current(state, act, t)
    def jump(at):
        return float(np.diff(current(state, act, np.array([at - 0.05, at + 0.05])))[0])

    # each transfer draws i_xfer on its channel before its package draws program current;
    # with one die the transfer ends as the program begins, so that edge rises by i_prog − i_xfer
    for (a, b), (p, pa, _) in zip(act.transfers, act.programs):
        assert a < pa and b == pytest.approx(pa)
        # (another channel's package may start its transfer or program that very instant: it adds)
        assert jump(a) >= d.i_xfer * (1 - 1e-9)
        assert jump(pa) >= (d.i_prog * state.pkg_gain[p] - d.i_xfer) * (1 - 1e-9)
    # a one-unit write: one rise per transfer and one per program start (the transfer ends as
    # its package's program begins, so that edge rises by i_prog − i_xfer > 0)
    rises = _rises(i, min_a=0.3 * min(d.i_xfer, d.i_prog * 0.85 - d.i_xfer))
    events = {round(x, 6) for (a, _), (_, pa, _) in zip(act.transfers, act.programs) for x in (a, pa)}
    assert len(rises) == len(events) + 1  # + the controller's busy level at the start
    # more rises than packages: a count of rises alone would overcount the packages
    assert len(rises) > d.packages_per_unit + 1


def test_transfer_current_range_is_at_least_the_issues_30_to_60_percent():
    fracs = [random_drive(s, {"transfer_current": True}) for s in range(300)]
    fracs = [d.i_xfer / d.i_prog for d in fracs]
    assert min(fracs) < 0.3 and max(fracs) > 0.6


@pytest.mark.parametrize("seed", range(4))
def test_read_bursts_are_followed_by_a_transfer_shoulder_on_a_busy_level(seed):
    d = _only(seed, "read_shoulder", read_unit_pages=1)
    assert 0.013 <= d.i_burst <= 0.032 and 50.0 <= d.t_read_us <= 70.0
    state = DriveState(d)
    act = read_activity(state, 8 * d.page_bytes, np.random.default_rng(seed))
    assert len(act.bursts) == 8 and len(act.transfers) == 8
    t = _grid(act)
    i = current(state, act, t)
    busy = d.i_idle + d.i_busy
    for (a, b), (xa, xb) in zip(act.bursts, act.transfers):
        assert xa == b  # the unit leaves the package as soon as it is sensed
        inside = (t >= a + 1) & (t < b - 1)
        assert np.allclose(i[inside], busy + d.i_burst)
        shoulder = (t >= xa + 1) & (t < xb - 1)
        assert shoulder.any() and np.allclose(i[shoulder], busy + d.i_xfer)
    # the controller stays busy from the first burst to the last: never back to idle
    span = (t >= act.bursts[0][0]) & (t < act.bursts[-1][1])
    assert i[span].min() >= busy - 1e-12
    # without the nuisance the level between bursts is the busy level alone
    plain = replace(d, read_shoulder=False)
    ip = current(DriveState(plain), read_activity(DriveState(plain), 8 * d.page_bytes, np.random.default_rng(seed)), t)
    assert ip[span].min() == pytest.approx(busy)


@pytest.mark.parametrize("seed", range(4))
def test_per_page_read_grows_by_one_fixed_step_per_page(seed):
    d = _only(seed, "per_page_read")
    assert d.read_unit_pages == 1
    state = DriveState(d)
    ends, counts = [], []
    for pages in range(1, 13):
        act = read_activity(state, pages * d.page_bytes, np.random.default_rng([seed, pages]))
        counts.append(len(act.bursts))
        ends.append(act.bursts[-1][1])
    assert counts == list(range(1, 13))  # one burst per page: the read unit is one page
    steps = np.diff(ends)
    assert np.ptp(steps) < 1e-9 and steps[0] > d.t_read_us  # no treads: every page adds the same time


@pytest.mark.parametrize("seed", [s for s in SEEDS if random_drive(s, "none").dies >= 2][:4])
def test_dies_of_a_package_interleave_their_program_current_does_not_add(seed):
    d = _only(seed, "die_interleave", packages_per_unit=1)
    state = DriveState(d)
    act = write_activity(state, d.unit_bytes, np.random.default_rng(seed))
    p, a, b = act.programs[0]
    dies = [(s, e) for q, s, e in act.die_programs if q == p]
    assert len(dies) == d.dies
    t = np.arange(a, b, 0.05)
    extra = current(state, act, t) - d.i_idle - d.i_busy
    extra -= sum(d.i_xfer * ((t >= xa) & (t < xb)) for xa, xb in act.transfers)
    peak = d.i_prog * state.pkg_gain[p] * (1 + d.ripple)
    assert extra.max() <= peak + 1e-12  # never more than one die's peak, whatever the dies busy
    all_busy = (t >= max(s for s, _ in dies)) & (t < min(e for _, e in dies))
    one_busy = (t >= sorted(e for _, e in dies)[-2]) & (t < b)
    mean_all, mean_one = extra[all_busy].mean(), extra[one_busy].mean()
    level = d.i_prog * state.pkg_gain[p]
    assert mean_all == pytest.approx(level, rel=0.03) and mean_one == pytest.approx(level, rel=0.1)
    # the pump serves each busy die in turn: its sawtooth drops k times as often
    drops_all = np.count_nonzero(np.diff(extra[all_busy]) < -d.ripple * level)
    span_us = all_busy.sum() * 0.05
    assert drops_all == pytest.approx(d.dies * span_us / d.ripple_period_us, abs=1.5)


def test_slow_sampling_gives_2_and_4_us_records_of_8_bit_codes(tmp_path):
    seen = set()
    for seed in range(12):
        d = random_drive(seed, {"slow_sampling": True})
        seen.add((d.write_dt_us, d.read_dt_us))
    assert {2.0, 4.0} <= {w for w, _ in seen} and {2.0, 4.0} <= {r for _, r in seen}
    d = next(random_drive(s, {"slow_sampling": True}) for s in range(40)
             if random_drive(s, {"slow_sampling": True}).read_dt_us == 2.0 and random_drive(s).packages <= 8)
    root = write_session(d, tmp_path / "s")
    recs = [json.loads(f.read_text()) for f in sorted((root / "captures").glob("*.json"))]
    for r in recs:
        want = d.write_dt_us if r["op"] == "write" else d.read_dt_us
        assert r["sample_interval_s"] == pytest.approx(want * 1e-6)
        ch = r["channels"][0]
        assert ch["dtype"] == "int8" and (ch["code_min"], ch["code_max"]) == (-128, 127)
        if r["op"] == "read":  # the longest read fits: the timebase is set for it
            assert ch["n_samples"] * r["sample_interval_s"] == pytest.approx(0.04)


def test_bench_noise_sigma_reaches_the_6_mA_a_bench_showed():
    sigmas = [random_drive(s, {"bench_noise": True}).noise_a for s in range(200)]
    assert min(sigmas) < 0.003 and max(sigmas) > 0.0065
    d = random_drive(3, {"bench_noise": True})
    b = replace(Bench.of(d), hum_a=0.0, spikes_per_capture=0.0)
    x = nuisances(np.zeros(200_000), 2e-6, b, np.random.default_rng(1))
    assert x.std() == pytest.approx(d.noise_a, rel=0.03)


def test_coarse_scope_puts_the_busiest_moment_where_the_screen_setting_says():
    fills = []
    for seed in range(30):
        d = random_drive(seed, {"coarse_scope": True})
        fills.append(d.screen_fill)
        fs = full_scale_a(d)
        codes, y_mult, offset = quantise(np.array([0.0, fs * d.screen_fill]), fs)
        assert codes.dtype == np.int8 and y_mult == pytest.approx(fs / 250)
        # 0 A near the bottom, the busiest moment at screen_fill of the 250-code span
        assert int(codes[1]) - int(codes[0]) == pytest.approx(250 * d.screen_fill, abs=1)
    assert min(fills) < 0.5 and max(fills) > 0.85
    assert math.isclose(random_drive(0, "none").screen_fill, 0.7)


def test_with_nuisances_all_turns_every_switch_on():
    d = with_nuisances(random_drive(9, "none"), "all")
    assert d.read_shoulder and d.per_page_read and d.die_interleave and d.read_unit_pages == 1

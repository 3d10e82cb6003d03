"""The allocation fit's machinery: the recurrence's critical paths and the refinement.

Truth comes from 003 §4.2's recurrence as written in DESIGN.md (``prefix_end_us`` is
checked against 003's own numbers in test_latency_reference.py) and from durations
built by hand from stated timings."""

from __future__ import annotations

import numpy as np
import pytest

from charz.analysis._allocation import Timing, infer_allocation
from charz.analysis._latency import Layout, prefix_end_paths_us, prefix_end_us, visit_sequence


def _walks():
    return [visit_sequence(Layout(4, 2, c, w, o), 24) for c, w, o in
            ((4, 1, "channel-priority"), (2, 2, "channel-priority"), (2, 2, "way-priority"), (1, 2, "channel-priority"))]


def test_every_row_walks_its_own_order_and_its_counts_add_up_to_its_ends():
    rng = np.random.default_rng(4)
    walks = _walks()
    P = 12
    which = np.arange(P) % len(walks)
    ch = np.stack([walks[j][0] for j in which])
    pkg = np.stack([walks[j][1] for j in which])
    t_reg, t_sw, t_prog = rng.uniform(20, 300, P), rng.uniform(0, 80, P), rng.uniform(200, 2500, P)
    ends, counts = prefix_end_paths_us(ch, pkg, t_reg, t_sw, t_prog)
    for r in range(P):
        assert np.allclose(ends[r], prefix_end_us(ch[r], pkg[r], t_reg[r], t_sw[r], t_prog[r]))
    # every end is a whole number of transfers, switch delays and program times (no ready times)
    assert np.allclose(counts, np.round(counts))
    assert np.allclose(ends, np.einsum("rnk,rk->rn", counts, np.column_stack([t_reg, t_sw, t_prog])))
    # a path holds one program per time its package was taken: at least one, and no more
    # than the rounds over the drive's 8 packages so far
    assert np.all(counts[..., 2] >= 1)
    assert np.all(counts[..., 2] <= np.arange(24) // 8 + 1)


def test_with_host_ready_times_the_counts_give_the_slope():
    ch, pkg = visit_sequence(Layout(4, 2, 4, 1), 16)
    ready = np.arange(16) * 40.0  # a host slower than the switch delay
    base = dict(t_reg_us=[100.0], t_switch_us=[10.0], t_prog_us=[900.0])
    e0, c0 = prefix_end_paths_us(ch[None], pkg[None], ready_us=ready, **base)
    e1, _ = prefix_end_paths_us(ch[None], pkg[None], [100.0], [10.0], [901.0], ready)
    assert np.allclose(e1 - e0, c0[..., 2])  # one more µs of program time moves every end by its count
    assert np.allclose(e0, prefix_end_us(ch, pkg, 100.0, 10.0, 900.0, ready))


@pytest.mark.parametrize("layout, scheme", [(Layout(8, 2, 4, 1), "channel-only"),
                                            (Layout(4, 4, 2, 2, "way-priority"), "way-priority")])
def test_the_switch_delay_is_recovered_and_the_walk_found_from_clean_durations(layout, scheme):
    # 003 §5.5's MXP timing: 2 dies × 82 µs per package, 33 µs switch, 900 µs program
    k = layout.block_channels * layout.block_ways
    units = np.arange(1, layout.packages // k + 2)
    ch, pkg = visit_sequence(layout, int(units.max()) * k)
    truth = 40.0 + prefix_end_us(ch, pkg, 164.0, 33.0, 900.0)[units * k - 1]
    kw = dict(channels=layout.channels, packages=layout.packages, dies_per_package=2, unit_pages=2 * k,
              page_size_bytes=4096)
    sizes, durations = np.repeat(units * k * 2, 3), np.repeat(truth, 3) * 1e-6
    r = infer_allocation(sizes, durations, timing=Timing(82.0, None, 900.0), **kw)
    mine = min((c for c in r.candidates if c.scheme == scheme), key=lambda c: c.chi2)
    assert mine.chi2 == r.candidates[0].chi2
    assert abs(mine.params_us["t_switch_us"] - 33.0) < 0.5
    assert abs(mine.params_us["offset_us"] - 40.0) < 0.5
    # with nothing given, the true walk is still fitted exactly (whether others can be too
    # is the durations' business: here they can, and the answer is rightly undetermined)
    free = infer_allocation(sizes, durations, timing=Timing(), **kw)
    assert min(c.rms_residual_us for c in free.candidates if c.scheme == scheme) < 0.5


def _way_priority_with_page_types():
    """4 channels × 2 ways, a unit of 2 one-die packages on one channel (way priority),
    datasheet timing given; every other unit ends 6 % of tPROG later (an upper page),
    which no walk models."""
    layout = Layout(4, 2, 1, 2)
    units = np.arange(1, 6)
    ch, pkg = visit_sequence(layout, int(units.max()) * 2)
    clean = 30.0 + prefix_end_us(ch, pkg, 150.0, 10.0, 900.0)[units * 2 - 1]
    upper = np.where(units % 2 == 0, 0.06 * 900.0, 0.0)
    sizes = np.repeat(units * 2, 4)
    durations = np.repeat(clean + upper, 4) * 1e-6
    return infer_allocation(sizes, durations, channels=4, packages=8, dies_per_package=1, unit_pages=2,
                            page_size_bytes=4096, timing=Timing(150.0, 10.0, 900.0))


def test_durations_that_no_walk_explains_still_rule_out_a_walk_that_misses_far_more():
    r = _way_priority_with_page_types()
    assert r.scheme is None  # the upper pages make every walk misfit: no answer from durations
    fits = {c.scheme: min(f.rms_residual_us for f in r.candidates if f.scheme == c.scheme) for c in r.candidates}
    # two packages on separate channels would overlap their 150 µs transfers: each unit
    # 150 µs shorter than the drive's shared channel allows — far more than the page types
    assert "channel-only" in r.ruled_out
    assert fits["channel-only"] >= 2 * fits["way-priority"]
    assert "way-priority" not in r.ruled_out
    assert "channel-only" in r.ruled_out_reason and "µs" in r.ruled_out_reason


def test_a_rise_naming_a_scheme_the_durations_rule_out_is_a_disagreement():
    from charz.analysis._characterize import _scheme_quantity
    from charz.analysis._rise import RiseResult

    r = _way_priority_with_page_types()
    wrong = RiseResult(2, "channel-only", "high", "high", "2 packages", "starts 40 µs apart")
    q = _scheme_quantity(r, wrong, "high")
    assert q.value is None and q.details.get("decided_by") == "neither"
    assert "channel-only" in q.evidence and "rule out" in q.evidence
    right = RiseResult(2, "way-priority", "high", "high", "2 packages", "starts 150 µs apart")
    q = _scheme_quantity(r, right, "high")
    assert q.value == "way-priority" and q.details.get("decided_by") == "rise"

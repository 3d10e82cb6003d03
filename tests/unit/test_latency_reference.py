"""The latency recurrence against 003's own numbers (§5.3, §5.5), and the simulator against the recurrence."""

import numpy as np
import pytest

from charz.analysis._latency import Layout, prefix_end_us, request_end_us, scalar_visits_us, visit_sequence
from charz.sim import SimulatedSSD, load_preset

pytestmark = pytest.mark.unit

# 003 §5.5: one 32 KB unit of the MXP over 4 packages, 8 KB each.
MXP_T_REG, T_SWITCH, T_PROG = 164.0, 33.0, 900.0


@pytest.mark.parametrize(
    "block, order, expected_us",
    [
        ((4, 1), "channel-priority", 1163.0),  # channel-only
        ((2, 2), "channel-priority", 1261.0),
        ((2, 2), "way-priority", 1425.0),
    ],
)
def test_mxp_layouts_reproduce_003(block, order, expected_us):
    ch, pkg = visit_sequence(Layout(8, 2, *block, order), 4)
    assert request_end_us(ch, pkg, MXP_T_REG, T_SWITCH, T_PROG) == expected_us


def test_x25m_21st_page_waits_322_us_and_each_page_adds_33_us():
    ch, pkg = visit_sequence(Layout(10, 2, 10, 2, "channel-priority"), 21)
    starts, _ = scalar_visits_us(ch.tolist(), pkg.tolist(), 82.0, T_SWITCH, T_PROG)
    cursor_before_21st = starts[19] + T_SWITCH
    assert starts[20] - cursor_before_21st == 322.0
    ends = prefix_end_us(ch, pkg, 82.0, T_SWITCH, T_PROG)
    assert np.all(np.diff(ends[:20]) == 33.0)  # 4 KB → 80 KB


def test_vectorised_parameters_match_scalar_runs():
    ch, pkg = visit_sequence(Layout(8, 2, 2, 2, "way-priority"), 12)
    t_reg = np.array([100.0, 164.0, 250.0])
    t_sw = np.array([10.0, 33.0, 80.0])
    together = prefix_end_us(ch, pkg, t_reg, t_sw, 900.0)
    for i in range(3):
        assert np.array_equal(together[i], prefix_end_us(ch, pkg, t_reg[i], t_sw[i], 900.0))


def test_the_fits_scalar_recurrence_is_the_vectorised_one():
    # The allocation fit refines with the scalar form; it must be the same recurrence, exactly,
    # on every layout and with the host's data arriving late (ready times).
    rng = np.random.default_rng(4)
    for layout in (Layout(10, 2, 10, 2), Layout(8, 2, 2, 2, "way-priority"), Layout(4, 4, 1, 4, "way-priority"),
                   Layout(8, 1, 8, 1)):
        ch, pkg = visit_sequence(layout, 37)
        for _ in range(5):
            t_reg, t_sw, t_prog = rng.uniform(20, 400), rng.uniform(0, 80), rng.uniform(100, 3000)
            ready = np.sort(rng.uniform(0, 2000, ch.size))
            for r in (None, ready):
                _, ends = scalar_visits_us(ch.tolist(), pkg.tolist(), t_reg, t_sw, t_prog, None if r is None else r.tolist())
                assert ends == prefix_end_us(ch, pkg, t_reg, t_sw, t_prog, r).tolist()


def _exact(model):
    # No program-time spread or jitter: the simulator must then agree with the recurrence exactly.
    return model.with_changes(timing={"t_prog_spread": 0.0, "t_prog_jitter": 0.0})


@pytest.mark.parametrize("block, order", [((4, 1), "channel-priority"), ((2, 2), "channel-priority"), ((2, 2), "way-priority")])
def test_simulated_mxp_duration_agrees_with_recurrence(block, order):
    model = _exact(load_preset("mxp")).with_changes(
        firmware={"block_channels": block[0], "block_ways": block[1], "order": order}
    )
    ssd = SimulatedSSD(model)
    rng = np.random.default_rng(0)
    layout = Layout(8, 2, *block, order)
    for units in range(1, 6):
        act = ssd.request("write", units * 32768, 0, rng)
        ch, pkg = visit_sequence(layout, units * 4)
        predicted = request_end_us(ch, pkg, 164.0, 33.0, 900.0)
        nand_us = act.end_us - model.timing.t_done_us - act.nand_start_us
        assert nand_us == pytest.approx(predicted, abs=1e-6)


def test_simulated_x25m_agrees_with_recurrence_up_to_160_kb():
    model = _exact(load_preset("x25m"))
    ssd = SimulatedSSD(model)
    rng = np.random.default_rng(0)
    ch, pkg = visit_sequence(Layout(10, 2, 10, 2), 40)
    ends = prefix_end_us(ch, pkg, 82.0, 33.0, 900.0)
    for pages in (1, 2, 20, 21, 40):
        act = ssd.request("write", pages * 4096, 0, rng)
        assert act.end_us - model.timing.t_done_us - act.nand_start_us == pytest.approx(ends[pages - 1])

"""Figures 6 (read-modify-write, 003 Fig. 16) and 7 (energy, Power Budget, 003 §7), and one time reference."""

from __future__ import annotations

import numpy as np
import pytest

from charz.report._curve import Curve
from charz.report._fig_power import power_figure
from charz.report._fig_rmw import rmw_figure

pytestmark = pytest.mark.unit


def test_rmw_figure_marks_the_sizes_that_start_like_the_read():
    t = np.arange(100) * 4e-6
    curves = [Curve("read 32 KiB", t, np.full(100, 0.1)), Curve("write 4 KiB", t, np.full(100, 0.1)),
              Curve("write 32 KiB (one unit)", t, np.full(100, 0.2))]
    rmw = {"sizes_bytes": [4096, 8192, 32768], "head_distance_a": [0.002, 0.003, 0.05],
           "affected_sizes_bytes": [4096, 8192]}
    fig = rmw_figure(curves, rmw, unit_bytes=32768, t_range_s=(-1e-5, 3e-4), time_reference="trigger",
                     verdict="yes (high)")
    left, right = fig.axes
    assert [line.get_label() for line in left.get_lines()][:3] == [c.label for c in curves]
    assert left.get_xlabel() == "time from the trigger (µs)"
    red, = [c for c in right.collections if c.get_label().endswith("(RMW)")]
    assert red.get_offsets()[:, 0].tolist() == [4.0, 8.0]
    assert red.get_offsets()[:, 1].tolist() == pytest.approx([2.0, 3.0])     # mA
    assert fig._suptitle.get_text() == "read-modify-write: yes (high), write unit 32 KiB"


def test_power_figure_energy_in_mj_and_budget_line_at_m_peak_times_rail():
    energy = [{"op": "write", "size_bytes": 4096, "energy_j": 1e-3}, {"op": "write", "size_bytes": 8192, "energy_j": 2e-3},
              {"op": "read", "size_bytes": 4096, "energy_j": 5e-4}]
    fig = power_figure(energy, write_sizes_bytes=np.array([4096, 8192]), write_peaks_a=np.array([0.2, 0.3]),
                       rail_v=12.0, rail_origin="given", m_peak_a=0.3)
    left, right = fig.axes
    write, read = left.get_lines()
    assert write.get_xdata().tolist() == [4.0, 8.0] and write.get_ydata().tolist() == pytest.approx([1.0, 2.0])
    assert read.get_ydata().tolist() == pytest.approx([0.5])
    budget = [line for line in right.get_lines() if line.get_label().startswith("M_peak")][0]
    assert budget.get_ydata()[0] == pytest.approx(3.6)
    assert right.collections[0].get_offsets()[:, 1].tolist() == pytest.approx([2.4, 3.6])
    assert "12 V (given)" in left.get_title(loc="left")


def test_captions_use_the_archives_time_reference():
    from charz.archive import Capture, Channel
    from charz.waveform import Waveform
    from charz.report import build_report
    from charz.report._evidence import Measured

    ch = Channel("current", Waveform(np.zeros(10, np.int8), 0.01, 0, 0.0, 1e-6, 0.0, unit="A", source="CH1",
                                     code_min=-128, code_max=127))
    cap = Capture(step=0, op="write", size_bytes=4096, offset_bytes=0, repeat=0, time_reference="trigger",
                  channels=[ch])
    report = build_report({"results": {}}, Measured.of(op=[]), [cap])
    captions = " ".join(s.caption for s in report.sections)
    assert "time from the trigger" in captions and "from the request" not in captions and "{t0}" not in captions


def test_given_table_has_units(tmp_path):
    from charz.report._html import _key_value_table

    html = _key_value_table({"channels": 8, "page_size_bytes": 8192, "t_xfer_page_s": 8.2e-05,
                             "host_rate_bytes_per_s": 3e8, "rail_v": 5.0}, units=True)
    for cell in ("8 channels", "8 KiB (8192 B)", "82 µs", "300 MB/s", "5 V"):
        assert f"<td>{cell}</td>" in html


def test_burst_count_axis_is_whole_numbers_from_zero():
    from charz.report._fig_reads import read_bursts_figure

    t = np.arange(200) * 4e-6
    curves = [Curve("4 KiB", t, np.full(200, 0.1), size_bytes=4096), Curve("16 KiB", t, np.full(200, 0.1), size_bytes=16384)]
    bursts = {"sizes_bytes": [4096, 8192, 16384], "bursts": [1, 1, 1]}     # the 840: one burst at every size
    fig = read_bursts_figure(curves, window_samples=100, bursts=bursts, read_unit_bytes=None)
    counts_ax = fig.axes[-1]
    low, high = counts_ax.get_ylim()
    assert low == 0 and high >= 2
    ticks = [v for v in counts_ax.get_yticks() if low <= v <= high]
    assert ticks and all(float(v).is_integer() for v in ticks)

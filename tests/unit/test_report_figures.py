"""The figure functions on hand-made arrays and dicts: what they draw, how they label it, what they refuse.

Numbers are 003's MXP (4 steps × 8 pages, 32 KiB unit, channel-only at 1163 µs for one
unit in DESIGN.md's recurrence) or small enough to check by eye.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from charz.report import (
    Curve,
    allocation_figure,
    distinct_candidates,
    figure_png,
    overlay_figure,
    read_bursts_figure,
    staircase_figure,
    validation_figure,
)

pytestmark = pytest.mark.unit

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def mxp_steps():
    sizes = np.arange(1, 41)
    levels = np.array([0.163, 0.242, 0.321, 0.399])
    median = levels[np.minimum((sizes - 1) // 8, 3)]
    return {
        "reason": "4 levels, boundaries every 8 pages",
        "levels_a": levels.tolist(),
        "rises_after_pages": [8, 16, 24],
        "sizes_pages": sizes.tolist(),
        "median_peak_a": median.tolist(),
        "stderr_a": [0.0008] * 40,
    }


def mxp_allocation():
    sizes = [8, 16, 24, 32, 40]
    measured = np.array([1220, 1354, 1488, 1618, 2276]) * 1e-6
    return {
        "reason": "channel-only fits",
        "sizes_pages": sizes,
        "measured_s": measured.tolist(),
        "measured_se_s": [2e-6] * 5,
        "candidates": [
            {"scheme": "channel-only", "layouts": ["4×1"], "predicted_s": (measured + 3e-6).tolist(), "chi2": 1.0,
             "rms_residual_s": 3e-6},
            {"scheme": "channel-only", "layouts": ["8×1"], "predicted_s": (measured + 3e-6).tolist(), "chi2": 1.0,
             "rms_residual_s": 3e-6},
            {"scheme": "channel-priority", "layouts": ["2×2"], "predicted_s": (measured + 81e-6).tolist(),
             "chi2": 50.0, "rms_residual_s": 81e-6},
            {"scheme": "way-priority", "layouts": ["2×2"], "predicted_s": (measured + 497e-6).tolist(),
             "chi2": 900.0, "rms_residual_s": 497e-6},
        ],
    }


def level_heights_ma(ax) -> list[float]:
    return [seg[0][1] for c in ax.collections if c.get_gid() == "staircase-level" for seg in c.get_segments()]


def boundaries(ax) -> list[float]:
    return sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "step-boundary")


def texts(fig: Figure) -> str:
    """Every string drawn anywhere in the figure (titles, labels, annotations, legends, ticks)."""
    return "\n".join(t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")))


# ---------------------------------------------------------------------------
# figure 1: the staircase


def test_staircase_draws_captures_medians_levels_and_boundaries():
    steps = mxp_steps()
    pages = np.repeat(np.arange(1, 41), 2)
    peaks = np.repeat(np.array(steps["median_peak_a"]), 2) + np.tile([-0.001, 0.001], 40)
    fig = staircase_figure(pages, peaks, steps, annotations={"N_step": "4 steps", "D_step": "8 pages (32 KiB)",
                                                             "N_die": "2 dies"}, page_size_bytes=4096)
    ax = fig.axes[0]
    assert level_heights_ma(ax) == pytest.approx([163.0, 242.0, 321.0, 399.0])
    assert boundaries(ax) == [8.5, 16.5, 24.5]  # a rise after page r sits half-way between r and r + 1
    drawn = texts(fig)
    for expected in ("N_step = 4 steps", "D_step = 8 pages (32 KiB)", "N_die = 2 dies", "after 8 pages (32 KiB)",
                     "each capture (80)", "fitted staircase (4 levels)"):
        assert expected in drawn, expected
    assert "(mA)" in ax.get_ylabel() and "pages" in ax.get_xlabel()
    assert [c.get_xlabel() for c in ax.child_axes] == ["write size (KiB)"]
    assert figure_png(fig).startswith(PNG_SIGNATURE)


def test_staircase_levels_are_drawn_in_milliamps():
    fig = staircase_figure([1, 2], [0.1, 0.2], {"sizes_pages": [1, 2], "median_peak_a": [0.1, 0.2],
                                                "stderr_a": [0.0, 0.0], "levels_a": [0.1, 0.2],
                                                "rises_after_pages": [1]})
    assert level_heights_ma(fig.axes[0]) == pytest.approx([100.0, 200.0])


def test_a_rejected_staircase_is_dashed_and_says_so():
    fig = staircase_figure([1, 2], [0.1, 0.2], mxp_steps(), accepted=False)
    (tread,) = [c for c in fig.axes[0].collections if c.get_gid() == "staircase-level" and not c.get_label().startswith("_")]
    assert tread.get_label() == "closest staircase, not accepted (4 levels)"
    assert tread.get_linestyle()[0][1] is not None  # a dash pattern, not a solid line


def test_staircase_without_a_fit_says_why():
    steps = {**mxp_steps(), "levels_a": [], "rises_after_pages": [], "reason": "the peaks do not rise in steps"}
    fig = staircase_figure([1, 2], [0.1, 0.1], steps)
    assert "no staircase fitted: the peaks do not rise in steps" in fig.axes[0].get_title(loc="left")
    assert not boundaries(fig.axes[0]) and not level_heights_ma(fig.axes[0])


def test_staircase_labels_only_a_few_boundaries():
    # X-25M: 20 one-page steps; 19 labels would overlap, the lines alone stay
    sizes = list(range(1, 41))
    steps = {"sizes_pages": sizes, "median_peak_a": [0.1] * 40, "stderr_a": [0.0] * 40,
             "levels_a": [0.1 + 0.02 * i for i in range(20)], "rises_after_pages": list(range(1, 20))}
    fig = staircase_figure(sizes, [0.1] * 40, steps, page_size_bytes=4096)
    assert len(boundaries(fig.axes[0])) == 19
    assert "after 1 pages" not in texts(fig)


@pytest.mark.parametrize("broken, message", [
    ({"median_peak_a": [0.1]}, "differ in length"),
    ({"levels_a": [0.1, 0.2, 0.3]}, "need 2 rises"),
])
def test_staircase_refuses_tables_that_contradict_themselves(broken, message):
    steps = {**mxp_steps(), **broken}
    with pytest.raises(ValueError, match=message):
        staircase_figure([1], [0.1], steps)


def test_staircase_refuses_mismatched_captures():
    with pytest.raises(ValueError, match="differ in shape"):
        staircase_figure([1, 2], [0.1], mxp_steps())


# ---------------------------------------------------------------------------
# figure 2: waveform overlays


def test_overlay_draws_one_line_per_size_in_ma_and_us():
    t = np.arange(500) * 2e-6 - 1e-4
    curves = [Curve(f"{k * 4} KiB", t, np.where(t > 0, 0.1 * k, 0.015)) for k in (1, 8, 9)]
    fig = overlay_figure(curves, window_samples=20, t_range_s=(-1e-4, 9e-4))
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert [line.get_label() for line in lines] == ["4 KiB", "32 KiB", "36 KiB"]
    assert np.max(lines[1].get_ydata()) == pytest.approx(800.0)  # 0.8 A → mA
    assert lines[0].get_xdata()[0] == pytest.approx(-100.0)  # s → µs
    assert ax.get_xlim() == pytest.approx((-100.0, 900.0))
    assert ax.get_xlabel() == "time from the request (µs)"
    assert ax.get_ylabel() == "current, w = 20 moving average (mA)"
    assert ax.get_legend().get_title().get_text() == "write size"


def test_overlay_without_curves_says_so():
    fig = overlay_figure([], window_samples=20)
    assert "no captures to draw" in texts(fig)


def test_curve_refuses_unequal_arrays():
    with pytest.raises(ValueError, match="equal 1-D shapes"):
        Curve("x", np.zeros(3), np.zeros(4))


# ---------------------------------------------------------------------------
# figure 3: allocation candidates


def test_allocation_highlights_the_chosen_scheme_and_merges_identical_curves():
    fig = allocation_figure(mxp_allocation(), chosen_scheme="channel-only")
    top, bottom = fig.axes
    lines = {line.get_label(): line for line in top.get_lines() if not line.get_label().startswith("_")}
    chosen = [label for label in lines if label.startswith("chosen: channel-only")]
    assert len(chosen) == 1 and "4×1, 8×1" in chosen[0]  # two layouts, one curve
    assert "rms 3 µs" in chosen[0]
    widths = {label: line.get_linewidth() for label, line in lines.items()}
    assert widths[chosen[0]] == max(widths.values())
    assert len(lines) == 3  # channel-only (merged), channel-priority, way-priority
    assert top.get_ylabel() == "request duration (µs)"
    assert bottom.get_ylabel().startswith("measured − predicted (µs)")
    assert bottom.get_yscale() == "symlog"
    residual = [line for line in bottom.get_lines() if line.get_color() == lines[chosen[0]].get_color()]
    assert np.asarray(residual[0].get_ydata()) == pytest.approx(-3.0)  # measured − predicted, µs


def test_allocation_undetermined_highlights_nothing():
    fig = allocation_figure(mxp_allocation(), chosen_scheme=None)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert not any(label.startswith("chosen") for label in labels)
    assert "undetermined" in fig.axes[0].get_title(loc="left")


def test_allocation_says_how_many_curves_it_left_out():
    alloc = mxp_allocation()
    fig = allocation_figure(alloc, chosen_scheme="channel-only", max_candidates=2)
    assert "(1 more candidate curve(s) not drawn)" in texts(fig)


def test_distinct_candidates_keeps_the_profile_order():
    merged, more = distinct_candidates(mxp_allocation()["candidates"], limit=10)
    assert [c["scheme"] for c in merged] == ["channel-only", "channel-priority", "way-priority"] and more == 0


def test_allocation_refuses_a_prediction_of_the_wrong_length():
    alloc = mxp_allocation()
    alloc["candidates"][2]["predicted_s"] = [1e-3]
    with pytest.raises(ValueError, match="predicts 1 durations for 5 sizes"):
        allocation_figure(alloc, chosen_scheme="channel-only")


# ---------------------------------------------------------------------------
# figure 4: read bursts


def _read_curves(sizes_kib=(4, 32, 36)):
    t = np.arange(1000) * 4e-6
    return [Curve(f"{k} KiB", t, 0.08 + 0.05 * np.sin(t * 2e4) ** 2, size_bytes=k * 1024) for k in sizes_kib]


def test_reads_stack_one_panel_per_size_without_counts():
    fig = read_bursts_figure(_read_curves(), window_samples=100, detail=_read_curves(), detail_window_samples=20)
    assert len(fig.axes) == 3
    drawn = texts(fig)
    for expected in ("read 4 KiB", "read 36 KiB", "w = 100", "w = 20", "current (mA)", "time from the request (µs)"):
        assert expected in drawn, expected


def test_reads_add_the_burst_count_panel_with_the_unit_line():
    bursts = {"sizes_bytes": [4096, 32768, 36864, 524288], "bursts": [1, 1, 2, 16]}
    fig = read_bursts_figure(_read_curves(), window_samples=100, bursts=bursts, read_unit_bytes=32768)
    counts = fig.axes[-1]
    assert counts.get_ylabel() == "bursts per read" and counts.get_xscale() == "log"
    unit_line, dots = counts.get_lines()
    assert dots.get_ydata().tolist() == [1, 1, 2, 16]
    assert unit_line.get_label() == "one burst per 32 KiB read unit"
    assert np.max(unit_line.get_ydata()) == 16  # ⌈512 KiB / 32 KiB⌉


def test_reads_without_captures_say_so():
    assert "no read captures" in texts(read_bursts_figure([], window_samples=100))


def test_reads_refuse_unequal_count_lists():
    with pytest.raises(ValueError, match="differ in length"):
        read_bursts_figure(_read_curves(), window_samples=100, bursts={"sizes_bytes": [4096], "bursts": [1, 2]})


# ---------------------------------------------------------------------------
# figure 5: validation


def test_validation_groups_bars_by_alignment():
    rows = [
        {"record_size_bytes": 4096, "mb_per_s": 20.0, "j_per_mb": 0.50, "aligned": False},
        {"record_size_bytes": 8192, "mb_per_s": 30.0, "j_per_mb": 0.40, "aligned": False},
        {"record_size_bytes": 32768, "mb_per_s": 60.0, "j_per_mb": 0.20, "aligned": True},
        {"record_size_bytes": 65536, "mb_per_s": 62.0, "j_per_mb": 0.19, "aligned": True},
    ]
    fig = validation_figure(rows)
    speed, energy = fig.axes
    assert speed.get_ylabel() == "throughput (MB/s)" and energy.get_ylabel() == "energy (J/MB)"
    assert [t.get_text() for t in speed.get_xticklabels()] == ["4 KiB", "8 KiB", "32 KiB", "64 KiB"]
    heights = sorted(p.get_height() for p in speed.patches)
    assert heights == [20.0, 30.0, 60.0, 62.0]
    assert {t.get_text() for t in speed.get_legend().get_texts()} == {"aligned to the I/O unit", "not aligned"}


def test_validation_bars_are_centred_unless_a_size_has_both_alignments():
    rows = [{"record_size_bytes": 4096, "mb_per_s": 20.0, "aligned": False},
            {"record_size_bytes": 32768, "mb_per_s": 60.0, "aligned": True},
            {"record_size_bytes": 32768, "mb_per_s": 55.0, "aligned": None}]
    speed = validation_figure(rows).axes[0]
    centres = sorted((round(p.get_x() + p.get_width() / 2, 2), p.get_height()) for p in speed.patches)
    assert centres == [(0.0, 20.0), (0.8, 60.0), (1.2, 55.0)]
    assert "sequential O_DIRECT writes per record size" in texts(speed.figure)


def test_validation_says_when_the_numbers_are_a_model():
    rows = [{"record_size_bytes": 4096, "mb_per_s": 20.0, "aligned": False, "source": "model"}]
    assert "simulated model, not a measurement" in texts(validation_figure(rows))


def test_validation_without_energy_draws_throughput_and_says_why():
    rows = [{"record_size_bytes": 4096, "mb_per_s": 20.0, "aligned": None},
            {"record_size_bytes": 32768, "mb_per_s": 60.0, "aligned": None}]
    fig = validation_figure(rows)
    assert len(fig.axes[0].patches) == 2 and not fig.axes[1].patches
    assert "no energy in the validation rows" in texts(fig)
    assert "alignment not stated" in texts(fig)


def test_validation_refuses_a_row_without_a_record_size():
    with pytest.raises(ValueError, match="no record_size_bytes"):
        validation_figure([{"mb_per_s": 1.0}])


def test_figures_render_to_png_without_a_web_address():
    png = figure_png(validation_figure([{"record_size_bytes": 4096, "mb_per_s": 1.0, "aligned": True}]))
    assert png.startswith(PNG_SIGNATURE) and b"http" not in png

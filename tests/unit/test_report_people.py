"""The report's words as a person writes them: "after 1 page", layouts said as blocks (issue 15 items 4, 7)."""

from __future__ import annotations

import re

import pytest

from charz.report import allocation_figure, staircase_figure

pytestmark = pytest.mark.unit


def _texts(fig) -> str:
    out = []
    for ax in fig.axes:
        out += [t.get_text() for t in ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            out += [t.get_text() for t in legend.get_texts()]
    return " | ".join(out)


def test_a_boundary_after_one_page_says_page():
    # the 840: a step after every page (003 §5.4)
    steps = {"sizes_pages": [1, 2, 3], "median_peak_a": [0.1, 0.2, 0.3], "stderr_a": [0.001] * 3,
             "levels_a": [0.1, 0.2, 0.3], "rises_after_pages": [1, 2]}
    text = _texts(staircase_figure([1, 2, 3], [0.1, 0.2, 0.3], steps, page_size_bytes=4096))
    assert "after 1 page (4 KiB)" in text and "after 2 pages (8 KiB)" in text
    assert "1 pages" not in text


def test_allocation_legend_never_names_a_layout_as_a_second_scheme():
    # the MXP's candidates: a channel-only walk made of 4×2 blocks filled channel-first
    alloc = {"sizes_pages": [8, 16], "measured_s": [1.2e-3, 1.35e-3], "measured_se_s": [1e-6, 1e-6],
             "candidates": [
                 {"scheme": "channel-only", "layouts": ["1×1 channel-priority", "2×1 channel-priority"],
                  "predicted_s": [1.21e-3, 1.35e-3], "rms_residual_s": 3e-6},
                 {"scheme": "way-priority", "layouts": ["1×2 channel-priority", "2×2 way-priority"],
                  "predicted_s": [1.39e-3, 1.72e-3], "rms_residual_s": 5e-4}]}
    text = _texts(allocation_figure(alloc, chosen_scheme="channel-only"))
    assert "1×1 blocks filled channel-first" in text
    for label in text.split(" | "):
        named = re.findall(r"channel-only|channel-priority|way-priority", label)
        assert len(named) <= 1, label

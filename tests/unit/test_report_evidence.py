"""From measured captures to what the figures draw: peaks, chosen sizes, smoothed curves, time spans."""

from __future__ import annotations

import numpy as np
import pytest

from charz.archive import Capture, Channel
from charz.waveform import Waveform
from charz.report import (
    Measured,
    representative_captures,
    select_read_sizes,
    select_write_pages,
    smoothed_curve,
    time_span_s,
    write_peaks,
)
from charz.report._numbers import format_quantity, ordered_result_keys, size_label

pytestmark = pytest.mark.unit


def test_write_peaks_are_above_the_local_idle_and_skip_reads_partial_pages_and_unusable():
    m = Measured.of(
        op=["write", "write", "write", "read", "write"],
        size_bytes=[4096, 8192, 5000, 4096, 32768],
        local_baseline_a=[0.015, 0.020, 0.015, 0.015, 0.015],
        peak_a=[0.178, 0.183, 0.3, 0.1, 0.5],
        usable=[True, True, True, True, False],
    )
    pages, peaks = write_peaks(m, 4096)
    assert pages.tolist() == [1, 2]
    assert peaks == pytest.approx([0.163, 0.163])  # the same level once each capture's idle is taken out


def test_write_peaks_need_a_page_size():
    with pytest.raises(ValueError, match="page size"):
        write_peaks(Measured.of(op=["write"]), 0)


@pytest.mark.parametrize("rises, expected", [
    ([8, 16, 24], [1, 8, 16, 24, 25, 40]),  # MXP: one page, each step's last size, the top step, the largest
    ([4, 8, 12], [1, 4, 8, 12, 13, 40]),  # Q Pro in 8 KiB pages
    (list(range(1, 20)), [1, 2, 10, 19, 20, 40]),  # X-25M: 19 risers thinned, the top step kept
    ([], [1, 9, 17, 24, 32, 40]),  # no staircase: spread over the sweep
])
def test_select_write_pages(rises, expected):
    assert select_write_pages(range(1, 41), rises) == expected


def test_select_write_pages_of_an_empty_sweep():
    assert select_write_pages([], [8]) == []


def test_select_read_sizes_reproduces_003_fig_15_for_the_mxp():
    sizes = [4096 * k for k in range(1, 41)] + [524288]
    assert select_read_sizes(sizes, unit_bytes=32768, page_bytes=4096) == [4096, 32768, 36864, 524288]


def test_select_read_sizes_takes_the_nearest_sizes_the_session_has():
    assert select_read_sizes([4096, 16384, 65536], unit_bytes=32768, page_bytes=4096) == [4096, 16384, 65536]


def test_select_read_sizes_without_a_unit_spreads():
    assert select_read_sizes(range(4096, 4096 * 11, 4096), unit_bytes=None, page_bytes=4096) == [4096, 16384, 28672, 40960]


def test_representative_capture_is_the_lowest_usable_repeat():
    m = Measured.of(op=["write", "write", "write", "read"], size_bytes=[4096, 4096, 4096, 4096],
                    repeat=[2, 1, 0, 0], index=[5, 6, 7, 8], usable=[True, True, False, True])
    assert representative_captures(m, "write", [4096, 8192]) == {4096: 6}
    assert representative_captures(m, "read", [4096]) == {4096: 8}


def test_time_span_covers_the_longest_window_and_ignores_nan():
    m = Measured.of(op=["write"] * 3, index=[0, 1, 2], end_s=[1e-3, np.nan, 4e-3])
    assert time_span_s(m, [0, 1, 2]) == pytest.approx((-0.6e-3, 4.6e-3))
    assert time_span_s(m, [1]) is None


def _capture(codes, *, dt=2e-6, t0=-1e-4, index=3):
    w = Waveform(np.asarray(codes, dtype=np.int16), 0.001, 0, 0.0, dt, t0, unit="A", source="CH1",
                 code_min=-32768, code_max=32767)
    return Capture(index=index, step=0, op="write", size_bytes=32768, offset_bytes=0, repeat=0,
                   time_reference="request", channels=[Channel("current", w)])


def test_smoothed_curve_is_centred_so_an_edge_stays_where_it_was():
    codes = np.r_[np.full(100, 15), np.full(100, 415)]  # 15 mA idle, a step to 415 mA at sample 100
    curve = smoothed_curve(_capture(codes), 20)
    assert curve.label == "32 KiB" and curve.size_bytes == 32768 and curve.capture_index == 3
    assert curve.t_s.size == 181 and curve.current_a.size == 181
    half = np.flatnonzero(curve.current_a > 0.21)[0]  # 195 mA one sample before, 215 mA on it
    assert curve.t_s[half] == pytest.approx(-1e-4 + 100 * 2e-6)  # the half-way point is the edge's sample


def test_smoothed_curve_needs_a_current_channel():
    cap = _capture(np.zeros(50))
    with pytest.raises(KeyError, match="voltage"):
        smoothed_curve(cap, 20, channel="voltage")


@pytest.mark.parametrize("q, text", [
    ({"value": 4, "unit": "steps", "confidence": "high"}, "4 steps"),
    ({"value": 1, "unit": "pages", "confidence": "high"}, "1 page"),
    ({"value": 4096, "unit": "B", "confidence": "high"}, "4 KiB (4096 B)"),
    ({"value": 512, "unit": "B", "confidence": "high"}, "512 B"),
    ({"value": 8.2e-05, "unit": "s", "confidence": "high"}, "82.0 µs"),
    ({"value": 0.4136, "unit": "A", "uncertainty": 0.0008, "confidence": "high"}, "413.6 ± 0.8 mA"),
    ({"value": "channel-only", "unit": "", "confidence": "high"}, "channel-only"),
    ({"unit": "B", "confidence": "undetermined", "evidence": "no read sweep"}, "undetermined — no read sweep"),
    ({"unit": "dies", "confidence": "undetermined", "evidence": "Eq. 1 gives 2.67", "best_guess": 2.67},
     "undetermined (leans to 2.67 dies) — Eq. 1 gives 2.67"),
    (None, "not in the profile"),
])
def test_format_quantity(q, text):
    assert format_quantity(q) == text


def test_format_quantity_can_leave_the_evidence_out():
    q = {"unit": "B", "confidence": "undetermined", "evidence": "a long story"}
    assert format_quantity(q, with_evidence=False) == "undetermined"


def test_a_value_with_undetermined_confidence_still_reads_undetermined():
    # the schema forbids it, but a hand-edited profile may say so: the confidence wins
    assert format_quantity({"value": 2, "unit": "dies", "confidence": "undetermined", "evidence": "x"}).startswith("undetermined")


def test_sizes_and_order():
    assert [size_label(s) for s in (4096, 36864, 1 << 20, 1536)] == ["4 KiB", "36 KiB", "1 MiB", "1.5 KiB"]
    assert ordered_result_keys({"M_peak_a": {}, "extra": {}, "n_step": {}}) == ["n_step", "M_peak_a", "extra"]

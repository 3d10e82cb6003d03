"""The compiled window kernel against plain numpy: its hand-written medians, and the
quantities measure_window promises (peak = max of the w-sample average inside the
window, charge = the window's sum), on random waveforms of every sample type."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from charz.analysis import W_PEAK, measure_window, moving_average
from charz.analysis._window_kernel import SORT_MAX, _median, _median_abs_diff, _median_mad
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

# Few distinct values on purpose: ties are where hand-written medians go wrong.
tied = st.integers(1, 3 * SORT_MAX).flatmap(
    lambda n: hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 7.25, -3.0])))
spread = st.integers(1, 3 * SORT_MAX).flatmap(
    lambda n: hnp.arrays(np.float64, n, elements=st.floats(-1e3, 1e3, allow_nan=False)))


@settings(deadline=None)  # the first example compiles the function
@given(st.one_of(tied, spread))
def test_median_and_mad_equal_numpy(v):
    scratch = np.empty(SORT_MAX)
    med = np.median(v)
    assert _median(v, scratch) == med
    got_med, got_sigma = _median_mad(v, scratch)
    assert got_med == med
    assert got_sigma == pytest.approx(1.4826 * np.median(np.abs(v - med)), rel=1e-12, abs=1e-12)


@settings(deadline=None)  # the first example compiles the function
@given(st.integers(2, 256).flatmap(lambda n: hnp.arrays(np.int16, n, elements=st.integers(-20, 20) | st.integers(-32768, 32767))))
def test_median_abs_diff_counts_equal_numpy_median(x):
    want = np.median(np.abs(np.diff(x.astype(np.int64))))
    diffs, counts = np.empty(256), np.empty(4096, dtype=np.int64)
    assert _median_abs_diff(x, True, diffs, counts) == want  # counting path (or its fallback if wide)
    assert _median_abs_diff(x.astype(np.float64), False, diffs, counts) == want  # numpy path


def _pulse_rows(rng, n_rows, n):
    """Idle, a request of random length and height, noise and spikes — every row different."""
    rows = []
    for _ in range(n_rows):
        amps = np.full(n, 0.03) + rng.normal(0, rng.uniform(0.0005, 0.004), n)
        a = int(rng.integers(n // 5, n // 2))
        b = int(rng.integers(a + 5, n - 5)) if rng.random() < 0.9 else n  # some run past the record
        amps[a:b] += rng.uniform(0.02, 0.3)
        amps[rng.integers(0, n, 2)] += 0.3
        rows.append(np.clip(np.round(amps / 1e-3), -127, 127))
    return np.array(rows, dtype=np.int64)


@settings(max_examples=25, deadline=None)  # the first example of each sample type compiles the kernel
@given(st.integers(0, 2**32 - 1), st.sampled_from([1000, 2000, 10_000]))
def test_peak_and_charge_are_what_the_docs_say_on_every_sample_type(seed, n):
    rng = np.random.default_rng(seed)
    base = _pulse_rows(rng, 6, n)
    scale = dict(y_mult=1e-3, y_offset_codes=0, y_zero=0, sample_interval_s=2e-6, t_first_s=-0.2 * n * 2e-6)
    ref = measure_window(base, **scale)
    for dtype in (np.int8, np.int16, np.uint16, np.int32, np.float32, np.float64):
        codes = base - (base.min() if np.dtype(dtype).kind == "u" else 0)
        m = measure_window(codes.astype(dtype), **{**scale, "y_offset_codes": int(codes[0, 0] - base[0, 0])})
        for name in ("start_s", "end_s", "peak_a", "charge_c", "baseline_a", "noise_a", "flags"):
            np.testing.assert_allclose(getattr(m, name), getattr(ref, name), rtol=1e-9, atol=1e-12, err_msg=f"{dtype} {name}")
    dt = 2e-6
    checked = 0
    for row, (s, e, pk, q, b) in enumerate(zip(ref.start_s, ref.end_s, ref.peak_a, ref.charge_c, ref.baseline_a)):
        if np.isnan(s):
            continue
        i0 = round((s - scale["t_first_s"]) / dt)
        i1 = round((e - scale["t_first_s"]) / dt)
        # moving_average's value k belongs to sample k + w//2; keep those inside the window.
        avg = moving_average(base[row], W_PEAK)
        centre = np.arange(avg.size) + W_PEAK // 2
        inside = (centre >= i0) & (centre <= i1)
        if inside.any():
            assert pk == pytest.approx(avg[inside].max() * 1e-3, rel=1e-12)
            checked += 1
        assert q == pytest.approx((base[row, i0:i1 + 1].sum() * 1e-3 - b * (i1 - i0 + 1)) * dt, rel=1e-9, abs=1e-15)
    assert checked >= 3, "most rows hold a request; the check must have looked at some"


def test_too_short_records_and_bad_windows_are_clear_errors():
    with pytest.raises(ValueError, match="too short"):
        measure_window(np.zeros((1, 10), np.int16), y_mult=1, y_offset_codes=0, y_zero=0, sample_interval_s=1e-6, t_first_s=0)
    with pytest.raises(ValueError, match="w_peak"):
        measure_window(np.zeros((1, 100), np.int16), y_mult=1, y_offset_codes=0, y_zero=0, sample_interval_s=1e-6,
                       t_first_s=0, w_peak=0)


def test_wrapping_int64_differences_do_not_reach_the_counting_median():
    x = np.zeros(1000, np.int64)
    x[::2] = np.iinfo(np.int64).min
    counts = np.zeros(4097, dtype=np.int64)  # one sentinel past the part the kernel may use
    assert _median_abs_diff(x, True, np.empty(1000), counts[:4096]) == pytest.approx(2.0 ** 63)
    assert counts[4096] == 0


def _views():
    n = 2000
    base = np.zeros((2, n), np.int16)
    base[:, 400:900] = 2000
    base[1, 1000:1500] = 3000
    return {
        "rows in order": [base[0], base[1]],
        "rows swapped": [base[1], base[0]],
        "a reversed row": [base[0], base[1, ::-1]],
        "a slice across two rows": [base[0], base.reshape(-1)[n // 2:n // 2 + n]],
        "a reinterpreted row": [base[0], base[1].view(np.uint16)],
    }


@pytest.mark.parametrize("name", list(_views()))
def test_views_of_one_array_are_measured_as_their_own_samples(name):
    from charz.analysis import Trace, measure_traces

    views = _views()[name]

    def traces(rows):
        return [Trace("write", 4096, Waveform(r, 1e-4, 0, 0, 2e-6, -1e-3, unit="A"), index=i) for i, r in enumerate(rows)]

    in_place = measure_traces(traces(views))
    copied = measure_traces(traces([np.array(v) for v in views]))
    for field in ("start_s", "end_s", "peak_a", "baseline_a"):
        np.testing.assert_array_equal(getattr(in_place, field), getattr(copied, field), err_msg=field)


def test_a_batch_measures_each_capture_as_if_alone():
    rows = _pulse_rows(np.random.default_rng(7), 6, 4000)
    scale = dict(y_mult=1e-3, y_offset_codes=0, y_zero=0, sample_interval_s=2e-6)
    t_first = np.array([-1.6e-3, -0.4e-3, -2e-3, 0.0, -1e-3, -3e-3])  # pre-triggers differ, one has none
    batch = measure_window(rows, t_first_s=t_first, **scale)
    for i in range(len(rows)):
        alone = measure_window(rows[i], t_first_s=t_first[i], **scale)
        for name in batch.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(batch, name)[i:i + 1], getattr(alone, name), err_msg=name)

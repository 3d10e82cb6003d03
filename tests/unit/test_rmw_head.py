"""rmw's head of a capture from only the samples it reads (``head_span``) equals the head
of the whole capture bit for bit — wherever the request starts, inside the record, before
it or past its end — and a waveform's sliced values equal the slice of its values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.analysis._rmw import head, head_span
from charz.waveform import Waveform

pytestmark = pytest.mark.unit


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3000), st.sampled_from([1e-6, 2e-6, 4e-6, 2.5e-6, 8e-9]), st.floats(-2e-3, 8e-3),
       st.floats(-1e-3, 1e-3), st.floats(0.0, 2e-3), st.integers(0, 2**32 - 1))
def test_head_of_the_samples_it_reads_is_the_head_of_the_capture(n, dt, start_s, t_first_s, head_s, seed):
    values = np.random.default_rng(seed).normal(0.1, 0.02, n)
    whole = head(values, dt, start_s, t_first_s, 0.01, head_s)
    lo, hi = head_span(n, dt, start_s, t_first_s, head_s)
    assert 0 <= lo < hi <= n
    part = head(values[lo:hi], dt, start_s, t_first_s, 0.01, head_s, offset=lo)
    assert np.array_equal(part, whole)


def test_waveform_values_slice():
    w = Waveform(codes=np.arange(-50, 50, dtype=np.int16), y_mult=3e-4, y_offset_codes=7, y_zero=0.02,
                 sample_interval_s=2e-6, t_first_s=0.0, unit="A")
    assert np.array_equal(w.values(13, 71), w.values()[13:71])
    assert np.array_equal(w.values(), w.values(0, None))

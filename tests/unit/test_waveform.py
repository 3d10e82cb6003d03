"""The shared waveform value: scaling, time axis and clipping against hand-computed numbers."""

import numpy as np
import pytest

from charz.waveform import Waveform

pytestmark = pytest.mark.unit


def test_values_and_times_follow_the_documented_formula():
    # (code - 3.5) * 0.25 + 1.0 and t = -1e-3 + i * 1e-4, worked by hand
    w = Waveform(np.array([3, 7, -1], dtype=np.int16), 0.25, 3.5, 1.0, 1e-4, -1e-3, unit="V")
    assert w.values().tolist() == [0.875, 1.875, -0.125]
    assert np.allclose(w.times_s(), [-1e-3, -0.9e-3, -0.8e-3], rtol=0, atol=1e-15)
    assert w.n_samples == 3 and w.duration_s == pytest.approx(3e-4)


def test_clipping_counts_codes_at_either_limit():
    w = Waveform(np.array([-128, -127, 0, 126, 127, 127], dtype=np.int8), 1.0, 0, 0, 1.0, 0.0,
                 unit="A", code_min=-128, code_max=127)
    assert w.clipped and w.clipped_fraction == pytest.approx(3 / 6)
    inside = Waveform(np.array([-127, 126], dtype=np.int8), 1.0, 0, 0, 1.0, 0.0, unit="A",
                      code_min=-128, code_max=127)
    assert not inside.clipped
    unknown = Waveform(np.array([-128, 127], dtype=np.int8), 1.0, 0, 0, 1.0, 0.0, unit="A")
    assert unknown.clipped_fraction == 0.0  # no limits given: nothing is known to be clipped


def test_codes_are_frozen_without_touching_the_callers_array():
    mine = np.arange(4, dtype=np.int16)
    w = Waveform(mine, 1.0, 0, 0, 1.0, 0.0, unit="A")
    with pytest.raises(ValueError):
        w.codes[0] = 9
    mine[0] = 9  # still the caller's to write
    assert np.shares_memory(mine, w.codes)


def test_numbers_are_normalised_and_bad_types_refused():
    w = Waveform(np.zeros(2, np.int8), 1, 0, 0, 1, 0, unit="A", code_min=np.int64(-128), code_max=127)
    assert type(w.y_offset_codes) is float and type(w.code_min) is int
    with pytest.raises(TypeError, match="y_mult"):
        Waveform(np.zeros(2, np.int8), "0.1", 0, 0, 1, 0, unit="A")
    with pytest.raises(TypeError, match="y_zero"):
        Waveform(np.zeros(2, np.int8), 0.1, 0, True, 1, 0, unit="A")
    with pytest.raises(TypeError, match="integer array"):
        Waveform(np.zeros(2), 0.1, 0, 0, 1, 0, unit="A")
    with pytest.raises(TypeError, match="integer array"):
        Waveform(np.zeros((2, 2), np.int8), 0.1, 0, 0, 1, 0, unit="A")


def test_equality_is_by_value_and_dtype():
    a = Waveform(np.array([1, 2], np.int16), 0.5, 0, 0, 1e-6, 0.0, unit="A", source="CH1")
    assert a == Waveform(np.array([1, 2], ">i2"), 0.5, 0, 0, 1e-6, 0.0, unit="A", source="CH1")
    assert a != Waveform(np.array([1, 2], np.int8), 0.5, 0, 0, 1e-6, 0.0, unit="A", source="CH1")
    assert a != Waveform(np.array([1, 3], np.int16), 0.5, 0, 0, 1e-6, 0.0, unit="A", source="CH1")
    assert a != Waveform(np.array([1, 2], np.int16), 0.5, 0, 0, 2e-6, 0.0, unit="A", source="CH1")

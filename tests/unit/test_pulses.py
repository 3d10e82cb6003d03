"""The R/B pulse counter on hand-made pulse trains whose counts the test knows by construction."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.analysis._pulses import WINDOWS_MLC, WINDOWS_SLC, PulseCounter, PulseWindows, count_pulses

pytestmark = pytest.mark.unit

RATE = 1e6  # 1 sample = 1 µs, so widths below read directly in µs


def train(pulses, total, *, high_blips=()):
    """R/B samples: high, low on each (start, width); ``high_blips`` (start, width) set high again."""
    rb = np.ones(total, np.uint8)
    for s, w in pulses:
        rb[s:s + w] = 0
    for s, w in high_blips:
        rb[s:s + w] = 1
    return rb


def split(rb, cuts):
    cuts = sorted(set(int(c) for c in cuts if 0 < c < rb.size))
    return np.split(rb, cuts)


def test_one_of_each_kind_with_their_own_windows():
    # read 30 µs, program 900 µs, erase 3000 µs, low glitch 1 µs, and 25 ms: beyond the erase window
    pulses = [(100, 30), (500, 900), (2000, 3000), (6000, 1), (7000, 25000)]
    c = count_pulses(train(pulses, 40000), RATE)
    assert (c.reads, c.programs, c.erases, c.glitches, c.other) == (1, 1, 1, 1, 1)
    assert c.pulses == 5 and c.partial == 0 and c.open_us == 0
    assert c.high_for_us == 40000 - 32000


def test_window_edges_are_open_intervals():
    # 000: T_program ∈ (a, b); exactly a or b is not a program
    pulses = [(100, 200), (1000, 201), (2000, 2199), (5000, 2200)]
    c = count_pulses(train(pulses, 10000), RATE)
    assert c.programs == 2
    assert c.reads == 0  # 200 is not inside (2, 200) either
    assert c.other == 2 and c.erases == 0  # 200 and 2200 sit on the edges of every window


def test_slc_window_counts_only_short_programs():
    pulses = [(100, 250), (1000, 450), (2000, 900)]  # 900 µs is an erase-ish pulse for SLC windows
    c = count_pulses(train(pulses, 5000), RATE, WINDOWS_SLC)
    assert c.programs == 2 and c.erases == 1


def test_pulse_cut_by_every_chunk_boundary_is_counted_once():
    pulses = [(1000 + 3000 * k, 700 + 100 * (k % 5)) for k in range(20)]
    rb = train(pulses, 70000)
    # cut at every sample of the third pulse, one run per cut, and inside every pulse at once
    s3, w3 = pulses[3]
    for cut in range(s3 - 1, s3 + w3 + 2):
        c = PulseCounter(RATE)
        for part in split(rb, [cut]):
            c.feed(part)
        assert c.counts.programs == 20, cut
    c = PulseCounter(RATE)
    for part in split(rb, [s + w // 2 for s, w in pulses] + [s for s, _ in pulses] + [s + w for s, w in pulses]):
        c.feed(part)
    assert c.counts.programs == 20 and c.counts.pulses == 20


def test_one_sample_chunks():
    rb = train([(10, 300), (400, 40)], 600)
    c = PulseCounter(RATE)
    for x in rb:
        c.feed(np.array([x], np.uint8))
    assert (c.counts.programs, c.counts.reads) == (1, 1)


def test_high_glitch_inside_a_program_does_not_split_it():
    # a 900 µs program with a 1 µs high blip at 400 µs: one program of 900 µs, one glitch
    rb = train([(1000, 900)], 3000, high_blips=[(1400, 1)])
    c = count_pulses(rb, RATE)
    assert (c.programs, c.glitches, c.pulses) == (1, 1, 1)
    assert c.histogram[900 // 10] == 1
    # the same blip across a chunk boundary
    pc = PulseCounter(RATE)
    for part in split(rb, [1400, 1401]):
        pc.feed(part)
    assert (pc.counts.programs, pc.counts.glitches) == (1, 1)


def test_high_stretch_longer_than_glitch_splits():
    rb = train([(1000, 900)], 3000, high_blips=[(1400, 5)])  # 400 µs + 495 µs: two programs
    c = count_pulses(rb, RATE)
    assert c.pulses == 2 and c.programs == 2 and c.glitches == 0


def test_partial_first_and_open_last_pulses_are_not_counted():
    rb = train([(0, 500), (1000, 900), (3000, 10000)], 4000)  # starts low; ends low (open)
    c = count_pulses(rb, RATE)
    assert c.partial == 1 and c.programs == 1
    assert c.open_us == 1000 and c.high_for_us == 0


def test_histogram_holds_every_width():
    widths = [30, 30, 35, 800, 1200, 1200, 3000]
    pulses = [(100 + 5000 * k, w) for k, w in enumerate(widths)]
    c = count_pulses(train(pulses, 5000 * len(widths) + 100), RATE)
    expect = np.zeros_like(c.histogram)
    for w in widths:
        expect[w // 10] += 1
    np.testing.assert_array_equal(c.histogram, expect)
    assert c.histogram.sum() == c.pulses == 7


def test_other_bit_and_samplerate():
    # R/B on bit 2 of a byte whose other bits toggle every sample; 4 MS/s
    n = 40000
    rb = train([(4000, 4 * 900)], n)  # 900 µs at 4 MS/s
    noise = np.tile(np.array([0, 1, 2, 3], np.uint8), n // 4)
    byte = (rb << 2) | noise
    c = count_pulses(byte, 4e6, bit=2)
    assert c.programs == 1 and c.pulses == 1
    assert c.high_for_us == pytest.approx((n - 4000 - 3600) / 4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="program_us"):
        PulseWindows(program_us=(500, 200))
    with pytest.raises(ValueError, match="samplerate"):
        PulseCounter(0)
    with pytest.raises(ValueError, match="uint8"):
        PulseCounter(RATE).feed(np.ones(10, np.int32))
    with pytest.raises(ValueError, match="1-D"):
        PulseCounter(RATE).feed(np.ones((2, 2), np.uint8))


def test_counts_round_trip_through_json_dict():
    c = count_pulses(train([(10, 300)], 1000), RATE)
    d = c.to_dict()
    back = type(c).from_dict(d)
    assert back.programs == 1 and np.array_equal(back.histogram, c.histogram)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(3, 4000), st.integers(3, 400)), min_size=1, max_size=40),
       st.lists(st.integers(0, 200000), max_size=30))
def test_property_counts_equal_construction_for_any_chunking(spec, cuts):
    # pulses of width w separated by gaps g ≥ 3 > glitch: the classification is known from w alone
    pos, pulses = 5, []
    for w, g in spec:
        pulses.append((pos, w))
        pos += w + g
    rb = train(pulses, pos + 10)
    widths = np.array([w for _, w in pulses])
    win = WINDOWS_MLC
    want_prog = int(np.sum((widths > win.program_us[0]) & (widths < win.program_us[1])))
    want_read = int(np.sum((widths > win.read_us[0]) & (widths < win.read_us[1])))
    want_erase = int(np.sum((widths > win.erase_us[0]) & (widths < win.erase_us[1]) & (widths >= win.program_us[1])))
    c = PulseCounter(RATE)
    for part in split(rb, cuts):
        c.feed(part)
    got = c.counts
    assert (got.programs, got.reads, got.erases) == (want_prog, want_read, want_erase)
    assert got.pulses == len(pulses) and got.histogram.sum() == len(pulses)

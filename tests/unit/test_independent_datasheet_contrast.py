"""The datasheet family's decidability subset (tests/independent_datasheet/contrast.py),
checked on drives set by hand: what the rise can and cannot tell apart."""

from __future__ import annotations

from dataclasses import replace

from tests.independent_datasheet.contrast import durations_differ, rises_differ, walks_differ
from tests.independent_datasheet.ssd import CHANNELS_FIRST, random_ssd


def _two_channels(**kw):
    # 2 channels × 2 ways, a unit of 2 one-die packages taken channels first: channel-only;
    # the other walk (ways first) puts both on channel 0
    base = replace(random_ssd(0), channels=2, ways=2, dies=1, unit_packages=2, walk=CHANNELS_FIRST,
                   dispatch="package-major", cache_program=False, host_mb_s=2000.0, t_cmd_us=1.0,
                   ispp_period_us=20.0, dt_us=2.0, page_types=(1.0,))
    return replace(base, **kw)


def test_separate_channels_start_a_select_delay_apart_where_a_shared_one_waits_a_transfer():
    ssd = _two_channels(t_io_page_us=150.0, t_select_us=5.0)
    assert ssd.scheme() == "channel-only"
    # on one channel the second package waits the first page's 150 µs transfer, whatever
    # the select delay; here it starts 6 µs after the first: 144 µs apart, far beyond one
    # ISPP period (20 µs) and two samples
    assert rises_differ(ssd) is True
    assert walks_differ(ssd) is True


def test_a_select_delay_as_long_as_a_transfer_looks_like_a_shared_channel():
    # 40 µs select + 1 µs command vs a 41 µs page transfer: the ways-first walk starts its
    # second package at the same moment, so the rise cannot tell them apart
    ssd = _two_channels(t_io_page_us=41.0, t_select_us=40.0)
    assert rises_differ(ssd) is False


def test_no_scheme_no_subset():
    ssd = _two_channels(unit_packages=1)
    assert rises_differ(ssd) is None and durations_differ(ssd) is None and walks_differ(ssd) is None

"""The QD1 write stream through the simulated SSD, against numbers worked out by hand.

The hand-built drive: one package of 4 dies, 4 KiB pages, so the write I/O unit is 16 KiB
(4 pages, one per die) and every visit moves 16 KiB.  No program spread, no jitter, no
per-package variation: every number below follows from the timing table alone.

    t_cmd 5, t_wake 1, t_done 5, t_read 20, t_xfer 10 per page, t_prog 100  (µs)
    host link 4096 B/µs (1 µs per page)
    idle 0.1, controller 0.05, program 0.2, transfer 0.01, read 0.03          (A)

4 KiB write (a quarter unit: read-modify-write of the 3 missing pages first):
    RMW read  [5, 25] read, then [25, 55] transfer of 3 pages (1 channel)       rmw = 50 µs
    visit at max(55, ready 5 + 1) = 55; dies' pages in at 65, 75, 85, 95
    last die programs 95 → 195; done at 195 + 5 = 200 µs
    charge: idle 0.1·200 + controller 0.05·199 + read 0.03·20 + transfer 0.01·(30 + 40)
            + program 0.2·(195 − 65)                       = 20 + 9.95 + 0.6 + 0.7 + 26 = 57.25 µC
16 KiB write (one whole unit, no RMW):
    visit at max(5, ready 5 + 4) = 9; pages in at 19 ... 49; programs to 149; done at 154 µs
    charge: 0.1·154 + 0.05·153 + 0.01·40 + 0.2·(149 − 19) = 15.4 + 7.65 + 0.4 + 26 = 49.45 µC
With 20 µs of host turnaround (idle, 2 µC) per request:
    4 × 4 KiB: 4 · 220 = 880 µs, 4 · 59.25 = 237 µC;   1 × 16 KiB: 174 µs, 51.45 µC.
"""

from __future__ import annotations

import numpy as np
import pytest

from charz.errors import UsageError
from charz.sim import Currents, DriveModel, DriveState, Firmware, Geometry, Timing, load_preset, schedule_write
from charz.sim._stream import play_stream, request_charge

pytestmark = pytest.mark.unit

KIB = 1024


def tiny(**currents) -> DriveModel:
    c = dict(idle_a=0.1, controller_a=0.05, program_per_package_a=0.2, transfer_a=0.01, read_per_package_a=0.03,
             package_spread=0.0)
    c.update(currents)
    return DriveModel(
        name="tiny", description="1 package × 4 dies, 4 KiB pages, 16 KiB unit", given={},
        geometry=Geometry(channels=1, ways=1, dies_per_package=4, planes_per_die=1, page_size_bytes=4096),
        firmware=Firmware(write_io_unit_bytes=16384, read_io_unit_bytes=4096, block_channels=1, block_ways=1),
        timing=Timing(t_xfer_page_us=10.0, t_switch_us=0.0, t_prog_us=100.0, t_prog_spread=0.0, t_prog_jitter=0.0,
                      t_read_us=20.0, t_cmd_us=5.0, t_wake_us=1.0, t_done_us=5.0, host_rate_bytes_per_s=4096e6),
        currents=Currents(**c),
    )


def test_one_request_by_hand():
    m = tiny()
    small = schedule_write(m, DriveState(m), 4 * KIB, 0, np.random.default_rng(0))
    whole = schedule_write(m, DriveState(m), 16 * KIB, 0, np.random.default_rng(0))
    assert small.rmw_read_us == pytest.approx(50.0) and whole.rmw_read_us == 0.0
    assert request_charge(small, 0.1) == pytest.approx((200.0, 57.25))
    assert request_charge(whole, 0.1) == pytest.approx((154.0, 49.45))


def test_sub_unit_records_pay_read_modify_write():
    m = tiny()
    small = play_stream(m, 4 * KIB, 4, turnaround_s=20e-6)
    whole = play_stream(m, 16 * KIB, 1, turnaround_s=20e-6)
    assert small.bytes_written == whole.bytes_written == 16 * KIB
    assert small.duration_s == pytest.approx(880e-6)
    assert small.charge_c == pytest.approx(237e-6)
    assert small.rmw_s == pytest.approx(200e-6) and small.busy_s == pytest.approx(800e-6)
    assert whole.duration_s == pytest.approx(174e-6)
    assert whole.charge_c == pytest.approx(51.45e-6)
    assert small.mb_per_s == pytest.approx(16384 / 880) and whole.mb_per_s == pytest.approx(16384 / 174)
    # the aligned record wins on both counts: 5.06× the MB/s, 0.217× the charge for the same bytes
    assert whole.mb_per_s > small.mb_per_s and whole.charge_c < small.charge_c
    assert small.mean_current_a == pytest.approx(237 / 880)
    assert small.energy_j(5.0) == pytest.approx(5 * 237e-6)


def test_records_of_several_units_cost_no_read():
    m = tiny()
    two = play_stream(m, 32 * KIB, 3, turnaround_s=0.0)
    assert two.rmw_s == 0.0
    # one package: the second unit waits for the first's program (package busy), so a 32 KiB
    # request is two 16 KiB visits back to back in the package: 9 + 40 + 100 = 149, then
    # 149 + 40 + 100 = 289, done at 294 µs
    assert two.duration_s == pytest.approx(3 * 294e-6)


def test_turnaround_is_idle_time():
    m = tiny()
    a = play_stream(m, 16 * KIB, 10, turnaround_s=0.0)
    b = play_stream(m, 16 * KIB, 10, turnaround_s=100e-6)
    assert b.duration_s - a.duration_s == pytest.approx(10 * 100e-6)
    assert b.charge_c - a.charge_c == pytest.approx(10 * 100e-6 * 0.1)


@pytest.mark.parametrize("tail_s, expected_on_us", [
    (1.0, 2 * 174.0),     # a long tail is renewed by every completion: on from the first to the last
    (100e-6, 2 * 100.0),  # a short one goes off 100 µs after each completion, before the next one ends
])
def test_tail_is_a_state_counted_once(tail_s, expected_on_us):
    plain = play_stream(tiny(), 16 * KIB, 3, turnaround_s=20e-6)
    tailed = play_stream(tiny(tail_a=0.05, tail_s=tail_s), 16 * KIB, 3, turnaround_s=20e-6)
    # completions at 174, 348, 522 µs; the window ends at the last one
    assert tailed.duration_s == pytest.approx(plain.duration_s)
    assert tailed.tail_charge_c == pytest.approx(0.05 * expected_on_us * 1e-6)
    assert tailed.charge_c - plain.charge_c == pytest.approx(tailed.tail_charge_c)


def test_a_scaled_prefix_says_so_and_matches_a_steady_stream():
    m = tiny()
    full = play_stream(m, 4 * KIB, 400)
    part = play_stream(m, 4 * KIB, 400, max_requests=40)
    assert not full.scaled and part.scaled and part.simulated_requests == 40 and part.requests == 400
    assert part.bytes_written == full.bytes_written
    assert part.duration_s == pytest.approx(full.duration_s) and part.charge_c == pytest.approx(full.charge_c)


def test_presets_with_a_unit_favour_the_aligned_record():
    # 003 §6, Table 4: Q Pro and MXP (32 KiB units) gain MB/s and lose energy per MB at 32 KiB
    for name in ("qpro", "mxp"):
        m = load_preset(name)
        small = play_stream(m, 4 * KIB, 256)
        aligned = play_stream(m, 32 * KIB, 32)
        assert aligned.mb_per_s > small.mb_per_s
        assert aligned.charge_c < small.charge_c
        assert small.rmw_s > 0 and aligned.rmw_s == 0


def test_deterministic_per_seed():
    m = load_preset("qpro")
    assert play_stream(m, 8 * KIB, 50, seed=3) == play_stream(m, 8 * KIB, 50, seed=3)


@pytest.mark.parametrize("kwargs, match", [
    (dict(record_size_bytes=0, requests=1), "record_size_bytes"),
    (dict(record_size_bytes=4096, requests=0), "requests"),
    (dict(record_size_bytes=4096, requests=1, turnaround_s=-1.0), "turnaround_s"),
    (dict(record_size_bytes=4096, requests=1, max_requests=0), "max_requests"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(UsageError, match=match):
        play_stream(tiny(), **kwargs)

"""The simulated drive's SMART counters, read back through the parsers charz uses on a real drive.

Truth here is the FTL's own run result (pages it programmed, bytes the host wrote),
rounded by the test to each family's unit (drivedb: 32 MiB; NVMe: 1000 × 512 B up).
"""

from __future__ import annotations

import math

import pytest

from charz.device._wa_counters import counter_wa, counters_from_texts
from charz.sim._smart import counter_texts
from charz.sim.ftl import FtlConfig, SimDrive, Workload, make_requests

pytestmark = pytest.mark.unit


def _drive_and_run(volume=48 << 20):
    cfg = FtlConfig(channels=2, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=64,
                    pages_per_block=64, page_size=4096, over_provisioning=0.15, multi_plane=True)
    d = SimDrive(cfg)
    d.precondition(1.0)
    life0 = d.lifetime_counters
    res = d.run(make_requests(Workload(block_size=4096, volume_bytes=volume, seed=3), d.user_bytes))
    return d, life0, res


def test_lifetime_counters_add_up_runs():
    d, life0, res = _drive_and_run()
    life = d.lifetime_counters
    assert life["host_bytes_written"] - life0["host_bytes_written"] == res.host_bytes_written
    assert life["gc_pages_programmed"] - life0["gc_pages_programmed"] == res.gc_copies
    assert life0["host_bytes_written"] == d.user_bytes  # the fill counts, as on a real drive


def test_micron_pages_give_the_true_wa_of_page_writes():
    d, life0, res = _drive_and_run()
    before = counters_from_texts(counter_texts(life0, 4096, "micron"))
    after = counters_from_texts(counter_texts(d.lifetime_counters, 4096, "micron"))
    wa = counter_wa(before, after)
    assert wa.value == pytest.approx(1 + res.gc_copies / res.host_pages_programmed, rel=1e-12)
    assert wa.value == pytest.approx(res.true_wa, rel=1e-9)  # 4 KiB writes on 4 KiB pages
    assert wa.value > 1.5  # garbage collection ran


def test_intel_32mib_units_round_and_say_too_coarse():
    d, life0, res = _drive_and_run()
    wa = counter_wa(counters_from_texts(counter_texts(life0, 4096, "intel")),
                    counters_from_texts(counter_texts(d.lifetime_counters, 4096, "intel")))
    mib32 = 32 << 20
    life = d.lifetime_counters
    nand = lambda lf: (lf["host_pages_programmed"] + lf["gc_pages_programmed"]) * 4096 // mib32  # noqa: E731
    host = lambda lf: lf["host_bytes_written"] // mib32  # noqa: E731
    assert wa.value == pytest.approx((nand(life) - nand(life0)) / (host(life) - host(life0)))
    assert abs(wa.value - res.true_wa) < 4 * wa.uncertainty  # the rounding's own error bar holds the truth
    assert wa.too_coarse.startswith("too coarse:") and "3.12 GiB" in wa.too_coarse


def test_nvme_data_units_and_ocp_c0():
    d, life0, res = _drive_and_run()
    t0, t1 = counter_texts(life0, 4096, "nvme"), counter_texts(d.lifetime_counters, 4096, "nvme")
    assert set(t1) == {"smartctl", "ocp-c0"}
    wa = counter_wa(counters_from_texts(t0), counters_from_texts(t1))
    duw = lambda lf: math.ceil(lf["host_bytes_written"] / 512_000)  # noqa: E731
    host = (duw(d.lifetime_counters) - duw(life0)) * 512_000
    assert wa.host_bytes == host
    assert wa.value == pytest.approx(res.flash_bytes_programmed / host)
    assert abs(wa.value - res.true_wa) < 4 * wa.uncertainty


def test_unknown_flavour_and_source():
    with pytest.raises(ValueError, match="flavour"):
        counter_texts({"host_bytes_written": 0, "host_pages_programmed": 0, "gc_pages_programmed": 0}, 4096, "x")
    from charz.errors import DeviceError
    with pytest.raises(DeviceError, match="unknown counter source"):
        counters_from_texts({"hdparm": "{}"})

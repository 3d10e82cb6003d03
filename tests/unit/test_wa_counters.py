"""Drive write counters → WA: real tools' JSON, units from smartmontools' drivedb and the specs.

Sources of the inputs:
* ``smartctl-A-crucial-draggon.json``: a Crucial/Micron drive's real ``smartctl -j -A``
  rows, printed in github.com/Draggon/hassio-hdd-tools ``hdd_tools/DOCS.md``.
* ``smartctl-loop.json`` and the live call: the real smartctl 7.3 on a loop device.
* ``smartctl-sata.json``: smartmontools 7.x JSON of a Samsung-style table (fixtures README).
* NVMe shapes: nvme-cli v2.3 prints 128-bit counters as decimal strings
  (``util/json.c`` ``util_json_object_new_uint128``) and the OCP C0h log as
  ``"Physical media units written": {"hi", "lo"}`` (``plugins/ocp/ocp-nvme.c`` l.240–244);
  the NVMe health fragment is the one printed in the same Draggon DOCS.md.
* Expected numbers are worked here from the units: drivedb's names (32 MiB, 1 GiB), the
  NVMe spec's 1000 × 512 B, Micron TN-FD-23's WAF = 1 + Δ248/Δ247.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from charz.device._wa_counters import (
    NVME_DATA_UNIT,
    counter_wa,
    counters_from_nvme_smart_log,
    counters_from_ocp_c0,
    counters_from_smartctl,
    merge_counters,
)
from charz.errors import DeviceError

pytestmark = pytest.mark.unit
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "device"


def _smartctl(table: list[tuple[int, str, int]], lbs: int | None = 512) -> str:
    doc = {"smartctl": {"version": [7, 3], "exit_status": 0},
           "ata_smart_attributes": {"revision": 1, "table": [
               {"id": i, "name": n, "value": 100, "worst": 100, "thresh": 0, "when_failed": "",
                "raw": {"value": v, "string": str(v)}} for i, n, v in table]}}
    if lbs:
        doc["logical_block_size"] = lbs
    return json.dumps(doc)


def _real_crucial(scale: float = 1.0) -> str:
    doc = json.loads((FIXTURES / "smartctl-A-crucial-draggon.json").read_text())
    doc = copy.deepcopy(doc)
    doc["smartctl"] = {"exit_status": 0}
    for row in doc["ata_smart_attributes"]["table"]:
        row["raw"]["value"] = int(row["raw"]["value"] * scale)
    return json.dumps(doc)


def test_real_crucial_table_micron_waf():
    after = counters_from_smartctl(_real_crucial())
    before = counters_from_smartctl(_real_crucial(0.0))  # a new drive: every counter 0
    roles = {c.name: c.role for c in after.counters}
    assert roles == {"ATA 246 Total_LBAs_Written": "host", "ATA 247 Host_Program_Page_Count": "host_pages",
                     "ATA 248 FTL_Program_Page_Count": "ftl_pages"}
    wa = counter_wa(before, after)
    # the raw strings of the published table, by hand: 1 + 16994048 / 19344786
    assert wa.value == pytest.approx(1 + 16994048 / 19344786) and round(wa.value, 3) == 1.878
    assert "TN-FD-23" in wa.method and wa.uncertainty < 1e-6
    assert wa.host_bytes == 619033175 * 512  # 246 counts 512 B sectors (no logical_block_size: assumed)
    assert any("sub-page" in n for n in wa.notes)


def test_intel_32mib_and_1gib_units_and_too_coarse():
    b = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 1000), (249, "NAND_Writes_1GiB", 100)]))
    a = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 4072), (249, "NAND_Writes_1GiB", 220)]))
    wa = counter_wa(b, a)
    assert wa.value == pytest.approx(32 * 120 / 3072) == 1.25  # research row 11, by the units
    # 120 GiB of NAND writes counted in 1 GiB: ±1/√6 GiB each end
    assert wa.uncertainty == pytest.approx(1.25 * math.hypot((32 / 2**10) / math.sqrt(6) / 96,
                                                             1 / math.sqrt(6) / 120), rel=1e-9)
    assert wa.too_coarse is None  # 96 GiB host ≥ 100 × 32 MiB, 120 GiB NAND ≥ 100 × 1 GiB
    small = counter_wa(b, counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 1004),
                                                            (249, "NAND_Writes_1GiB", 101)])))
    assert small.too_coarse == "too coarse: ATA 249 NAND_Writes_1GiB counts 1 GiB; write at least 100 GiB for ±1 %"


def test_intel_host_side_too_coarse_when_under_100_units():
    b = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 0), (243, "NAND_Writes_32MiB", 0)]))
    a = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 50), (243, "NAND_Writes_32MiB", 80)]))
    wa = counter_wa(b, a)
    assert wa.value == pytest.approx(80 / 50)
    assert wa.too_coarse and "3.12 GiB" in wa.too_coarse  # 100 × 32 MiB


@pytest.mark.parametrize("rows,nand_names", [
    ([(241, "Lifetime_Writes_GiB", 10), (233, "Flash_Writes_GiB", 30)], ["ATA 233 Flash_Writes_GiB"]),
    ([(241, "Host_Writes_GiB", 10), (233, "NAND_GB_Written_TLC", 20), (234, "NAND_GB_Written_SLC", 10)],
     ["ATA 233 NAND_GB_Written_TLC", "ATA 234 NAND_GB_Written_SLC"]),
    ([(241, "Total_Writes_GiB", 10), (233, "Total_NAND_Writes_GiB", 30)], ["ATA 233 Total_NAND_Writes_GiB"]),
    ([(241, "Host_Writes_32MiB", 320), (245, "TLC_Writes_32MiB", 600), (246, "SLC_Writes_32MiB", 360)],
     ["ATA 245 TLC_Writes_32MiB", "ATA 246 SLC_Writes_32MiB"]),
])
def test_kingston_wd_sandisk_families_sum_their_nand_rows(rows, nand_names):
    zero = counters_from_smartctl(_smartctl([(i, n, 0) for i, n, _ in rows]))
    after = counters_from_smartctl(_smartctl(rows))
    assert [c.name for c in after.by_role("nand")] == nand_names
    assert counter_wa(zero, after).value == pytest.approx(3.0)  # every case above is 3× in bytes


def test_samsung_says_no_nand_counter():
    s = counters_from_smartctl((FIXTURES / "smartctl-sata.json").read_text())
    assert [c.name for c in s.counters] == ["ATA 241 Total_LBAs_Written"]
    assert any("no NAND-write counter" in n and "Samsung" in n for n in s.notes)
    wa = counter_wa(s, s)
    assert wa.value is None and wa.method.startswith("none")


def test_cloudspeed_reports_its_own_wa_only():
    s = counters_from_smartctl(_smartctl([(32, "Lifetime_Write_AmpFctr", 150), (33, "Write_AmpFctr", 140)]))
    assert {c.role for c in s.counters} == {"wa_lifetime", "wa_recent"}
    wa = counter_wa(s, s)
    assert wa.value is None and any("Lifetime_Write_AmpFctr = 150" in n for n in wa.notes)


def test_nvme_data_units_written_host_only():
    # the NVMe health fragment printed in Draggon/hassio-hdd-tools DOCS.md, inside smartctl's envelope
    frag = {"nvme_smart_health_information_log": {"critical_warning": 0, "temperature": 36, "available_spare": 100,
                                                  "data_units_read": 519679, "data_units_written": 326973,
                                                  "host_reads": 8780844, "host_writes": 7257199}}
    s = counters_from_smartctl(json.dumps({"smartctl": {"exit_status": 0}, **frag}))
    (c,) = s.counters
    assert c.role == "host" and c.bytes == 326973 * 512 * 1000 and NVME_DATA_UNIT == 512_000
    assert any("host writes only" in n for n in s.notes)
    # research row 10: smartctl prints 17,586,666 units as "9.00 TB"
    assert counters_from_nvme_smart_log('{"data_units_written": "17586666"}').counters[0].bytes == 9_004_372_992_000
    assert counters_from_nvme_smart_log('{"data_units_written": 17586666}').counters[0].raw == 17586666
    fixture = counters_from_smartctl((FIXTURES / "smartctl-nvme.json").read_text())
    assert fixture.counters[0].raw == 2345678


def test_ocp_c0_128_bit_and_merge():
    c0 = counters_from_ocp_c0('{"Physical media units written": {"hi": 1, "lo": 5}, '
                              '"Physical media units read": {"hi": 0, "lo": 0}}')
    assert c0.counters[0].bytes == (1 << 64) + 5
    b = merge_counters(counters_from_nvme_smart_log('{"data_units_written": "1000"}'),
                       counters_from_ocp_c0('{"Physical media units written": {"hi": 0, "lo": 0}}'))
    a = merge_counters(counters_from_nvme_smart_log('{"data_units_written": "3000"}'),
                       counters_from_ocp_c0('{"Physical media units written": {"hi": 0, "lo": 2560000000}}'))
    wa = counter_wa(b, a)
    assert wa.value == pytest.approx(2_560_000_000 / (2000 * 512_000)) == 2.5
    assert not any("host writes only" in n for n in a.notes)
    with pytest.raises(DeviceError, match="Physical media units written"):
        counters_from_ocp_c0('{"Bad user nand blocks - Raw": 0}')


def test_bad_input_is_a_clear_error():
    with pytest.raises(DeviceError, match="Unable to detect device type"):
        counters_from_smartctl((FIXTURES / "smartctl-loop.json").read_text())
    with pytest.raises(DeviceError, match="not JSON"):
        counters_from_smartctl("Smartctl open device failed")
    a = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 10), (249, "NAND_Writes_1GiB", 3)]))
    b = counters_from_smartctl(_smartctl([(241, "Host_Writes_32MiB", 5), (249, "NAND_Writes_1GiB", 3)]))
    with pytest.raises(DeviceError, match="went down"):
        counter_wa(a, b)
    with pytest.raises(DeviceError, match="data_units_written"):
        counters_from_nvme_smart_log('{"data_units_written": "many"}')


@pytest.mark.skipif(shutil.which("smartctl") is None, reason="smartctl not installed")
def test_real_smartctl_on_a_non_smart_device_is_a_clear_error():
    out = subprocess.run(["smartctl", "-j", "-A", "/dev/null"], capture_output=True, text=True, timeout=30)
    with pytest.raises(DeviceError, match="cannot read this device"):
        counters_from_smartctl(out.stdout)


@pytest.mark.skipif(shutil.which("smartctl") is None, reason="smartctl not installed")
def test_bench_read_through_real_smartctl_keeps_the_error_as_a_note():
    from charz.device import SubprocessRunner
    from charz.device._wa_counters import read_counters
    from charz.wa import counters_record
    texts = read_counters("/dev/null", SubprocessRunner(), nvme=shutil.which("nvme") is not None)
    # the real nvme-cli fails on a non-NVMe device: no OCP log is kept, smartctl's JSON is
    assert set(texts) == {"smartctl"} and '"exit_status"' in texts["smartctl"]
    rec = counters_record({"before": texts, "after": texts})
    assert "cannot read this device" in rec["error"] and "wa" not in rec


def test_ocp_log_kept_only_when_the_drive_answers():
    from charz.device._wa_counters import read_counters

    class Runner:  # nvme-cli exits non-zero on a drive without the OCP log
        def __init__(self, ocp_rc):
            self.ocp_rc, self.calls = ocp_rc, []

        def run(self, argv, *, timeout_s, env=None):
            from types import SimpleNamespace
            self.calls.append(tuple(argv))
            if argv[0] == "nvme":
                return SimpleNamespace(returncode=self.ocp_rc, stdout='{"Physical media units written": '
                                                                     '{"hi": 0, "lo": 1}}' if not self.ocp_rc else "")
            return SimpleNamespace(returncode=0, stdout="{}")

    r = Runner(0)
    assert set(read_counters("/dev/nvme0n1", r, nvme=True)) == {"smartctl", "ocp-c0"}
    assert r.calls == [("smartctl", "-j", "-A", "/dev/nvme0n1"),
                       ("nvme", "ocp", "smart-add-log", "/dev/nvme0n1", "-o", "json")]
    assert set(read_counters("/dev/nvme0n1", Runner(1), nvme=True)) == {"smartctl"}

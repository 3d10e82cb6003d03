"""The simulated drive's write counters, printed as the real tools print a real drive's.

The FTL keeps exact lifetime counts (``SimDrive.lifetime_counters``); a real drive
reports them rounded to its SMART units, through smartctl's or nvme-cli's JSON.  Three
flavours, each after a real family (units from smartmontools' drivedb and the specs):

=========  ===================================================================
``micron`` 246 Total_LBAs_Written (512 B sectors), 247 Host_Program_Page_Count,
           248 FTL_Program_Page_Count (NAND pages) — Crucial MX / Micron client
``intel``  241 Host_Writes_32MiB, 243 NAND_Writes_32MiB — Intel S3510/S3610
``nvme``   smartctl's NVMe health log (Data Units Written: 1000 × 512 B, rounded
           up) and ``nvme ocp smart-add-log``'s Physical media units written (bytes)
=========  ===================================================================

Written here from the formats alone (smartctl 7.3's key names, nvme-cli 2.3's OCP
object with ``hi``/``lo``); charz reads them back with the same parsers it uses on a
real drive, so the mock exercises the whole path.
"""

from __future__ import annotations

import json

__all__ = ["FLAVOURS", "counter_texts"]

FLAVOURS = ("micron", "intel", "nvme")
_MIB = 1 << 20


def _row(i: int, name: str, raw: int) -> dict:
    return {"id": i, "name": name, "value": 100, "worst": 100, "thresh": 0, "when_failed": "",
            "flags": {"value": 50, "string": "-O--CK ", "prefailure": False, "updated_online": True,
                      "performance": False, "error_rate": False, "event_count": True, "auto_keep": True},
            "raw": {"value": int(raw), "string": str(int(raw))}}


def _envelope(protocol: str) -> dict:
    return {"json_format_version": [1, 0],
            "smartctl": {"version": [7, 3], "svn_revision": "5338", "argv": ["smartctl", "-j", "-A", "/dev/sim"],
                         "exit_status": 0},
            "device": {"name": "/dev/sim", "info_name": "/dev/sim", "type": protocol.lower(), "protocol": protocol},
            "model_name": "charz simulated FTL", "logical_block_size": 512}


def counter_texts(life: dict[str, int], page_size: int, flavour: str = "micron") -> dict[str, str]:
    """Tool name → the JSON text that tool would print for these lifetime counts."""
    host_b = int(life["host_bytes_written"])
    nand_pages = int(life["host_pages_programmed"]) + int(life["gc_pages_programmed"])
    if flavour == "micron":
        doc = _envelope("ATA")
        doc["ata_smart_attributes"] = {"revision": 16, "table": [
            _row(246, "Total_LBAs_Written", host_b // 512),
            _row(247, "Host_Program_Page_Count", life["host_pages_programmed"]),
            _row(248, "FTL_Program_Page_Count", life["gc_pages_programmed"])]}
        return {"smartctl": json.dumps(doc, indent=2)}
    if flavour == "intel":
        doc = _envelope("ATA")
        doc["ata_smart_attributes"] = {"revision": 1, "table": [
            _row(241, "Host_Writes_32MiB", host_b // (32 * _MIB)),
            _row(243, "NAND_Writes_32MiB", nand_pages * page_size // (32 * _MIB))]}
        return {"smartctl": json.dumps(doc, indent=2)}
    if flavour == "nvme":
        doc = _envelope("NVMe")
        doc["nvme_smart_health_information_log"] = {
            "critical_warning": 0, "temperature": 35, "available_spare": 100, "available_spare_threshold": 10,
            "percentage_used": 0, "data_units_read": 0,
            "data_units_written": -(-host_b // 512_000)}  # "rounded up" (NVMe base spec, log 02h)
        pmuw = nand_pages * page_size
        ocp = {"Physical media units written": {"hi": pmuw >> 64, "lo": pmuw & ((1 << 64) - 1)},
               "Physical media units read": {"hi": 0, "lo": 0}, "Bad user nand blocks - Raw": 0}
        return {"smartctl": json.dumps(doc, indent=2), "ocp-c0": json.dumps(ocp, indent=2)}
    raise ValueError(f"counter flavour must be one of {FLAVOURS}, got {flavour!r}")

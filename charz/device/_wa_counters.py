"""A drive's own host and NAND write counters, read before and after a workload: WA from their deltas.

Sources, each a real tool's JSON:

* ``smartctl -j -A DEV`` (smartmontools ≥ 7.0).  SATA: ``ata_smart_attributes.table[]``
  rows ``{id, name, raw: {value, string}}``; the *name* is what smartmontools' drivedb
  gave the attribute for the drive's family, so the (id, name) pair tells the unit:

  ==================  ==============================  ===============================
  family (drivedb)    host writes                     NAND writes
  ==================  ==============================  ===============================
  Intel               241 / 225 Host_Writes_32MiB     249 NAND_Writes_1GiB,
                                                      243 NAND_Writes_32MiB
  Micron / Crucial    246 Total_LBAs_Written          247 Host_Program_Page_Count,
                      (sectors)                       248 FTL_Program_Page_Count or
                                                      Bckgnd_Program_Page_Cnt;
                                                      WAF = 1 + Δ248/Δ247
  Kingston (Phison)   241 Lifetime_Writes_GiB         233 Flash_Writes_GiB
  Kingston KC600      241 Host_Writes_32MiB           245 TLC_ + 246 SLC_Writes_32MiB
  SanDisk (Marvell)   241 Total_Writes_GiB            233 Total_NAND_Writes_GiB
  WD Blue/Red/Green   241 Host_Writes_GiB             233 NAND_GB_Written_TLC
                                                      + 234 NAND_GB_Written_SLC
  SanDisk CloudSpeed  (none named)                    32 Lifetime_Write_AmpFctr,
                                                      33 Write_AmpFctr (its own WA)
  Samsung consumer    241 Total_LBAs_Written          none: no NAND counter
  ==================  ==============================  ===============================

  NVMe: ``nvme_smart_health_information_log.data_units_written`` — *host* writes only,
  in units of 1000 × 512 B, rounded up (NVMe base spec, SMART / Health log 02h).
* ``nvme smart-log DEV -o json``: ``data_units_written`` (nvme-cli 2.x prints 128-bit
  counters as decimal strings, 1.x as numbers).
* ``nvme ocp smart-add-log DEV -o json``: ``"Physical media units written": {hi, lo}``,
  the OCP Datacenter NVMe SSD spec's log C0h bytes 0–15, in bytes: the NAND side.

A counter counts whole units and the drive rounds, so a delta is uncertain by up to one
unit at each end; the standard error used is unit/√6 (difference of two independent
uniform roundings).  A workload smaller than ``unit / resolution`` gets "too coarse:
write at least N".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from charz.device._smartctl import parse_smartctl
from charz.device._values import as_int, load_json_object
from charz.errors import DeviceError

__all__ = ["Counter", "CounterSet", "CounterWa", "counters_from_smartctl", "counters_from_nvme_smart_log",
           "counters_from_ocp_c0", "merge_counters", "counter_wa", "counters_from_texts", "read_counters",
           "NVME_DATA_UNIT", "SMARTCTL_ARGV"]

NVME_DATA_UNIT = 512_000  # bytes per Data Unit: "thousands of 512 byte data units" (NVMe base spec, log 02h)
MIB, GIB = 1 << 20, 1 << 30
SMARTCTL_ARGV = ("smartctl", "-j", "-A")

# role: host / nand (bytes, summed over rows of the same role) / host_pages / ftl_pages (Micron) / wa_*
# unit_bytes None: a page count, a sector count (see _SECTOR_ROLES) or a ratio
_ATA: dict[tuple[int, str], tuple[str, int | None, str, str]] = {
    (241, "Host_Writes_32MiB"): ("host", 32 * MIB, "32 MiB", "Intel / Kingston KC600"),
    (225, "Host_Writes_32MiB"): ("host", 32 * MIB, "32 MiB", "Intel"),
    (249, "NAND_Writes_1GiB"): ("nand", GIB, "1 GiB", "Intel"),
    (243, "NAND_Writes_32MiB"): ("nand", 32 * MIB, "32 MiB", "Intel"),
    (246, "Total_LBAs_Written"): ("host_sectors", None, "logical sectors", "Micron / Crucial"),
    (247, "Host_Program_Page_Count"): ("host_pages", None, "NAND pages", "Micron / Crucial"),
    (248, "FTL_Program_Page_Count"): ("ftl_pages", None, "NAND pages", "Micron / Crucial"),
    (248, "Bckgnd_Program_Page_Cnt"): ("ftl_pages", None, "NAND pages", "Micron 5100/5200/5300"),
    (241, "Lifetime_Writes_GiB"): ("host", GIB, "1 GiB", "Kingston"),
    (233, "Flash_Writes_GiB"): ("nand", GIB, "1 GiB", "Kingston"),
    (245, "TLC_Writes_32MiB"): ("nand", 32 * MIB, "32 MiB", "Kingston KC600"),
    (246, "SLC_Writes_32MiB"): ("nand", 32 * MIB, "32 MiB", "Kingston KC600"),
    (241, "Total_Writes_GiB"): ("host", GIB, "1 GiB", "SanDisk"),
    (233, "Total_NAND_Writes_GiB"): ("nand", GIB, "1 GiB", "SanDisk"),
    (233, "NAND_GiB_Written"): ("nand", GIB, "1 GiB", "SanDisk (SandForce)"),
    (241, "Host_Writes_GiB"): ("host", GIB, "1 GiB", "WD"),
    # drivedb says GB; WD's own tools treat it as GiB like its 241 neighbour: assumed so
    (233, "NAND_GB_Written_TLC"): ("nand", GIB, "1 GiB (named GB; assumed GiB)", "WD"),
    (234, "NAND_GB_Written_SLC"): ("nand", GIB, "1 GiB (named GB; assumed GiB)", "WD"),
    (32, "Lifetime_Write_AmpFctr"): ("wa_lifetime", None, "the drive's WA (raw, scale not documented)",
                                     "SanDisk CloudSpeed"),
    (33, "Write_AmpFctr"): ("wa_recent", None, "the drive's WA (raw, scale not documented)", "SanDisk CloudSpeed"),
    (241, "Total_LBAs_Written"): ("host_sectors", None, "logical sectors", "generic (e.g. Samsung)"),
}


@dataclass(frozen=True)
class Counter:
    """One counter as read: its raw count, what one count is, and where it came from."""

    role: str
    name: str  # e.g. "ATA 249 NAND_Writes_1GiB"
    raw: int
    unit_bytes: int | None  # bytes per count (None: pages or a ratio)
    unit: str
    source: str

    @property
    def bytes(self) -> int | None:
        return None if self.unit_bytes is None else self.raw * self.unit_bytes


@dataclass(frozen=True)
class CounterSet:
    """The counters one read of a drive gave; ``notes`` say what is missing and why."""

    counters: tuple[Counter, ...]
    notes: tuple[str, ...] = ()

    def by_role(self, role: str) -> list[Counter]:
        return [c for c in self.counters if c.role == role]

    def to_dict(self) -> dict:
        return {"counters": [asdict(c) for c in self.counters], "notes": list(self.notes)}


def counters_from_smartctl(text: str) -> CounterSet:
    """The write counters in ``smartctl -j -A`` output (ATA attribute table or NVMe health log).

    Raises DeviceError when smartctl could not read the device (its messages quoted).

    >>> doc = ('{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": ['
    ...        '{"id": 241, "name": "Host_Writes_32MiB", "raw": {"value": 3072}},'
    ...        '{"id": 249, "name": "NAND_Writes_1GiB", "raw": {"value": 120}}]}}')
    >>> [(c.role, c.bytes) for c in counters_from_smartctl(doc).counters]
    [('host', 103079215104), ('nand', 128849018880)]
    """
    info = parse_smartctl(text)
    sector = info.logical_block_bytes or 512
    out: list[Counter] = []
    notes: list[str] = []
    for a in info.ata_attributes:
        hit = _ATA.get((a.id, a.name))
        if hit is None:
            continue
        role, unit_bytes, unit, family = hit
        src = f"smartctl -j -A: ATA attribute {a.id} {a.name} (drivedb: {family})"
        if role == "host_sectors":
            origin = "given by smartctl" if info.logical_block_bytes else "assumed 512 B"
            role, unit_bytes, unit = "host", sector, f"{sector} B logical sectors ({origin})"
        out.append(Counter(role, f"ATA {a.id} {a.name}", a.raw_value, unit_bytes, unit, src))
    if info.ata_attributes:
        roles = {c.role for c in out}
        if not roles & {"nand", "ftl_pages", "wa_lifetime", "wa_recent"}:
            ids = {a.id: a.name for a in info.ata_attributes}
            if ids.get(177) == "Wear_Leveling_Count":
                notes.append("no NAND-write counter: this looks like a Samsung drive, whose SMART table has "
                             "host writes (241) and average P/E cycles (177 Wear_Leveling_Count) only; "
                             "P/E × capacity is an estimate of NAND writes, not a counter")
            else:
                notes.append("no NAND-write counter charz knows in this attribute table (Samsung consumer "
                             "drives have none; other families: update smartmontools' drivedb)")
    health = dict(info.nvme_health)
    if "data_units_written" in health:
        out.append(_nvme_duw(health["data_units_written"], "smartctl -j -A: nvme_smart_health_information_log"
                                                          ".data_units_written"))
        notes.append("the NVMe SMART / Health log counts host writes only; NAND writes need a vendor or "
                     "OCP C0h log (nvme ocp smart-add-log)")
    if not out and not info.ata_attributes and not health:
        notes.append("smartctl printed no attribute table and no NVMe health log")
    return CounterSet(tuple(out), tuple(notes))


def _nvme_duw(value: Any, source: str) -> Counter:
    n = as_int(value, "data_units_written")
    if n is None or n < 0:
        raise DeviceError(f"{source}: data_units_written is not a count: {value!r}")
    return Counter("host", "NVMe Data Units Written", n, NVME_DATA_UNIT, "1000 × 512 B (rounded up)", source)


def counters_from_nvme_smart_log(text: str) -> CounterSet:
    """``nvme smart-log DEV -o json``: host writes only.

    >>> counters_from_nvme_smart_log('{"data_units_written": "17586666"}').counters[0].bytes
    9004372992000
    """
    doc = load_json_object(text, "nvme smart-log")
    if "data_units_written" not in doc:
        raise DeviceError("nvme smart-log: field 'data_units_written' is missing")
    return CounterSet((_nvme_duw(doc["data_units_written"], "nvme smart-log -o json: data_units_written"),),
                      ("the NVMe SMART / Health log counts host writes only",))


def counters_from_ocp_c0(text: str) -> CounterSet:
    """``nvme ocp smart-add-log DEV -o json``: Physical Media Units Written (128-bit, bytes).

    >>> counters_from_ocp_c0('{"Physical media units written": {"hi": 0, "lo": 4096}}').counters[0].bytes
    4096
    """
    doc = load_json_object(text, "nvme ocp smart-add-log")
    key = next((k for k in doc if k.lower() == "physical media units written"), None)
    if key is None:
        raise DeviceError("nvme ocp smart-add-log: no 'Physical media units written' (not an OCP drive?)")
    v = doc[key]
    if isinstance(v, Mapping):
        hi, lo = as_int(v.get("hi"), "hi", default=0), as_int(v.get("lo"), "lo", default=0)
        raw = (hi << 64) | lo
    else:
        raw = as_int(v, key)
    return CounterSet((Counter("nand", "OCP C0h Physical Media Units Written", raw, 1, "1 B",
                               "nvme ocp smart-add-log -o json (OCP Datacenter NVMe SSD spec, log C0h bytes 0–15)"),))


def merge_counters(*sets: CounterSet) -> CounterSet:
    """One set from several tools' reads (e.g. smartctl's host counter and OCP's NAND one)."""
    counters, notes = [], []
    for s in sets:
        counters += s.counters
        notes += s.notes
    if any(c.role == "nand" for c in counters):  # a later source filled the gap an earlier one noted
        notes = [n for n in notes if "host writes only" not in n]
    return CounterSet(tuple(counters), tuple(notes))


@dataclass
class CounterWa:
    """WA from two reads of a drive's counters.  ``value`` is None when they cannot tell."""

    value: float | None
    uncertainty: float | None
    host_bytes: float | None
    nand_bytes: float | None
    method: str
    sources: list[str] = field(default_factory=list)
    too_coarse: str | None = None
    notes: list[str] = field(default_factory=list)
    origin: str = "inferred"  # from measured counter deltas

    def to_dict(self) -> dict:
        return asdict(self)


_U_ROUND = 1.0 / math.sqrt(6.0)  # std of the difference of two uniform roundings, in units


def _fmt_size(n: float) -> str:
    for unit, s in (("TiB", 1 << 40), ("GiB", GIB), ("MiB", MIB), ("KiB", 1 << 10)):
        if n >= s:
            return f"{n / s:.3g} {unit}"
    return f"{n:.0f} B"


def _deltas(before: CounterSet, after: CounterSet, role: str) -> list[tuple[Counter, int]]:
    prev = {c.name: c for c in before.by_role(role)}
    out = []
    for c in after.by_role(role):
        if c.name not in prev:
            raise DeviceError(f"{c.name} is in the second read but not the first")
        d = c.raw - prev[c.name].raw
        if d < 0:
            raise DeviceError(f"{c.name} went down ({prev[c.name].raw} → {c.raw}): not the same drive, "
                              "or the counter wrapped")
        out.append((c, d))
    return out


def counter_wa(before: CounterSet, after: CounterSet, *, resolution: float = 0.01) -> CounterWa:
    """WA = ΔNAND / Δhost from two reads, with the rounding uncertainty; Micron's page
    counters give 1 + Δ248/Δ247 (TN-FD-23).  ``resolution`` is the relative rounding error
    a counter may add (1 %): a smaller delta than ``unit / resolution`` is "too coarse".

    >>> b = counters_from_smartctl('{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": ['
    ...     '{"id": 247, "name": "Host_Program_Page_Count", "raw": {"value": 1000}},'
    ...     '{"id": 248, "name": "FTL_Program_Page_Count", "raw": {"value": 0}}]}}')
    >>> a = counters_from_smartctl('{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": ['
    ...     '{"id": 247, "name": "Host_Program_Page_Count", "raw": {"value": 1001000}},'
    ...     '{"id": 248, "name": "FTL_Program_Page_Count", "raw": {"value": 500000}}]}}')
    >>> counter_wa(b, a).value
    1.5
    """
    if not 0 < resolution < 1:
        raise ValueError(f"resolution must be in (0, 1), got {resolution}")
    notes = list(after.notes)
    host = _deltas(before, after, "host")
    nand = _deltas(before, after, "nand")
    hp, fp = _deltas(before, after, "host_pages"), _deltas(before, after, "ftl_pages")
    sources = [c.source for c, _ in host + nand + hp + fp]
    host_b = sum(d * c.unit_bytes for c, d in host) if host else None
    res = CounterWa(None, None, host_b, None, "", sources, notes=notes)
    if hp and fp:  # Micron: page counts, no page size needed
        (_, dh), (_, df) = hp[0], fp[0]
        res.method = "1 + Δ248/Δ247 (Micron TN-FD-23: FTL pages over host pages)"
        if dh == 0:
            res.notes.append("no host pages programmed between the reads")
            return res
        res.value = 1.0 + df / dh
        res.uncertainty = math.hypot(_U_ROUND / dh, _U_ROUND * df / dh**2)
        res.notes.append("counts NAND pages: a write smaller than a page costs one page on both sides, so "
                         "sub-page read-modify-write is not in this WA")
        return res
    if not nand:
        wa = before.by_role("wa_lifetime") and after.by_role("wa_lifetime")
        res.method = "none: no NAND-write counter"
        if wa:
            res.notes.append(f"the drive reports its own lifetime WA ({after.by_role('wa_lifetime')[0].name} = "
                             f"{after.by_role('wa_lifetime')[0].raw}, scale undocumented), not a delta")
        return res
    nand_b = sum(d * c.unit_bytes for c, d in nand)
    res.nand_bytes = nand_b
    res.method = "ΔNAND bytes / Δhost bytes"
    if not host:
        res.notes.append("no host-write counter: WA needs the host volume from elsewhere (fio's JSON)")
        return res
    # each side must count at least unit/resolution of its own; the host volume asked for
    # is the larger need (a NAND side that falls short needs as much host data when WA ≈ 1)
    short = [(c, c.unit_bytes / resolution) for c, _ in host if host_b < c.unit_bytes / resolution]
    short += [(c, c.unit_bytes / resolution) for c, _ in nand if nand_b < c.unit_bytes / resolution]
    if short:
        worst, need_bytes = max(short, key=lambda t: t[1])
        res.too_coarse = (f"too coarse: {worst.name} counts {worst.unit}; write at least "
                          f"{_fmt_size(need_bytes)} for ±{100 * resolution:g} %")
    if host_b == 0 or nand_b == 0:
        res.notes.append("a counter did not move between the reads")
        return res
    u_h = math.sqrt(sum((_U_ROUND * c.unit_bytes) ** 2 for c, _ in host))
    u_n = math.sqrt(sum((_U_ROUND * c.unit_bytes) ** 2 for c, _ in nand))
    res.value = nand_b / host_b
    res.uncertainty = res.value * math.hypot(u_h / host_b, u_n / nand_b)
    return res


_READERS = {"smartctl": counters_from_smartctl, "nvme-smart-log": counters_from_nvme_smart_log,
            "ocp-c0": counters_from_ocp_c0}


def counters_from_texts(texts: Mapping[str, str]) -> CounterSet:
    """One read of a drive from several tools' outputs, keyed ``smartctl``, ``nvme-smart-log``
    or ``ocp-c0`` (what :func:`read_counters` and the mock bench return)."""
    unknown = set(texts) - set(_READERS)
    if unknown:
        raise DeviceError(f"unknown counter source(s): {', '.join(sorted(unknown))}")
    return merge_counters(*(_READERS[k](v) for k, v in texts.items()))


def read_counters(path: str, runner, *, nvme: bool = False, timeout_s: float = 60.0) -> dict[str, str]:
    """Run the tools on ``path`` and return their JSON texts (smartctl always; for NVMe
    also ``nvme ocp smart-add-log``, kept only when it answers: most drives are not OCP)."""
    out = {"smartctl": runner.run((*SMARTCTL_ARGV, path), timeout_s=timeout_s).stdout}
    if nvme:
        r = runner.run(("nvme", "ocp", "smart-add-log", path, "-o", "json"), timeout_s=timeout_s)
        if r.returncode == 0 and "Physical media units written" in r.stdout:
            out["ocp-c0"] = r.stdout
    return out

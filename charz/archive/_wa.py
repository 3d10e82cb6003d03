"""The WA archive: a directory a ``charz wa`` run writes step by step, crash-safe and resumable.

::

    DIR/wa.json              settings: schema, bench, geometry, windows, samplerate, plan (every step)
    DIR/steps/0003.json      one committed step: counts (with the width histogram), volume,
                             the WA estimate, warnings, fio's JSON when fio ran
    DIR/steps/0003.fio.json  fio's own JSON output for that step, as fio printed it
    DIR/wa.lock              flock'ed by the one writer

The capture archive's rules (docs/archive.md, "Crash safety"): every file is written
to a temp name, fsync'ed and renamed; a step's ``NNNN.json`` is written last, so a
step exists only once everything it names is durable.  A kill loses at most the step
in flight; resuming removes temp files and runs the steps that have no record.
Readable with ``json`` alone.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any, BinaryIO

import charz
from charz.archive import _atomic
from charz.errors import ArchiveCorrupt, ArchiveError

__all__ = ["WA_SCHEMA", "WaArchive", "ftl_label", "read_wa_archive"]

WA_SCHEMA = "charz-wa/1"
SETTINGS = "wa.json"
STEPS = "steps"
LOCK = "wa.lock"
_STEP = re.compile(r"([0-9]{4})\.json")


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, indent=1, allow_nan=False) + "\n").encode()


def _lock(root: Path) -> BinaryIO:
    f = open(root / LOCK, "ab")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        f.close()
        raise ArchiveError(f"{root} is being written by another charz", hint="wait for it, or pick another --out") from exc
    return f


class WaArchive:
    """The one writer of a WA archive (:meth:`create` or :meth:`resume`); a context manager."""

    def __init__(self, root: Path, lock: BinaryIO, settings: dict, records: dict[int, dict]) -> None:
        self.root = root
        self._lock = lock
        self.settings = settings
        self.records = records

    @classmethod
    def create(cls, path: str | os.PathLike, settings: dict) -> "WaArchive":
        root = Path(path)
        if root.exists() and (not root.is_dir() or any(p.name != LOCK for p in root.iterdir())):
            raise ArchiveError(f"{root} exists and is not empty", hint="pick a new --out, or `charz wa resume` it")
        root.mkdir(parents=True, exist_ok=True)
        lock = _lock(root)
        try:
            (root / STEPS).mkdir(exist_ok=True)
            _atomic.fsync_dir(root)
            full = {"schema": WA_SCHEMA, "tool": f"charz {charz.__version__}",
                    "created_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), **settings}
            _atomic.write_atomic(root / SETTINGS, lambda f: f.write(_dump(full)))
        except BaseException:
            lock.close()
            raise
        return cls(root, lock, full, {})

    @classmethod
    def resume(cls, path: str | os.PathLike) -> "WaArchive":
        root = Path(path)
        if not (root / SETTINGS).is_file():
            raise ArchiveError(f"{root} is not a WA archive (no {SETTINGS})",
                               hint="give the --out directory of a `charz wa run`")
        lock = _lock(root)
        try:
            for p in (root / STEPS).iterdir():
                if _atomic.is_temp_name(p.name):
                    p.unlink()  # a write the kill interrupted
            settings, records = read_wa_archive(root)
        except BaseException:
            lock.close()
            raise
        return cls(root, lock, settings, records)

    def commit(self, index: int, record: dict, *, fio_json: str | None = None) -> None:
        """Make step ``index`` durable: its fio JSON first, then the record that names it."""
        if index in self.records:
            raise ArchiveError(f"step {index} is already in {self.root}")
        steps = self.root / STEPS
        if fio_json is not None:
            name = f"{index:04d}.fio.json"
            _atomic.write_atomic(steps / name, lambda f: f.write(fio_json.encode()), sync_dir=False)
            record = {**record, "fio_json_file": name}
        _atomic.write_atomic(steps / f"{index:04d}.json", lambda f: f.write(_dump({"index": index, **record})))
        self.records[index] = {"index": index, **record}

    def record_initialization(self, record: dict, earlier: list) -> None:
        """Write the drive's initialization record as it stands (after a change, after the
        restore) into the settings: ``bench.initializations`` is ``earlier`` + this one."""
        bench = dict(self.settings.get("bench") or {})
        bench["initializations"] = list(earlier) + [record]
        if not earlier:
            bench["initialization"] = record
        full = {**self.settings, "bench": bench}
        _atomic.write_atomic(self.root / SETTINGS, lambda f: f.write(_dump(full)))
        self.settings = full

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> "WaArchive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_wa_archive(path: str | os.PathLike) -> tuple[dict, dict[int, dict]]:
    """Settings and committed steps (by index).  Damaged files raise :class:`ArchiveCorrupt`."""
    root = Path(path)
    try:
        settings = json.loads((root / SETTINGS).read_text())
    except FileNotFoundError as exc:
        raise ArchiveError(f"{root} is not a WA archive (no {SETTINGS})") from exc
    except json.JSONDecodeError as exc:
        raise ArchiveCorrupt(root / SETTINGS, f"not JSON ({exc})") from exc
    if settings.get("schema") != WA_SCHEMA:
        raise ArchiveError(f"{root / SETTINGS}: schema {settings.get('schema')!r}, this charz reads {WA_SCHEMA}")
    records = {}
    for p in sorted((root / STEPS).iterdir()) if (root / STEPS).is_dir() else []:
        m = _STEP.fullmatch(p.name)
        if not m:
            continue
        try:
            records[int(m.group(1))] = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise ArchiveCorrupt(p, f"not JSON ({exc})",
                                 hint="a step record is written atomically; this file was changed afterwards") from exc
    return settings, records


def ftl_label(ftl: dict) -> str:
    """One line naming a simulated drive's manager, from its ``FtlConfig`` fields as a mock
    archive keeps them (``bench.ftl``) — here so the report can name it without the simulator."""
    policy = ftl.get("policy", "plain")
    op = f"OP {100 * ftl['over_provisioning']:.1f} %"
    if policy == "wolf" and ftl.get("wolf_fdp"):
        return f"FDP as 002 §5 describes it, {ftl.get('wolf_groups', 2)} groups; {op}"
    if policy == "wolf":
        how = "movement operations" if ftl.get("wolf_movement", True) else "no movement"
        most = ftl.get("wolf_max_groups", 0)
        groups = f"2–{most} groups (§5.2)" if most else f"{ftl.get('wolf_groups', 2)} groups"
        return f"Wolf, {groups}, {how} (002 §5); {op}"
    if policy in ("nvm", "cdm"):
        name = "CDM (004 §III)" if policy == "cdm" else "NVM-basic (004)"
        return f"{ftl['gc']} GC, {ftl['nvm_cache_bytes'] / 2**20:g} MiB NVM cache, {name}; {op}"
    return f"{ftl['gc']} GC; {op}"

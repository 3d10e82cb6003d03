"""``charz restore DIR``: put back the drive settings a session changed, and nothing else.

A session restores the drive on every ending it lives through (the end, an error,
Ctrl-C, SIGTERM, SIGHUP).  A kill -9 or a power loss leaves the drive with charz's
settings (read-ahead 0, write cache off ...).  Every initialization is journalled in
the archive before each change (``bench.initializations``), so what is still to be put
back — with the value the *first* initialization found — can be read from it
(:func:`charz.device.not_restored`).  ``charz resume DIR`` puts those values back at
its own end; ``charz restore DIR`` does only that, now, and records what it did as one
more entry of ``bench.initializations``.

Restoring writes no data: the guard still claims the drive (never a mounted or held
one), and the drive must be the one the session measured (serial, or for a drive
without one its model, size and transport); no confirmation is asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from charz.errors import UsageError


def pending_restore(meta: dict) -> dict:
    """Setting key → original value still to be put back, from a session's metadata."""
    from charz.device import not_restored

    bench = meta.get("bench") if isinstance(meta, dict) else None
    records = (bench or {}).get("initializations") or []
    return not_restored(records if isinstance(records, list) else [])


def _same_drive(ident, drive: dict) -> str | None:
    """Why ``ident`` is not the drive the session recorded (None: it is)."""
    if drive.get("serial"):
        return None if ident.serial == drive["serial"] else f"serial {ident.serial!r}, not {drive['serial']!r}"
    for key, now in (("model", ident.model), ("size_bytes", ident.size_bytes), ("transport", str(ident.transport))):
        if key in drive and drive[key] != now:
            return f"{key} {now!r}, not {drive[key]!r}"
    return None


def restore_session(out: Path, *, log: Callable[[str], None], device: str | None = None) -> list[str]:
    """Put back what the session in ``out`` changed and never restored; return the lines said.

    ``device``: where the drive is now, if its name changed (checked to be the same drive).
    Raises UsageError when the session is not one of ``charz characterize`` on a drive,
    DeviceError when the drive is refused or a value cannot be set back.
    """
    from charz.archive import ArchiveWriter
    from charz.device import SubprocessRunner, claim_target, identify, plan_initialization, put_back
    from charz.errors import DeviceCommandFailed
    from charz.session._bench import bench_from_dict

    out = Path(out)
    with ArchiveWriter.open_append(out) as writer:
        meta = writer.metadata
        if meta.get("tool_command") != "charz characterize":
            raise UsageError(f"{out} was not recorded by charz characterize",
                             hint="charz restore puts back what a characterization changed on a drive")
        config = bench_from_dict(meta.get("bench", {}))
        if config.target_is_scratch:
            log(f"nothing to restore: {out} wrote to a scratch file, which has no drive settings")
            return []
        pending = pending_restore(meta)
        if not pending:
            log(f"nothing to restore: every drive setting the session in {out} changed was put back")
            return []
        target = device or config.target
        runner = SubprocessRunner()
        # Restoring writes no data: a signature left on the drive is no reason to refuse.
        with claim_target(target, output_dir=out, allow_signatures=True, runner=runner) as hold:
            ident = identify(hold.path, runner=runner)
            why = _same_drive(ident, meta.get("drive") or {})
            if why is not None:
                raise UsageError(f"{target} is not the drive this session measured: {why}",
                                 hint="give --device with the drive's present name")
            plan = plan_initialization(ident, standby=False)
            init = put_back(plan, pending, runner=runner, hold=hold)
        record = {**init.record(), "plan": "charz restore: only put back what an earlier run left changed"}
        runs = list(meta["bench"].get("initializations", [])) + [record]
        writer.update_metadata(bench={**writer.metadata["bench"], "initializations": runs})
    lines = [f"{init.label_of(r.key)}: put back to {r.value}" if r.ok
             else f"{init.label_of(r.key)}: NOT put back to {r.value}: {r.message}" for r in init.restored]
    for line in lines:
        log(line)
    if init.restore_failures:
        raise DeviceCommandFailed(f"could not restore every setting of {target}:\n  "
                                  + "\n  ".join(init.restore_failures),
                                  hint="set them back by hand (the commands are in the message) or power-cycle "
                                       "the drive; charz restore can be run again")
    return lines

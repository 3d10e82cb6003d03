"""``charz tune PROFILE --fs TARGET``: a profile → commands to run by hand.

parse → build → run → pure ``format_report`` → print.  Nothing is run and nothing is
written: the only files opened are the profile and, with ``--device``, sysfs queue limits
(read-only).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, damage_hints, emit_json
from charz.cli._conventions import TuneTarget
from charz._text import fit, fold, terminal_width
from charz.device import lsblk_argv, parse_lsblk
from charz.errors import UsageError

__all__ = ["register", "parse_io_size"]

_FS_HELP = "What to print commands for (all: every target)."


def parse_io_size(text: str, option: str) -> int:
    """A queue-limit override: ``0`` (the kernel's "not reported") or a size such as ``32k``.

    >>> parse_io_size("0", "--opt-io"), parse_io_size("32k", "--min-io")
    (0, 32768)
    """
    from charz.session import parse_size  # lazy: numba, numpy, scipy

    if text.strip() == "0":
        return 0
    try:
        return parse_size(text)
    except UsageError as exc:
        raise UsageError(f"{option}: {exc.message}", hint=exc.hint) from None


def load_profile(path: Path) -> tuple[dict, str, str | None]:
    """A profile from a file or a session directory, as analyze and report take them.

    Returns (profile, where it came from, a note for stderr or None).  A session without a
    ``profile.toml`` is analysed now (nothing is written), as ``charz report`` does.
    """
    from charz.profile import read_profile  # lazy: numba, numpy, scipy

    if not path.is_dir():
        return read_profile(path), str(path), None
    for name in ("profile.toml", "profile.json"):
        if (path / name).is_file():
            return read_profile(path / name), str(path / name), None
    if not (path / "session.json").is_file():
        raise UsageError(f"{path} is a directory with neither a profile.toml nor a session.json",
                         hint="give a profile file, or a session directory from charz characterize, simulate or import")
    from charz.profile import analyze_archive  # lazy: numba, numpy, scipy

    with damage_hints(reading=True):
        _, profile, _ = analyze_archive(path)
    return profile, f"{path} (analysed now)", (f"{path} has no profile.toml: analysed the session now, as charz "
                                               f"analyze would (nothing written; charz analyze {path} keeps it)")


def _device_path(device: str) -> str:
    return device if device.startswith("/") else f"/dev/{device}"


def _drive_of(device: str) -> tuple[str | None, str | None]:
    """(model, serial) of the whole disk at ``device`` as lsblk reports them (read-only); Nones if unknown."""

    try:
        done = subprocess.run(lsblk_argv(_device_path(device)), capture_output=True, text=True, timeout=10)
        rows = parse_lsblk(done.stdout) if done.returncode == 0 else ()
    except (OSError, subprocess.SubprocessError, Exception):  # noqa: BLE001 - a check, never a failure
        return None, None
    row = next((r for r in rows if r.type == "disk"), rows[0] if rows else None)
    if row is None:
        return None, None
    return (row.model or None), (row.serial or None)


def same_drive_note(profile: dict, device: str, model: str | None, serial: str | None) -> str | None:
    """A warning when ``device`` is not the drive the profile was measured on (None when it is).

    >>> p = {"device": {"model": "SSD A", "serial": "S1"}}
    >>> same_drive_note(p, "/dev/sdb", "SSD A", "S1") is None
    True
    >>> print(same_drive_note(p, "/dev/sdb", "SSD B", "S9"))
    the profile was measured on SSD A (serial S1); /dev/sdb is SSD B (serial S9): another model, so its numbers may not hold here (charz characterize /dev/sdb measures this one)
    >>> print(same_drive_note(p, "/dev/sdc", "SSD A", "S2"))
    the profile was measured on SSD A (serial S1); /dev/sdc is SSD A (serial S2): the same model, another drive (the numbers hold if the firmware is the same)
    """
    d = profile.get("device") or {}
    p_model, p_serial = str(d.get("model") or "").strip(), str(d.get("serial") or "").strip()
    if serial and p_serial and serial.strip() == p_serial:
        return None
    measured = f"{p_model or 'an unnamed drive'}" + (f" (serial {p_serial})" if p_serial else "")
    if not (model or serial):
        return (f"cannot tell whether {device} is the drive the profile was measured on ({measured}): the "
                "system reports no model or serial for it")
    here = f"{model or 'an unnamed drive'}" + (f" (serial {serial})" if serial else "")
    if model and p_model and model.strip() == p_model:
        return (f"the profile was measured on {measured}; {device} is {here}: the same model, another drive "
                "(the numbers hold if the firmware is the same)")
    return (f"the profile was measured on {measured}; {device} is {here}: another model, so its numbers may "
            f"not hold here (charz characterize {device} measures this one)")


def register(app: typer.Typer) -> None:
    @app.command()
    def tune(
        profile: Path = typer.Argument(..., help="Profile from charz analyze (TOML, or .json), or a session directory."),
        fs: TuneTarget = typer.Option(..., "--fs", help=_FS_HELP),
        device: Optional[str] = typer.Option(None, help="Block device whose queue limits to read (read-only) and "
                                                        "to name in the commands, e.g. /dev/sda or nvme0n1."),
        min_io: Optional[str] = typer.Option(None, "--min-io", help="Use this minimum_io_size instead (e.g. 4k, or 0)."),
        opt_io: Optional[str] = typer.Option(None, "--opt-io", help="Use this optimal_io_size instead (e.g. 128k, or 0)."),
        block_size: str = typer.Option("4k", help="File-system block size (power of two, 1k to 64k)."),
        data_disks: Optional[int] = typer.Option(None, min=1, help="RAID 5/6 data disks, for mdadm's full-stripe advice."),
        json_out: bool = typer.Option(False, "--json", help="Print a JSON document (schema charz.tune/1) instead of text."),
        sysfs_root: str = typer.Option("/sys", hidden=True, help="Root of the sysfs tree (tests point it at a fake one)."),
    ) -> None:
        """Print file-system, RAID and partitioning commands aligned to the measured I/O unit (runs nothing)."""
        from charz.session import parse_size  # lazy: numba, numpy, scipy
        from charz.tune import TARGETS, build_report, format_report, read_limits, with_overrides  # lazy: numba, numpy, scipy

        # parse
        if fs not in (*TARGETS, "all"):
            raise UsageError(f"--fs {fs!r} is not a target", hint="choose one of " + ", ".join(TARGETS) + ", or all")
        block_bytes = parse_size(block_size)
        min_io_bytes = parse_io_size(min_io, "--min-io") if min_io is not None else None
        opt_io_bytes = parse_io_size(opt_io, "--opt-io") if opt_io is not None else None
        # build
        data, where, note = load_profile(profile)
        if note:
            typer.echo(note, err=True)
        limits = read_limits(device, sysfs_root=sysfs_root) if device else None
        limits = with_overrides(limits, min_io_bytes=min_io_bytes, opt_io_bytes=opt_io_bytes)
        other = None
        if device and sysfs_root == "/sys":  # (a fake sysfs tree in tests names no real drive)
            other = same_drive_note(data, _device_path(device), *_drive_of(device))
            if other and not json_out:
                console.print(fold(other, first="warning: ", rest="  ", width=terminal_width()), markup=False)
        # run
        report = build_report(data, fs=fs, limits=limits, block_size_bytes=block_bytes, data_disks=data_disks,
                              device=_device_path(device) if device else None, profile_path=where)
        # format, print
        if json_out:
            emit_json(json.dumps({**report.to_dict(), "device_check": other}, indent=2))
        else:
            console.print(fit(format_report(report), terminal_width()), markup=False)

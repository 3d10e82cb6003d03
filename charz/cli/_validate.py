"""``charz validate``: 003 §6's record-size sweep against the measured write I/O unit.

parse → read the profile (fail before any I/O) → run (mock or bench) → pure
``format_table`` / JSON → print → with ``--profile``, add its ``validation`` section.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, emit_json, progress_bar
from charz.cli._conventions import Preset

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command()
    def validate(
        mock: bool = typer.Option(False, help="Mock bench: the real fio on a scratch file, the drive's MB/s and "
                                               "current from the simulated SSD's timing model."),
        preset: Optional[Preset] = typer.Option(None, help="Mock bench: the simulated drive (charz simulate --list) "
                                                        "[default: the --profile's preset, else mxp, as charz "
                                                        "characterize]."),
        device: Optional[Path] = typer.Option(None, help="Bench: the block device (whole disk; checked, claimed, "
                                                         "confirmed; its first --file-size bytes are overwritten)."),
        scope: Optional[str] = typer.Option(None, help="Bench: VISA resource of the scope with the current probe."),
        record_sizes: str = typer.Option("4k,8k,16k,32k,64k", help="Record sizes (003 §6: 4 KB to 64 KB)."),
        file_size: str = typer.Option("128M", help="Bytes written per record size (003 §6: 128 MB)."),
        profile: Optional[Path] = typer.Option(None, help="Profile with results.write_io_unit_bytes; the validation "
                                                          "is added to it as a 'validation' section."),
        rail_v: Optional[float] = typer.Option(None, min=0.1, help="Voltage of the measured rail for energies "
                                                                   "[default: 5 V, assumed]."),
        json_out: bool = typer.Option(False, "--json", help="Print a JSON document (charz.validate/1)."),
        scratch_dir: Optional[Path] = typer.Option(None, help="Mock: directory for the scratch file (a file system "
                                                              "that accepts O_DIRECT) [default: the temp dir]."),
        turnaround_us: float = typer.Option(20.0, min=0.0, help="Mock: host time between two requests, µs."),
        seed: int = typer.Option(0, help="Mock: seed of the simulated drive."),
        model_requests: Optional[int] = typer.Option(None, min=1, help="Mock: simulate only this many requests "
                                                                       "per record size and scale (said in the notes)."),
        confirm_serial: Optional[str] = typer.Option(None, help="Bench: the drive's serial, for scripts."),
        allow_signatures: bool = typer.Option(False, help="Bench: overwrite a drive that carries a signature."),
        keep_drive_settings: bool = typer.Option(False, help="Bench: leave the write cache etc. as found instead of "
                                                             "003 Table 3's settings (restored afterwards)."),
        channel: str = typer.Option("CH1", help="Bench: scope channel with the current probe."),
        visa_library: str = typer.Option("@auto", help="Bench: VISA library (@auto: charz's socket for a "
                                                        "raw ::SOCKET address, else pyvisa-py; @py: pyvisa-py)."),
        vertical_scale: float = typer.Option(0.2, min=1e-4, help="Bench: A/div (the trace sits 4 div low)."),
        scope_points: int = typer.Option(1000, min=2, help="Bench: points per averaging record."),
        scope_interval: float = typer.Option(1e-3, min=1e-9, help="Bench: seconds per point of averaging records."),
        quiet: bool = typer.Option(False, help="No log lines on stderr."),
    ) -> None:
        """Sweep record sizes (003 §6): MB/s, mean current and J/MB per size, aligned vs 4 KB."""
        from charz.cli._characterize import CliUI
        from charz.device import SubprocessRunner
        from charz.profile import write_profile
        from charz.validate import ValidateRequest, format_table, run_bench, run_mock, with_validation

        # parse → build (the bench chosen, the sizes checked, the profile read: all before any I/O)
        request = ValidateRequest.build(
            mock=mock, preset=preset, device=device, scope=scope, record_sizes=record_sizes, file_size=file_size,
            profile=profile, rail_v=rail_v, scratch_dir=scratch_dir, turnaround_us=turnaround_us, seed=seed,
            model_requests=model_requests, confirm_serial=confirm_serial, allow_signatures=allow_signatures,
            keep_drive_settings=keep_drive_settings, channel=channel, visa_library=visa_library,
            vertical_scale=vertical_scale, scope_points=scope_points, scope_interval=scope_interval)
        sizes, file_size_bytes, unit, rail = (request.record_sizes_bytes, request.file_size_bytes, request.unit,
                                              request.rail)
        ui = CliUI(quiet)
        runner = SubprocessRunner()
        # run
        if request.mock:
            from charz.sim import load_preset
            from charz.sim._stream import play_stream

            m = request.bench
            name = m.preset
            show_bar = not (quiet or json_out)
            with progress_bar(len(sizes), f"validating (mock, {name})", enabled=show_bar) as bar:
                def say(text: str) -> None:
                    # With the bar on, it names what runs ("fio: 4 KiB records"); without it the log does.
                    if show_bar:
                        bar.describe(f"validating (mock, {name}) {text.split(',')[0]}")
                    else:
                        ui.log(text)

                result = run_mock(model=load_preset(name), play_stream=play_stream, record_sizes_bytes=sizes,
                                  file_size_bytes=file_size_bytes, unit=unit, rail=rail, runner=runner,
                                  scratch_dir=m.scratch_dir, turnaround_s=m.turnaround_s, seed=m.seed,
                                  max_requests=m.max_requests, log=say, advance=bar.advance)
        else:
            from charz.cli._stop import stoppable

            b = request.bench
            try:
                # Ctrl-C, SIGTERM, SIGHUP: fio and the scope stop, the drive's settings are put back.
                with stoppable():
                    result = run_bench(device=b.device, scope_resource=b.scope_resource, record_sizes_bytes=sizes,
                                       file_size_bytes=file_size_bytes, unit=unit, rail=rail, settings=b.settings,
                                       runner=runner, ask=ui.confirm, confirm_serial=b.confirm_serial,
                                       allow_signatures=b.allow_signatures, drive_settings=b.drive_settings,
                                       output_dir=b.output_dir, visa_library=b.visa_library, log=ui.log)
            except KeyboardInterrupt as exc:
                import contextlib

                with contextlib.suppress(OSError, ValueError):  # SIGHUP: the terminal may be gone
                    ui.err.print("stopped: the drive's settings are put back; nothing to resume (validate "
                                 "measures every record size anew)", markup=False)
                raise typer.Exit(getattr(exc, "exit_code", 130))
        written = None
        if profile is not None:
            written = write_profile(with_validation(request.profile_data, result, origin=str(profile)), profile)
        # format, print
        if json_out:
            doc = {**result.to_dict(), "profile_written": None if written is None else str(written)}
            emit_json(json.dumps(doc, indent=2, allow_nan=False))
        else:
            console.print(format_table(result), markup=False)
            if written is not None:
                console.print(f"validation section written to {written} (charz report draws it)", markup=False)

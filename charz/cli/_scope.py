"""``charz scope check`` (bench bring-up) and ``charz mock-scope`` (the simulated scope).

parse → build → run → pure ``format_*`` → print.
"""

from __future__ import annotations

import importlib
import signal
import textwrap

import json
from typing import Optional

import typer

from charz.cli._common import console, emit_json
from charz.cli._conventions import Dialect, MockScopePreset, Probe, one_of
from charz.errors import UsageError

__all__ = ["register", "format_check", "format_mock_banner"]


def _si(x: float, unit: str) -> str:
    prefixes = ((1e-9, "n"), (1e-6, "u"), (1e-3, "m"), (1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G"))
    if x == 0:
        return f"0 {unit}"
    scale, prefix = prefixes[0]
    for s, p in prefixes:
        if abs(x) >= s:
            scale, prefix = s, p
    return f"{x / scale:.4g} {prefix}{unit}"


#: A request the size of a few write units: long enough to see, on any drive.
TRIGGER_IO_BYTES = 128 * 1024


def trigger_lines(device: str | None, timeout_s: float) -> list[str]:
    r"""How to make the drive draw current while the check waits (pure; ≤ 80 columns).

    dd's ``iflag=direct`` / ``oflag=direct`` open the device with O_DIRECT, as charz's own
    requests are: the page cache would otherwise absorb the request and the drive never
    see it.

    >>> print(*trigger_lines("/dev/sdb", 2.0), sep="\n")
    trigger   nothing drew current in the 2 s wait: run the check again with
              --timeout 30 and, while it waits, make the drive do one request
              from another terminal, e.g. a read (it changes nothing):
                dd if=/dev/sdb of=/dev/null bs=128k count=1 iflag=direct
              or a write (it destroys the first 128 KiB of the drive):
                dd if=/dev/zero of=/dev/sdb bs=128k count=1 oflag=direct
    """
    dev = device or "/dev/sdX"
    bs = f"bs={TRIGGER_IO_BYTES // 1024}k count=1"
    return [
        f"trigger   nothing drew current in the {timeout_s:.2g} s wait: run the check again with",
        f"          --timeout 30 and, while it waits, make the drive do one request",
        f"          from another terminal, e.g. a read (it changes nothing):",
        f"            dd if={dev} of=/dev/null {bs} iflag=direct",
        f"          or a write (it destroys the first 128 KiB of the drive):",
        f"            dd if=/dev/zero of={dev} {bs} oflag=direct",
    ] + ([] if device else ["          (give --device to put the drive's name in these lines)"])


def format_check(result, device: str | None = None) -> str:  # noqa: ANN001 - a charz.scope.CheckResult
    """The report of ``charz scope check`` as plain text (pure).

    ``device`` names the drive in the lines that say how to make it do a request.

    Example
    -------
    >>> print(format_check(result))                                   # doctest: +SKIP
    scope     TEKTRONIX DPO3014 (serial C010101, CF:91.1CT FV:v2.14)
    ...
    verdict   OK: ready to characterize
    """
    s = result.settings
    ident = result.identity.split(",")
    who = " ".join(ident[:2]) + (f" (serial {ident[2]}, {ident[3]})" if len(ident) == 4 else "")
    capture = (f"forced after {result.waited_s:.3g} s: nothing triggered" if result.forced
               else f"triggered after {_si(result.waited_s, 's')}")
    lines = [
        f"scope     {who}",
        f"          {result.resource} · driver {result.driver} · limits instruments/{result.model}.toml",
        f"settings  {s.channel} {_si(s.vertical_scale, s.probe_units)}/div, position "
        f"{s.vertical_position_div:+g} div, offset {_si(s.vertical_offset, s.probe_units)}, {s.coupling}",
        f"          {s.record_length} points at {_si(s.sample_interval_s, 's')} "
        f"({_si(s.window_s, 's')}), {s.pretrigger_fraction:.0%} before the trigger, "
        f"{s.width_bytes}-byte transfer",
        f"          trigger {s.trigger_channel} {s.trigger_slope} through "
        f"{_si(s.trigger_level, s.probe_units)}, {s.trigger_mode} mode",
        f"capture   {capture}",
        f"record    {result.n_points} points, {_si(result.sample_interval_s, 's')}/sample, "
        f"units {result.y_unit!r}",
        f"          min {_si(result.minimum, result.y_unit)}, mean {_si(result.mean, result.y_unit)}, "
        f"max {_si(result.maximum, result.y_unit)}, clipped {result.clipped_fraction:.2%}",
        f"          \"{result.description}\"",
        "errors    " + ("; ".join(f"{c} {m}" for c, m in result.errors) if result.errors else "none"),
    ]
    if result.forced:
        lines += trigger_lines(device, result.waited_s)
    if result.ok:
        lines.append("verdict   OK: ready to characterize")
    else:
        lines.append("verdict   fix before characterizing:")
        lines += [f"          - {a}" for a in result.advice]
    # 80 columns: a long resource or advice folds under its own column
    return "\n".join(textwrap.fill(line, 80, subsequent_indent=" " * (12 if line.startswith("          - ") else 10),
                                   break_long_words=False, break_on_hyphens=False)
                     if len(line) > 80 else line for line in lines)


def format_mock_banner(server) -> str:  # noqa: ANN001 - a MockScopeServer
    """What ``charz mock-scope`` prints when it is listening (pure).

    Example
    -------
    >>> print(format_mock_banner(server))                             # doctest: +SKIP
    mock scope tek (tek_dpo3000), source SimulatedBench
    resource      TCPIP::127.0.0.1::4000::SOCKET
    control port  4001 (JSON lines; the simulated drive's "bus")
    faults        none
    ...
    """
    faults = ", ".join(f.kind for f in server.faults.active()) or "none"
    io = '{"io": {"op": "write", "size_bytes": 32768, "offset_bytes": 0}}'
    return "\n".join([
        f"mock scope {server.dialect_name} ({server.model.name}), source {type(server.source).__name__}",
        f"resource      {server.resource}",
        f"control port  {server.control_port} (JSON lines; the simulated drive's \"bus\")",
        f"faults        {faults}",
        "The mock cannot see your disks: a request reaches its simulated drive only",
        "through the control port.  To see one, run in another terminal",
        f"  charz scope check {server.resource} --timeout 30",
        "and, while it waits, send a 32 KiB write (bash):",
        f"  echo '{io}' \\",
        f"    > /dev/tcp/127.0.0.1/{server.control_port}",
        "Ctrl-C stops it.",
    ])


def _build_settings(channel: str, scale: float, position: float, offset: float, units: str,
                    record_length: int, sample_interval: float, pretrigger: float, level: float,
                    slope: str, mode: str, width: int):
    from charz.scope import ScopeSettings  # lazy: numpy, pyvisa

    return ScopeSettings(
        channel=channel, vertical_scale=scale, probe_units=units, vertical_position_div=position,
        vertical_offset=offset, record_length=record_length, sample_interval_s=sample_interval,
        pretrigger_fraction=pretrigger, trigger_level=level, trigger_slope=slope,
        trigger_mode=mode, width_bytes=width,
    )


def _preset_source(preset: str, seed: int):  # noqa: ANN202 - a CurrentSource
    from charz.sim import SimulatedBench, load_preset  # lazy: numba, numpy, pyvisa, scipy, the simulator

    return SimulatedBench(load_preset(preset), seed=seed)


def _stop_on_interrupt_and_term() -> None:
    """Ctrl-C and SIGTERM both end ``charz mock-scope`` cleanly.

    A process started with SIGINT ignored (a background job of a shell script, a child of
    a process that ignores it) gets no KeyboardInterrupt from Python, and the mock then ran
    on after Ctrl-C or ``kill -INT``; SIGTERM (``kill``, the end of a CI step) killed it
    without closing its ports."""

    def stop(signum, frame):  # noqa: ANN001
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, stop)


def register(app: typer.Typer) -> None:
    scope_app = typer.Typer(help="Oscilloscope bring-up.", no_args_is_help=True)
    app.add_typer(scope_app, name="scope")
    importlib.import_module("charz.cli._scope_list").register(scope_app)  # charz scope list

    @scope_app.command("check")
    def check(
        resource: str = typer.Argument(..., help="VISA resource, e.g. TCPIP::192.168.1.20::4000::SOCKET"),
        visa_library: str = typer.Option("@auto", help="@auto (charz's own socket for a raw ::SOCKET "
                                                        "address, pyvisa-py for others), @py (pyvisa-py "
                                                        "for all), @socket, @ivi (NI/Keysight VISA) or a "
                                                        "library path."),
        channel: str = typer.Option("CH1", help="Channel with the current probe."),
        scale: float = typer.Option(0.1, help="Vertical scale per division (A/div)."),
        position: float = typer.Option(-3.0, help="Vertical position in divisions (room for peaks)."),
        offset: float = typer.Option(0.0, help="Vertical offset (A)."),
        units: str = typer.Option("A", help="Probe units: A (current probe) or V."),
        record_length: int = typer.Option(10_000, help="Points per record."),
        sample_interval: float = typer.Option(2e-6, help="Seconds per point (the method needs <= 2e-6)."),
        pretrigger: float = typer.Option(0.1, help="Share of the record before the trigger."),
        level: float = typer.Option(0.2, help="Trigger level (A)."),
        slope: str = typer.Option("rise", help="rise or fall."),
        mode: str = typer.Option("normal", help="normal or auto."),
        width: int = typer.Option(2, help="Bytes per point in the transfer (1 or 2)."),
        timeout: float = typer.Option(2.0, help="Seconds to wait for a trigger before forcing one."),
        headers: bool = typer.Option(True, help="Tek: ask for reply headers (checks every reply)."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        device: Optional[str] = typer.Option(None, help="The drive on the probe: named in the lines that say "
                                                        "how to make it do a request (nothing is sent to it)."),
    ) -> None:
        """Identify the scope, take one acquisition and say what to fix (exit 1 if anything)."""
        from charz.scope import open_scope, run_check  # lazy: numpy, pyvisa

        settings = _build_settings(channel, scale, position, offset, units, record_length,
                                   sample_interval, pretrigger, level, slope, mode, width)
        if not timeout > 0:
            raise UsageError(f"--timeout must be positive, not {timeout}")
        scope = open_scope(resource, visa_library=visa_library, timeout_s=max(timeout, 1.0),
                           headers=headers)
        try:
            result = run_check(scope, settings, timeout_s=timeout)
        finally:
            scope.close()
        if as_json:
            emit_json(json.dumps(result.to_dict(), default=str, indent=2))
        else:
            console.print(format_check(result, device), markup=False)
        if not result.ok:
            raise typer.Exit(code=1)  # something to fix: scripts can tell

    @app.command("mock-scope")
    def mock_scope(
        port: int = typer.Option(0, help="SCPI port on 127.0.0.1 (0: a free one)."),
        control_port: int = typer.Option(0, help="Control port (JSON lines) on 127.0.0.1 (0: a free one)."),
        preset: MockScopePreset = typer.Option("mxp", help="Simulated drive behind the probe (charz simulate --list), as "
                                               "characterize --mock; 'pulse' for a plain pulse train."),
        seed: int = typer.Option(0, help="Seed of the simulated drive."),
        dialect: Dialect = typer.Option("tek", metavar="<dialect>", help=f"The scope the mock plays: {one_of(Dialect)}."),
        fault: Optional[list[str]] = typer.Option(None, help="Fault to inject, kind[:key=value,...]; repeatable."),
        probe: Probe = typer.Option("current", help="current (reports A) or voltage (a shunt)."),
        realtime: bool = typer.Option(False, help="Acquisitions, commands and transfers take as long as on "
                                      "the modelled scope (instruments/*.toml [timing])."),
    ) -> None:
        """Run the mock oscilloscope on loopback until Ctrl-C (or SIGTERM)."""
        from charz.sim.scope_server import MockScopeServer  # lazy: numba, numpy, pyvisa, scipy, the simulator

        _stop_on_interrupt_and_term()

        source = None if preset == "pulse" else _preset_source(preset, seed)  # None: the server's pulse train
        server = MockScopeServer(source, dialect=dialect, port=port, control_port=control_port,
                                 faults=fault or (), probe=probe, time_scale=1.0 if realtime else 0.0)
        server.start()
        try:
            typer.echo(format_mock_banner(server))
            server.serve_forever()
        except KeyboardInterrupt:
            typer.echo("stopped")
        finally:
            server.stop()

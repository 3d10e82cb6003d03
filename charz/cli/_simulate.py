"""``charz simulate``: render a sweep of the simulated SSD straight into an archive."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from charz._text import fold, terminal_width
from charz.cli._common import console, damage_hints, progress_bar
from charz.cli._conventions import Preset
from charz.errors import UsageError


def format_preset_list(models, width: int = 80) -> str:
    lines = ["presets (simulated replicas of the drives of 003):"]
    for m in models:
        lines.append(fold(m.description, first=f"  {m.name:6s} ", width=width))
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command()
    def simulate(
        preset: Optional[Preset] = typer.Option(None, help="Drive to simulate (see --list)."),
        out: Optional[Path] = typer.Option(None, help="Session directory to create (must not exist or be empty)."),
        seed: int = typer.Option(0, help="Seed: same seed, same captures."),
        sizes: Optional[str] = typer.Option(None, help="Write sizes, e.g. '4k:160k:4k' or '4k,32k' (default: one page to 160 KB in page steps)."),
        read_sizes: Optional[str] = typer.Option(None, help="Read sizes (default: page steps to 160 KB and 512 KB); 'none' for no reads."),
        repeats: int = typer.Option(5, min=1, help="Captures per size."),
        standby: bool = typer.Option(True, help="Drive in standby between requests (no idle peaks), as after hdparm -y."),
        write_cache: bool = typer.Option(False, help="Leave the drive's write cache on (003 Fig. 7a: no program phase)."),
        resume: bool = typer.Option(False, help="Continue an interrupted simulation in OUT."),
        list_presets: bool = typer.Option(False, "--list", help="List the presets and exit."),
        quiet: bool = typer.Option(False, help="No progress bar."),
    ) -> None:
        """Render a write sweep and a read sweep of a simulated SSD into a capture archive."""
        from charz.archive import ArchiveWriter  # lazy: numpy
        from charz.session import SweepPlan, build_sweep, default_read_sizes, default_write_sizes, parse_sizes  # lazy: numba, numpy, scipy
        from charz.sim import SimulatedSSD  # lazy: numba, numpy, pyvisa, scipy, the simulator
        from charz.sim import list_presets as names  # lazy: numba, numpy, pyvisa, scipy, the simulator
        from charz.sim import load_preset  # lazy: numba, numpy, pyvisa, scipy, the simulator
        from charz.sim import replay, simulate_capture  # lazy: numba, numpy, pyvisa, scipy, the simulator

        if list_presets:
            console.print(format_preset_list([load_preset(n) for n in names()], terminal_width()), markup=False)
            return
        if preset is None or out is None:
            raise UsageError("simulate needs --preset and --out", hint="e.g. charz simulate --preset mxp --out runs/mxp (charz simulate --list shows presets)")
        model = load_preset(preset)
        page = model.geometry.page_size_bytes
        if resume:
            with damage_hints(reading=False):
                writer = ArchiveWriter.open_append(out)
            meta = writer.metadata
            bench = meta.get("bench", {})
            if bench.get("kind") != "simulated":
                writer.close()
                raise UsageError(f"{out} was not made by charz simulate", hint="use charz resume for bench sessions")
            model = load_preset(bench["preset"])
            seed = int(bench["seed"])
            standby, write_cache = bool(bench["standby"]), bool(bench["write_cache"])
            plan = SweepPlan.from_dict(meta["plan"])
        else:
            if out.exists() and any(out.iterdir()):
                raise UsageError(f"{out} exists and is not empty", hint="choose a new --out, or add --resume to continue a simulation there")
            writes = parse_sizes(sizes) if sizes else default_write_sizes(page)
            reads = [] if read_sizes == "none" else (parse_sizes(read_sizes) if read_sizes else default_read_sizes(page))
            plan = build_sweep(writes, reads, repeats)
            dig = model.digitizer
            metadata = {
                "drive": {
                    "model": model.given.get("model", model.name),
                    "serial": f"SIM-{model.name.upper()}-{seed}",
                    "interface": model.given.get("interface"),
                    "capacity_bytes": model.given.get("capacity_bytes"),
                    "given": model.given_si(),
                },
                "bench": {
                    "kind": "simulated",
                    "preset": model.name,
                    "seed": seed,
                    "standby": standby,
                    "write_cache": write_cache,
                    "rail_v": 5.0,
                    "rail_v_origin": "assumed: 003 multiplies by the 5 V input voltage",
                    "digitizer": {
                        "scale_a_per_div": dig.scale_a_per_div,
                        "position_div": dig.position_div,
                        "bits": dig.bits,
                        "record_length": dig.record_length,
                        "write_sample_interval_s": dig.write_sample_interval_s,
                        "read_sample_interval_s": dig.read_sample_interval_s,
                        "pre_trigger_fraction": dig.pre_trigger_fraction,
                    },
                },
                "plan": plan.to_dict(),
                "tool_command": "charz simulate",
            }
            writer = ArchiveWriter.create(out, metadata)
        ssd = SimulatedSSD(model, seed=seed, standby=standby, write_cache=write_cache)
        steps = plan.captured_steps
        done = writer.completed_steps()
        replay(ssd, [s for s in steps if s.id in done])
        todo = [s for s in steps if s.id not in done]
        with writer, progress_bar(len(steps), f"simulating {model.name}", enabled=not quiet) as bar:
            bar.advance(len(steps) - len(todo))
            for step in todo:
                writer.append(simulate_capture(ssd, step))
                bar.advance()
            writer.update_metadata(finished=True)
        console.print(f"wrote {len(steps)} captures of the simulated {model.name} to {out}")
        console.print(f"next: charz analyze {out}")

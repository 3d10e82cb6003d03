"""``charz wa model``: the closed-form WA of uniform random writes for a geometry, and measured WA beside it.

parse (over-provisioning in one named convention, pages per block, held blocks; or the
mock drive's; or a mock archive's) → pure ``format_model`` → print.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer

from charz.cli._common import console, emit_json
from charz.cli._wa_app import wa_app
from charz.cli._wa_format import wrap
from charz.errors import UsageError

__all__ = ["Geometry", "format_model", "parse_op", "register"]


@dataclass(frozen=True)
class Geometry:
    """What the closed forms need, each with where it came from."""

    spare_factor: float  # S_f = spare/physical
    sf_origin: str
    pages_per_block: int | None = None
    blocks_per_pool: int | None = None
    held: tuple[float, float] | None = None  # blocks per pool kept free beyond the model's spare
    held_origin: str = ""


def _held_sf(g: Geometry, h: float) -> float:
    from charz.analysis import held_spare_factor  # numpy &c.: only once a command runs
    return held_spare_factor(g.spare_factor, h, g.blocks_per_pool)


def format_model(g: Geometry, measured=None, source: str = "") -> str:
    """The model table (pure; ≤ 80 columns)."""
    from charz.analysis import model_table, rho_from_sf  # numpy &c.: only once a command runs
    lines = [f"over-provisioning  S_f = {g.spare_factor:.4f} spare/physical, ρ = {rho_from_sf(g.spare_factor):.4f} "
             "spare/user", f"{'':19}({g.sf_origin})"]
    if g.pages_per_block:
        lines.append(f"erase unit         {g.pages_per_block} pages (the greedy model's N_p)")
    band = g.held and g.blocks_per_pool
    if band:
        lo, hi = g.held
        lines.append(f"held free          {lo:g}–{hi:g} of {g.blocks_per_pool} blocks per pool: "
                     f"GC sees S_f {_held_sf(g, hi):.4f}–{_held_sf(g, lo):.4f}")
        lines.append(f"{'':19}({g.held_origin})")
    lines.append("")
    head = f"{'model':<26}{'takes':<7}{'WA':>7}"
    head += f"{'held free':>14}" if band else ""
    lines.append(f"{head}  from")
    nominal = model_table(g.spare_factor, g.pages_per_block)
    tables = [model_table(_held_sf(g, h), g.pages_per_block) for h in g.held] if band else []
    for k, row in enumerate(nominal):
        line = f"{row.name:<26}{row.convention:<7}{row.wa:>7.3f}"
        if band:
            line += f"{tables[0][k].wa:>8.3f}–{tables[1][k].wa:<5.3f}"
        lines.append(f"{line}  {row.source}")
    lines.append("")
    lines.append("All: uniform random single-page overwrites in steady state, no TRIM (inferred "
                 "from the formulas); Agarwal takes ρ = S_f/(1 − S_f).")
    if measured:
        lines.append("")
        lines.append(f"measured  {measured.label}{f' ({source})' if source else ''}")
        for m, name in ((measured.rb, "R/B pin, Eq. 7"), (measured.smart, "drive's SMART counters")):
            if m:
                lines.append(f"  {name:<24}{m[0]:>7.3f} ± {m[1]:.3f}  (inferred, {measured.steps} sub-test"
                             f"{'s' if measured.steps != 1 else ''})")
            else:
                lines.append(f"  {name:<24}{'—':>7}  (none in the archive)")
    return wrap("\n".join(lines))


def model_dict(g: Geometry, measured=None, source: str = "") -> dict:
    """The --json document of the same table (charz.wa-model/1; pure)."""
    from charz.analysis import model_table, rho_from_sf  # numpy &c.: only once a command runs
    band = g.held and g.blocks_per_pool
    held_tables = [model_table(_held_sf(g, h), g.pages_per_block) for h in g.held] if band else []
    models = []
    for k, row in enumerate(model_table(g.spare_factor, g.pages_per_block)):
        entry = {"name": row.name, "takes": row.convention, "wa": row.wa, "source": row.source,
                 "origin": "inferred from the formula"}
        if band:
            entry["wa_held_free"] = [held_tables[0][k].wa, held_tables[1][k].wa]
        models.append(entry)
    doc = {"schema": "charz.wa-model/1", "spare_factor": g.spare_factor, "rho": rho_from_sf(g.spare_factor),
           "spare_factor_origin": g.sf_origin, "pages_per_block": g.pages_per_block,
           "blocks_per_pool": g.blocks_per_pool, "held_free_blocks": list(g.held) if band else None,
           "held_free_origin": g.held_origin if band else None, "models": models, "measured": None}
    if measured:
        doc["measured"] = {"label": measured.label, "source": source, "sub_tests": measured.steps,
                           "rb_pin": {"wa": measured.rb[0], "uncertainty": measured.rb[1]} if measured.rb else None,
                           "smart": {"wa": measured.smart[0], "uncertainty": measured.smart[1]} if measured.smart else None}
    return doc


def parse_op(text: str) -> float:
    """``--op``: ρ = spare/user as a percent (``7%``) or a fraction below 1 (``0.07``).

    A bare number of 1 or more is refused — ``7`` could mean 7 % or 700 % — and so is
    anything above 100 % (more spare than user space) or not above 0.

    >>> parse_op("7%"), parse_op("0.07"), parse_op(" 28 % ")
    (0.07, 0.07, 0.28)
    """
    t = text.strip()
    pct = t.endswith("%")
    try:
        v = float(t[:-1]) / 100.0 if pct else float(t)
    except ValueError:
        raise UsageError(f"--op is ρ = spare/user as a percent or a fraction (7% or 0.07), not {text!r}") from None
    if not pct and v >= 1:
        raise UsageError(f"--op {t} is ambiguous: write {t}% for {t} percent, or a fraction below 1 (e.g. "
                         f"{v / 100:g})", hint="charz takes a bare number only as a fraction (0.07 = 7 %)")
    if v > 1:
        raise UsageError(f"--op {t} is above 100 %: ρ = spare/user, and a drive with more spare than user "
                         "space is not what the closed forms describe")
    if not v > 0:
        raise UsageError(f"--op {t}: the closed forms need some spare space (ρ > 0)")
    return round(v, 12)


def _mock_geometry(ftl: dict | None, origin: str) -> Geometry:
    from charz.sim import mock_config  # the simulator: heavy, wanted for the mock's geometry only
    from charz.sim.ftl import FtlConfig  # lazy: numba, numpy, pyvisa, scipy, the simulator
    cfg = FtlConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in ftl.items()}) if ftl else mock_config()
    # its GC keeps 1 reserve unit free and collects until 2 are (docs/ftl.md): 1–2 units beyond the spare
    return Geometry(cfg.spare_factor, origin, cfg.pages_per_unit, cfg.units_per_pool, (1.0, 2.0),
                    "the simulated FTL's GC rule: a reserve of 1, collects to 2")


@wa_app.command("model")
def model(
    op: Optional[str] = typer.Option(None, "--op", help="ρ = spare/user, as vendors quote OP: 7% or 0.07 (a bare "
                                                        "number ≥ 1 is refused as ambiguous)."),
    spare_factor: Optional[float] = typer.Option(None, help="S_f = spare/physical instead of --op, a fraction "
                                                            "(000's OP%: 0.07)."),
    pages_per_block: Optional[int] = typer.Option(None, help="Pages per erase block (the greedy model)."),
    blocks_per_pool: Optional[int] = typer.Option(None, help="Blocks per GC pool (a die or a plane)."),
    held_blocks: Optional[str] = typer.Option(None, help="Blocks per pool the FTL keeps free, LOW,HIGH."),
    mock: bool = typer.Option(False, "--mock", help="The geometry of the drive of charz wa run --mock."),
    archive: Optional[Path] = typer.Option(None, help="A WA archive: its steady sub-tests beside the models "
                                                      "(and, from a mock run, its geometry)."),
    as_json: bool = typer.Option(False, "--json", help="Print the table as JSON (charz.wa-model/1)."),
) -> None:
    """Closed-form WA (Desnoyers LRW and greedy, Dayan δ, Agarwal) for a geometry; measured WA beside it.

    Exit codes: 0 shown, 2 bad usage (e.g. an ambiguous --op), 3 not a WA archive."""
    from charz.analysis import sf_from_rho  # numpy &c.: only once a command runs
    from charz.wa import closed_form_of, read_wa, steady_series  # lazy: numba, numpy, scipy

    settings, records = None, None
    if archive is not None:
        settings, records = read_wa(archive)
    given = [x is not None for x in (op, spare_factor)]
    if sum(given) > 1 or (mock and any(given)):
        raise UsageError("give one of --op (ρ, spare/user), --spare-factor (S_f, spare/physical) and --mock")
    try:
        if op is not None or spare_factor is not None:
            if spare_factor is not None and not (0 < spare_factor < 1):
                raise UsageError(f"--spare-factor is S_f = spare/physical, a fraction in (0, 1), not {spare_factor:g}",
                                 hint="000's OP% is S_f: 7 % is --spare-factor 0.07")
            sf = sf_from_rho(parse_op(op)) if op is not None else float(spare_factor)
            held = None
            if held_blocks:
                lo, _, hi = held_blocks.partition(",")
                held = (float(lo), float(hi or lo))
                if not blocks_per_pool:
                    raise UsageError("--held-blocks needs --blocks-per-pool")
            g = Geometry(sf, "given" + (" as ρ" if op is not None else " as S_f"), pages_per_block, blocks_per_pool,
                         held, "given")
        elif mock:
            g = _mock_geometry(None, "the mock drive's configuration")
        elif settings and settings.bench.get("ftl"):  # a mock archive: its simulated drive
            if closed_form_of(settings.bench) is None:
                raise UsageError("the archive's simulated drive is not a plain greedy one (Wolf, an NVM cache, "
                                 "cost-benefit): give --op or --spare-factor to see the uniform closed forms")
            g = _mock_geometry(settings.bench["ftl"], "the archive's simulated drive")
        else:
            raise UsageError("give --op or --spare-factor (a bench archive does not know its drive's OP)",
                             hint="e.g. charz wa model --op 7% --pages-per-block 256")
        measured = None
        if records:
            own = [x for x in steady_series(records, closed_form_of(settings.bench)) if x.op_percent is None]
            measured = own[0] if own else None
        if as_json:
            emit_json(json.dumps(model_dict(g, measured, str(archive) if archive else ""), indent=2))
            return
        else:
            text = format_model(g, measured, str(archive) if archive else "")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    console.print(text, markup=False)


def register(app: typer.Typer) -> None:
    """Nothing to add: ``model`` is on :data:`wa_app`, which ``charz.cli._wa`` registers."""

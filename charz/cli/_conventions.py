"""One set of conventions for every command, applied in one place (issue 25 item 4).

Every command gets, without each module repeating it:

- ``-o/--out`` for what it writes.  The spellings commands used before (``--output``,
  ``--to``, ``--into``) still work, hidden from ``--help``, with a one-line deprecation note.
- ``-q/--quiet`` (no progress bars or log lines; results, warnings and errors still print)
  and ``-v/--verbose`` (also the time the command took and, on an error, its cause).  A
  command that already takes ``quiet`` receives it; for the others the flag sets
  :data:`charz.cli._common.verbosity`, which the shared helpers read.
- An "Exit codes" section in ``--help`` from the one table in :mod:`charz.errors`.

The root group lists the main commands first and the developer tools (``simulate``,
``mock-scope``) in their own section.
"""

from __future__ import annotations

import contextlib
import sys
import typing
from pathlib import Path
from typing import Literal

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption as _Option
from typer.models import DefaultPlaceholder

from charz.cli import _common
from charz.errors import EXIT_CODES

# The order a person meets the commands in `charz --help`; commands not named here
# follow in registration order, the developer tools come last in a section of their own.
MAIN_ORDER = ("characterize", "resume", "analyze", "report", "tune", "validate", "show", "diff",
              "import", "export", "wa", "scope")
DEV_TOOLS = ("simulate", "mock-scope")

# Names a command's output option had before `--out`: the parameter keeps its name.
_OUT_NAMES = ("out", "output", "to", "into")
_OLD_OUT = ("--output", "--to", "--into")

# A command whose exit status means more than success or an error kind.
EXIT_NOTES: dict[str, dict[int, str]] = {
    "diff": {0: "no field differs beyond its stated uncertainty",
             1: "some field differs beyond its stated uncertainty"},
    "scope check": {1: "the check found something to fix (listed)"},
}


def command_path(ctx) -> str:
    """``wa show`` for ``charz wa show``, whatever the program is called."""
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name)
        ctx = ctx.parent
    return " ".join(reversed(names))


def _format_exit_codes(ctx, formatter) -> None:
    notes = EXIT_NOTES.get(command_path(ctx), {})
    rows = [(str(code), notes.get(code, text)) for code, text in EXIT_CODES]
    with formatter.section("Exit codes"):
        formatter.write_dl(rows, col_max=5)


class CharzCommand(TyperCommand):
    """A leaf command with charz's conventions (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._old_out: tuple[str, ...] = ()
        self._injected: set[str] = set()
        params = []
        own = {p.name for p in self.params if isinstance(p, _Option) and p.name in ("quiet", "verbose")}
        for p in self.params:
            if isinstance(p, _Option) and p.name in ("quiet", "verbose"):
                continue  # replaced below by the shared -q/--quiet and -v/--verbose (the value still reaches it)
            if isinstance(p, _Option) and p.name in _OUT_NAMES:
                old = tuple(o for o in p.opts if o in _OLD_OUT)
                if old or "--out" in p.opts:
                    self._old_out = old
                    p.opts = ["-o", "--out"]
            params.append(p)
        quiet, verbose = _shared_options()
        self._injected |= {"quiet", "verbose"} - own
        # before -h/--help, which Click appends last
        self.params = params + [quiet, verbose]

    def parse_args(self, ctx, args):
        args = _rewrite_old_out(args, self._old_out)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        quiet = bool(ctx.params.get("quiet"))
        verbose = int(ctx.params.get("verbose") or 0)
        for name in self._injected:
            ctx.params.pop(name, None)
        _common.verbosity = -1 if quiet else verbose
        if not any(ctx.params.get(p.name) for p in self.params if "--json" in getattr(p, "opts", ())):
            return super().invoke(ctx)

        _common.json_stream = sys.stdout
        try:
            with contextlib.redirect_stdout(sys.stderr):
                return super().invoke(ctx)
        finally:
            _common.json_stream = None

    def format_epilog(self, ctx, formatter) -> None:
        super().format_epilog(ctx, formatter)
        _format_exit_codes(ctx, formatter)


def _shared_options():
    """-q/--quiet and -v/--verbose as Typer builds them (its parameter objects need its type machinery)."""
    global _SHARED
    if _SHARED is None:
        def template(
            quiet: bool = typer.Option(False, "-q", "--quiet",
                                       help="No progress bars or log lines (results, warnings and errors still print)."),
            verbose: int = typer.Option(0, "-v", "--verbose", count=True, show_default=False,
                                        help="More detail: the time taken and, on an error, its cause."),
        ) -> None:
            pass

        made = typer.main.get_command_from_info(typer.models.CommandInfo(callback=template), pretty_exceptions_short=False,
                                                rich_markup_mode=None)
        _SHARED = tuple(made.params)
    return _SHARED


_SHARED = None


def _rewrite_old_out(args: list[str], old: tuple[str, ...]) -> list[str]:
    """``--output X`` / ``--to=X`` → ``--out X``, with one deprecation note on stderr; the old
    ``--no-quiet`` (the default) is dropped."""
    out = []
    for i, a in enumerate(args):
        if a == "--":
            return out + args[i:]
        if a == "--no-quiet":
            continue
        name, eq, value = a.partition("=")
        if name in old:
            sys.stderr.write(f"note: {name} is deprecated; use -o/--out (same meaning)\n")
            a = f"--out{eq}{value}"
        out.append(a)
    return out


class CharzGroup(TyperGroup):
    """A group whose help ends with the exit codes; the root also orders and sections its commands."""

    def format_epilog(self, ctx, formatter) -> None:
        super().format_epilog(ctx, formatter)
        _format_exit_codes(ctx, formatter)


class CharzRoot(CharzGroup):
    def list_commands(self, ctx) -> list[str]:
        names = list(self.commands)
        rank = {n: i for i, n in enumerate(MAIN_ORDER)}
        main = sorted((n for n in names if n not in DEV_TOOLS), key=lambda n: rank.get(n, len(rank)))
        return main + [n for n in DEV_TOOLS if n in names]

    def format_commands(self, ctx, formatter) -> None:
        rows: dict[bool, list[tuple[str, str]]] = {False: [], True: []}
        visible = [(n, self.get_command(ctx, n)) for n in self.list_commands(ctx)]
        visible = [(n, c) for n, c in visible if c is not None and not c.hidden]
        if not visible:
            return
        limit = formatter.width - 6 - max(len(n) for n, _ in visible)
        for name, cmd in visible:
            rows[name in DEV_TOOLS].append((name, cmd.get_short_help_str(limit)))
        for dev, title in ((False, "Commands"), (True, "Developer tools (no drive, no scope)")):
            if rows[dev]:
                with formatter.section(title):
                    formatter.write_dl(rows[dev])


def apply(typer_app) -> None:
    """Give every registered command and group charz's classes (called once, after registration)."""
    def unset(cls) -> bool:  # Typer's own default (no `cls=` given)
        return cls is None or isinstance(cls, DefaultPlaceholder) or cls in (TyperCommand, TyperGroup)

    for info in typer_app.registered_commands:
        if unset(info.cls):
            info.cls = CharzCommand
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if unset(group.cls) and unset(sub.info.cls):
            group.cls = CharzGroup
        apply(sub)


def preset_names() -> list[str]:
    """The simulated drives (profiles/*.toml presets) without importing the simulator (2 s)."""
    d = Path(__file__).resolve().parents[1] / "_data" / "profiles"
    return sorted(p.stem for p in d.glob("*.toml"))


# Choices shown as choices (`--fs <ext4|xfs|...>`), checked by the parser (exit 2, the list
# in the message).  Written here, not imported from the modules that own them, so `charz
# --help` and shell completion stay fast; tests/unit/test_cli_choices.py checks each against
# its owner.
Preset = Literal[tuple(preset_names())]  # type: ignore[valid-type]
MockScopePreset = Literal[tuple([*preset_names(), "pulse"])]  # type: ignore[valid-type]
def one_of(choices) -> str:
    """``"a, b or c"`` for a Literal's choices: in the help text when they are too many to fit the
    option's column (``--dialect <dialect>``; the parser still checks them)."""
    names = list(typing.get_args(choices))
    return ", ".join(names[:-1]) + " or " + names[-1]


Dialect = Literal["tek", "tek-dpo2000", "tek-dpo4000", "tek-mdo", "tek-mso5", "tek-tps2000", "tek-dpo7000",
                  "keysight", "keysight-x2000"]
ExportFormat = Literal["tek-csv", "isf", "tek-wfm", "keysight-bin"]
EraseMethod = Literal["discard", "secure-erase", "enhanced-secure-erase", "format"]
TuneTarget = Literal["ext4", "xfs", "zfs", "btrfs", "mdadm", "lvm", "partition", "all"]
Probe = Literal["current", "voltage"]
WaCounters = Literal["micron", "intel", "nvme"]
MockFtl = Literal["greedy", "cost-benefit", "wolf", "fdp", "nvm", "cdm"]

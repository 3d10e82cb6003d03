"""The command line: parse → build → run → format → print.

Each sub-command lives in its own module (``_simulate.py``, ``_analyze.py`` ...)
with a ``register(app)`` function, so the commands stay thin and independent.
Only charz's own errors are caught here; they become a message, a hint and a
non-zero exit code.  Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import warnings

import typer
from typer.models import DefaultPlaceholder

from charz import __version__
from charz.cli import _common
from charz.cli._common import announce_compiles, report_error
from charz.cli._conventions import CharzRoot, apply as _apply_conventions
from charz.cli._warm import warm_kernels
from charz.errors import CharzError

app = typer.Typer(
    name="charz",
    cls=CharzRoot,  # main commands first, developer tools apart, exit codes in --help
    help="Read an SSD's hidden internals (dies, I/O unit, allocation scheme) from its supply current.",
    no_args_is_help=True,
    # --install-completion / --show-completion (bash, zsh, fish, PowerShell), Click's own mechanism.
    add_completion=True,
    pretty_exceptions_enable=False,
    # Click's plain help wraps every column to the terminal (≤ 80); Rich's boxed tables cut
    # long option texts ("TCPIP::192.168.1…") in narrow terminals.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Modules that register commands; a module missing here is a command missing from the CLI.
_COMMAND_MODULES = (
    "charz.cli._simulate",
    "charz.cli._analyze",
    "charz.cli._scope",
    "charz.cli._characterize",
    "charz.cli._tune",
    "charz.cli._validate",
    "charz.cli._report",
    "charz.cli._import",
    "charz.cli._show",
    "charz.cli._diff",
    "charz.cli._wa",
    "charz.cli._wa_analyze",
    "charz.cli._wa_model",
)



def _version(value: bool) -> None:
    if value:
        typer.echo(f"charz {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print charz's version and exit."),
) -> None:
    """Read an SSD's hidden internals (dies, I/O unit, allocation scheme) from its supply current."""


def _whole_short_help(typer_app: typer.Typer) -> None:
    """Command lists show each command's whole first paragraph, wrapped, never cut with "...".

    Click shortens a help text to one line of the terminal unless ``short_help`` is set.
    """
    for info in typer_app.registered_commands:
        text = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and text:
            info.short_help = text.strip().split("\n\n")[0]

    for group in typer_app.registered_groups:
        info = group.typer_instance.info
        text = next((t for t in (group.help, info.help) if t and not isinstance(t, DefaultPlaceholder)), None)
        if (group.short_help is None or isinstance(group.short_help, DefaultPlaceholder)) and text:
            group.short_help = text.strip().split("\n\n")[0]
        _whole_short_help(group.typer_instance)


def _register_all() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)
    _whole_short_help(app)
    _apply_conventions(app)


_register_all()


def main(argv: list[str] | None = None) -> None:
    # gpib-ctypes (which e.g. tm_devices installs) warns at import when the C library is
    # absent, before any scope is named; a GPIB resource still fails with its own error, and
    # `charz scope list` says what is missing.
    warnings.filterwarnings("ignore", message="GPIB library not found", category=UserWarning)

    announce_compiles()  # the first run after an install compiles for ~10 s: say so, not sit silent
    # Standalone mode lets Typer report its own usage errors (exit 2); charz's errors pass
    # through it untouched and are reported here.


    started = time.monotonic()
    _common.verbosity = 0
    _common.compiled_now = False  # per command (tests run many in one process)
    try:
        app(args=argv, standalone_mode=True)
    except CharzError as exc:
        sys.exit(report_error(exc))
    except SystemExit as done:
        if done.code in (0, None) and _common.compiled_now:
            _warm_the_rest()
        raise
    finally:
        if _common.verbosity > 0:
            sys.stderr.write(f"took {time.monotonic() - started:.1f} s\n")


def _warm_the_rest() -> None:
    """After a first run that compiled a kernel: compile charz's others now (one wait per install)."""

    if os.environ.get("CHARZ_WARM", "1") == "0":
        return
    _common.note("compiling charz's other kernels too, once, so that no later command waits ...")
    t0 = time.monotonic()

    warm_kernels()
    _common.note(f"done in {time.monotonic() - t0:.1f} s")

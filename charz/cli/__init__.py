"""The command line: parse → build → run → format → print.

Each sub-command lives in its own module (``_simulate.py``, ``_analyze.py`` ...)
with a ``register(app)`` function, so the commands stay thin and independent.
Only charz's own errors are caught here; they become a message, a hint and a
non-zero exit code.  Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import sys
import warnings

import typer
from rich.console import Console

from charz.errors import CharzError

app = typer.Typer(
    name="charz",
    help="Read an SSD's hidden internals (dies, I/O unit, allocation scheme) from its supply current.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
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
)

# soft_wrap: a long path in a message stays one piece, to copy from a terminal or a CI log.
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


@app.callback()
def _root() -> None:
    """Read an SSD's hidden internals (dies, I/O unit, allocation scheme) from its supply current."""


def _register_all() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_all()


def report_error(exc: CharzError) -> int:
    err_console.print(f"[bold red]error:[/] {exc.message}")
    if exc.hint:
        err_console.print(f"[yellow]what to do:[/] {exc.hint}")
    return exc.exit_code


def main(argv: list[str] | None = None) -> None:
    # gpib-ctypes (which e.g. tm_devices installs) warns at import when the C library is
    # absent, before any scope is named; a GPIB resource still fails with its own error, and
    # `charz scope list` says what is missing.
    warnings.filterwarnings("ignore", message="GPIB library not found", category=UserWarning)
    # Standalone mode lets Typer report its own usage errors (exit 2); charz's errors pass
    # through it untouched and are reported here.
    try:
        app(args=argv, standalone_mode=True)
    except CharzError as exc:
        sys.exit(report_error(exc))

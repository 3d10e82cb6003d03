"""Run ``charz`` in-process, as a shell would, for the CLI system tests (imported explicitly)."""

from __future__ import annotations

from charz.cli import main


def run(argv: list[str]) -> int:
    """charz's exit status for ``argv``: what the shell would see, with output on capsys."""
    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0

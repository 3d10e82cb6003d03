"""`--help` a person can read at 80 columns, `-h`, `--version`, and shell completion (issue 15 item 8).

The truths: each option's help text as declared (Click's own parameter objects), the
installed package's metadata for the version, and a real bash running the completion
script charz prints.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer

from charz.cli import app
from tests.system.charz_cli import run

pytestmark = pytest.mark.system

CHARZ = str(Path(sys.executable).with_name("charz"))


def _commands() -> list[tuple[list[str], click.Command]]:
    """Every command path with its Click object, groups included (``scope list`` …)."""
    root = typer.main.get_command(app)
    found: list[tuple[list[str], click.Command]] = [([], root)]

    def walk(group: click.Group, path: list[str]) -> None:
        for name, cmd in group.commands.items():
            found.append((path + [name], cmd))
            if isinstance(cmd, click.Group):
                walk(cmd, path + [name])

    walk(root, [])
    return found


def _words(text: str) -> str:
    """Whitespace-insensitive text; Click may break a line after a hyphen ("read- only")."""
    return re.sub(r"-\s+", "-", " ".join(text.split()))


@pytest.mark.parametrize("path,cmd", _commands(), ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_help_fits_80_columns_and_cuts_nothing(path, cmd, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert run(path + ["--help"]) == 0
    out = capsys.readouterr().out
    long = [line for line in out.splitlines() if len(line) > 80]
    assert not long, f"lines over 80 columns: {long}"
    flat = _words(out)
    for param in cmd.params:
        help_text = getattr(param, "help", None)
        if help_text and not getattr(param, "hidden", False):  # the whole declared text, wrapped, not cut
            assert _words(help_text) in flat, f"{' '.join(path)} {param.name}: help cut"
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            doc = (sub.help or "").strip().split("\n\n")[0]
            assert _words(doc) in flat, f"command list cuts {name}'s help"


def test_dash_h_is_help(capsys):
    assert run(["analyze", "-h"]) == 0
    short = capsys.readouterr().out
    assert run(["analyze", "--help"]) == 0
    assert short == capsys.readouterr().out and "analyze [OPTIONS]" in short


def test_version_is_the_installed_package_version():
    out = subprocess.run([CHARZ, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"charz {importlib.metadata.version('charz')}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_and_options(tmp_path):
    script = subprocess.run([CHARZ, "--show-completion", "bash"], capture_output=True, text=True, check=True,
                            env={**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}).stdout
    assert "complete" in script
    (tmp_path / "charz.bash").write_text(script)
    bindir = str(Path(CHARZ).parent)

    def complete(words: list[str]) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        probe = (f'export PATH="{bindir}:$PATH"; source "{tmp_path}/charz.bash"; '
                 f'COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
                 f'fn=$(complete -p charz | sed -E "s/.*-F ([^ ]+).*/\\1/"); $fn charz; '
                 'printf "%s\\n" "${COMPREPLY[@]}"')
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return [re.split(r"[:\s]", w)[0] for w in done.stdout.split()]

    assert "characterize" in complete(["charz", "char"])
    assert "--preset" in complete(["charz", "characterize", "--pre"])


def test_the_cli_starts_without_the_heavy_libraries():
    # Every command (even --help, --version, and each completion request from the shell)
    # imports charz.cli first: the analysis stack (numpy, scipy, jsonschema, matplotlib)
    # loads only when a command needs it.  An import at the top of a command module once
    # put 5 s under every keystroke of completion.
    probe = ("import sys, charz.cli; print(' '.join(m for m in ('numpy', 'scipy', 'jsonschema', 'matplotlib', "
             "'charz.profile', 'charz.analysis') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []

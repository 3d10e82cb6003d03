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

import pytest
import typer

from charz.cli import app
from tests.system.charz_cli import run

pytestmark = pytest.mark.system

CHARZ = str(Path(sys.executable).with_name("charz"))


def _commands() -> list[tuple[list[str], object]]:
    """Every command path with its Click object, groups included (``scope list`` …)."""
    root = typer.main.get_command(app)
    found: list[tuple[list[str], object]] = [([], root)]

    def walk(group, path: list[str]) -> None:
        for name, cmd in group.commands.items():
            found.append((path + [name], cmd))
            if _is_group(cmd):
                walk(cmd, path + [name])

    walk(root, [])
    return found


def _is_group(cmd) -> bool:
    # Typer ships its own copy of Click: its groups are not click.Group
    return isinstance(getattr(cmd, "commands", None), dict)


def _words(text: str) -> str:
    """Whitespace-insensitive text; Click may break a line after a hyphen ("read- only")."""
    return re.sub(r"-\s+", "-", " ".join(text.split()))


def test_the_walk_reaches_the_subcommands():
    paths = {" ".join(p) for p, _ in _commands()}
    assert {"scope list", "scope check", "wa run", "wa show", "wa model"} <= paths


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
    if _is_group(cmd):
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


# --- one convention across commands (issue 25 item 4) ---------------------------------------
# Each command is classified here: a new command fails test_every_command_is_classified until
# someone decides whether it prints results (--json) and whether it writes something (-o/--out).
PRINTS_RESULTS = {"analyze", "characterize", "resume", "tune", "validate", "show", "diff", "scope list",
                  "scope check", "wa run", "wa resume", "wa show", "wa model", "wa analyze"}
# what they print is where they wrote or what they did, or they serve until stopped
NO_RESULTS = {"simulate", "mock-scope", "report", "import", "export", "wa profile", "wa report", "restore"}
WRITES = {"simulate", "analyze", "characterize", "report", "import", "export", "show", "wa run", "wa profile",
          "wa report", "wa analyze"}

_LEAVES = [(p, c) for p, c in _commands() if p and not _is_group(c)]
_IDS = [" ".join(p) for p, _ in _LEAVES]


def _help(path: list[str], capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    assert run(path + ["--help"]) == 0
    return capsys.readouterr().out


def _options(text: str) -> set[str]:
    """Option names as --help lists them (the Options section's left column)."""
    section = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^\s+(-{1,2}[\w-]+)(?:, (-{1,2}[\w-]+))?", section, re.M) and
               [n for pair in re.findall(r"^\s+(-{1,2}[\w-]+)(?:, (-{1,2}[\w-]+))?", section, re.M) for n in pair if n])


def test_every_command_is_classified():
    for name in _IDS:
        assert name in PRINTS_RESULTS | NO_RESULTS, f"charz {name}: does it print results (--json) or not?"


@pytest.mark.parametrize("path,cmd", _LEAVES, ids=_IDS)
def test_each_command_follows_the_conventions(path, cmd, capsys, monkeypatch):
    name = " ".join(path)
    text = _help(path, capsys, monkeypatch)
    opts = _options(text)
    assert {"-q", "--quiet", "-v", "--verbose", "-h", "--help"} <= opts, f"charz {name}: {sorted(opts)}"
    assert ("--json" in opts) == (name in PRINTS_RESULTS), f"charz {name}: --json"
    assert ({"-o", "--out"} <= opts) == (name in WRITES), f"charz {name}: -o/--out"
    assert not opts & {"--output", "--to", "--into", "--no-quiet"}, f"charz {name}: old spellings shown"
    # the exit codes, from the one table
    assert "\nExit codes:\n" in text
    codes = text.split("\nExit codes:\n", 1)[1]
    from charz.errors import EXIT_CODES

    for code, _ in EXIT_CODES:
        assert re.search(rf"^\s+{code}\s+\S", codes, re.M), f"charz {name}: exit {code} not listed"
    assert "``" not in text and "`" not in text, f"charz {name}: markup in help"


def test_choices_are_shown_as_choices(capsys, monkeypatch):
    assert "--fs <ext4|xfs|zfs|btrfs|mdadm|lvm|partition|all>" in _help(["tune"], capsys, monkeypatch)
    # too many to fit the option's column: listed in its help, still checked by the parser
    assert "--dialect <dialect>" in _help(["mock-scope"], capsys, monkeypatch)
    assert "tek-dpo2000, tek-dpo4000" in " ".join(_help(["mock-scope"], capsys, monkeypatch).split())
    assert run(["mock-scope", "--dialect", "rigol"]) == 2
    assert "--preset <840|mxp|qpro|x25m>" in _help(["characterize"], capsys, monkeypatch)
    assert "<tek-csv|isf|tek-wfm|keysight-bin>" in _help(["export"], capsys, monkeypatch)


def test_the_main_commands_come_first(capsys, monkeypatch):
    text = _help([], capsys, monkeypatch)
    listed = re.findall(r"^  ([a-z][\w-]*)  ", text, re.M)
    assert listed[0] == "characterize"
    assert listed[-2:] == ["simulate", "mock-scope"]
    assert text.index("Developer tools") > text.index("  scope ")


def test_an_old_output_spelling_still_works_and_says_it_is_deprecated(tmp_path, capsys):
    capsys.readouterr()
    # no session there: the command runs (exit 3, the archive error), it does not refuse the option (exit 2)
    assert run(["show", str(tmp_path / "none"), "--output", str(tmp_path / "x.png")]) == 3
    assert "--output is deprecated; use -o/--out" in capsys.readouterr().err
    assert run(["show", str(tmp_path / "none"), "--output=" + str(tmp_path / "x.png")]) == 3
    assert run(["show", str(tmp_path / "none"), "--no-quiet"]) == 3  # the old default, accepted and dropped

"""Issue 15 (6): the first run after an install compiles numba's kernel for seconds; it says so.

A child process with an empty ``NUMBA_CACHE_DIR`` (a fresh install) compiles a small
``cache=True`` function after ``announce_compiles()``: the notice is on stderr, with the time
it took.  The second child finds the cache: nothing compiles, nothing is said.  The
numbers (charz's own kernel, the default session) are in ``benchmarks/first_run.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.system

CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from charz.cli._common import announce_compiles
announce_compiles()          # before numba is imported, as charz's main() does
import kernel_mod            # imports numba: the listener is installed then
print(kernel_mod.twice(21))
"""


def test_a_compile_is_announced_and_a_cached_run_is_quiet(tmp_path):
    (tmp_path / "kernel_mod.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef twice(x):\n"
                                            "    return 2 * x\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-c", CHILD, str(tmp_path)]
    first = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "42"
    assert "compiling charz's analysis kernel" in first.stderr
    assert "compiled in " in first.stderr and first.stderr.count("compiling") == 1
    assert all(len(line) <= 80 for line in first.stderr.splitlines())
    second = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert second.returncode == 0 and second.stdout.strip() == "42"
    assert "compiling" not in second.stderr  # loaded from the cache


def test_commands_that_never_analyse_do_not_import_numba():
    # The listener waits for numba instead of importing it (a second per command).
    code = ("import sys; from charz.cli import main\n"
            "try:\n    main(['tune', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('numba' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "False", proc.stdout + proc.stderr


def test_a_run_that_compiled_compiles_the_other_kernels_too(monkeypatch, capsys):
    # The other path's kernels are compiled right after a run that compiled one (a fresh
    # install), and never after a run that found its kernel cached, or that failed.
    import charz.cli._wa_model as wa_model
    from charz.cli import _common
    from tests.system.charz_cli import run

    calls = []
    import charz.cli as cli

    # where the command looks it up (charz.cli imports it at its top)
    monkeypatch.setattr(cli, "warm_kernels", lambda: calls.append(1))
    assert run(["wa", "model", "--op", "7%"]) == 0 and calls == []  # nothing compiled (cached)
    real = wa_model.format_model

    def compiling(*args, **kwargs):  # as numba's listener marks a compile during the command
        _common.compiled_now = True
        return real(*args, **kwargs)

    monkeypatch.setattr(wa_model, "format_model", compiling)
    assert run(["wa", "model", "--op", "7%"]) == 0 and calls == [1]
    assert "compiling charz's other kernels too" in capsys.readouterr().err
    assert run(["wa", "model", "--op", "7"]) == 2 and calls == [1]  # a usage error: nothing more
    monkeypatch.setenv("CHARZ_WARM", "0")
    assert run(["wa", "model", "--op", "7%"]) == 0 and calls == [1]

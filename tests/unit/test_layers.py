"""The import contract in pyproject.toml: CLI → session → drivers/sim → archive/profile → analysis,
and runtime code never importing the simulator or test helpers."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit


def test_import_contracts_are_kept():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([exe], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]

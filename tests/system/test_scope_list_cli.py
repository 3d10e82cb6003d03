"""``charz scope list`` against the real pyvisa-py: its resources, and each missing backend named with its fix."""

from __future__ import annotations

import importlib.util

import pytest
from charz_cli import run

pytestmark = pytest.mark.system


def test_scope_list_names_what_pyvisa_py_cannot_search(capsys):
    assert run(["scope", "list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VISA resources seen by pyvisa-py")
    assert max(len(line) for line in out.splitlines()) <= 80
    # Ground truth from the environment, not from charz: is the module pyvisa-py needs there?
    for module, package, kind in (("usb", "pyusb", "USB INSTR"), ("serial", "pyserial", "ASRL INSTR")):
        if importlib.util.find_spec(module) is None:
            assert any(kind in line and f"pip install {package}" in line for line in out.splitlines()), out
        else:
            assert f"pip install {package}" not in out


def test_format_list_shows_resources():
    from charz.cli._scope_list import format_list

    text = format_list(("TCPIP0::10.0.0.5::inst0::INSTR",), {"Version": "0.8", "TCPIP INSTR": "Available "})
    assert "  TCPIP0::10.0.0.5::inst0::INSTR" in text and "none found" not in text and "not searched" not in text

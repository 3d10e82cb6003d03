"""The examples in the scope drivers' and the mock scope's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import charz.scope
import charz.sim

pytestmark = pytest.mark.unit

MODULES = sorted(
    ["charz.scope", "charz.sim.scope_server", "charz.cli._scope"]
    + [f"charz.scope.{m.name}" for m in pkgutil.iter_modules(charz.scope.__path__)]
    + [f"charz.sim.{m.name}" for m in pkgutil.iter_modules(charz.sim.__path__) if m.name.startswith("_scpi")]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0

"""The examples in tune's docstrings (and the CLI module's) run and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import charz.tune

pytestmark = pytest.mark.unit

MODULES = sorted(["charz.tune", "charz.cli._tune"]
                 + [f"charz.tune.{m.name}" for m in pkgutil.iter_modules(charz.tune.__path__)])


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0

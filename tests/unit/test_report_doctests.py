"""The examples in the report's docstrings (and its CLI module's) run and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import charz.report

pytestmark = pytest.mark.unit

MODULES = sorted(["charz.report", "charz.cli._report"]
                 + [f"charz.report.{m.name}" for m in pkgutil.iter_modules(charz.report.__path__)])


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"

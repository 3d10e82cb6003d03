"""The examples in the device layer's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import charz.device

pytestmark = pytest.mark.unit

MODULES = sorted(["charz.device"] + [f"charz.device.{m.name}" for m in pkgutil.iter_modules(charz.device.__path__)])


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0

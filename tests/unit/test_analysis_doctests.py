"""The examples in the analysis, simulator, session and profile docstrings run as written."""

import doctest
import importlib

import pytest

pytestmark = pytest.mark.unit

MODULES = [
    "charz.analysis._allocation", "charz.analysis._equations", "charz.analysis._latency", "charz.analysis._quantity",
    "charz.analysis._smooth", "charz.analysis._steps", "charz.analysis._units", "charz.analysis._window",
    "charz.sim._digitizer", "charz.sim._model", "charz.sim._render", "charz.sim._ssd", "charz.sim._walk",
    "charz.session._plan", "charz.session._autoset",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"

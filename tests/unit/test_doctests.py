"""Every docstring example in charz runs as written.

One walk over the whole package, so a new module's examples are run without anyone
remembering to list it (analysis/_reads, _rmw, _setup, _energy and the archive's were
once missed that way).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import charz

pytestmark = pytest.mark.unit

MODULES = sorted(m.name for m in pkgutil.walk_packages(charz.__path__, "charz.") if m.name != "charz.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_the_walk_finds_the_modules_with_examples():
    # A walk that found nothing would pass every test above.
    counts = {name: len(doctest.DocTestFinder().find(importlib.import_module(name))) for name in MODULES}
    with_examples = {name for name, n in counts.items() if n}
    for name in ("charz.archive._format", "charz.analysis._reads", "charz.analysis._window", "charz.tune._limits",
                 "charz.device._confirm", "charz.scope._wire", "charz.validate._profile"):
        assert name in with_examples, name

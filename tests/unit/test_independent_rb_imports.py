"""The independent R/B generator shares nothing with charz: it imports no charz module and
names none of charz's files (its windows, constants and simulator stay unread)."""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1] / "independent_rb"


def test_the_generator_imports_nothing_from_charz():
    files = sorted(ROOT.glob("*.py"))
    assert len(files) >= 3
    for f in files:
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "charz" or n.startswith("charz.") for n in names), f"{f.name} imports {names}"
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        strings = [n.value for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]
        assert not any("charz" in x for x in strings), f"{f.name} names charz in its code"
        assert "__import__" not in f.read_text() and "importlib" not in f.read_text()

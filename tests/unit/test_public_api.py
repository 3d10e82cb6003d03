"""Each package is used through its public ``__init__``; imports sit at module top; no cycles;
no function over 150 lines (issue 26 item 4 and its acceptance).

Read from the source with :mod:`ast` (nothing is imported), so a failure names the file and line.

* **Private modules stay inside their package.** ``from charz.X._y import …``,
  ``import charz.X._y`` and ``from charz.X import _y`` fail when the importing module is outside
  the top-level package ``charz.X`` (``charz.sim._mock_bench`` may use ``charz.sim.ftl._wolf``;
  ``charz.cli`` may not use ``charz.analysis._wa``).  Imports under ``if TYPE_CHECKING:`` count
  too: an annotation names a public type like any other use.  ``charz._text`` and
  ``charz.errors`` belong to the root package and are shared by all.
* **Imports at module top.**  An import inside a function is allowed only when it keeps
  something slow or optional out of the importing module's start-up, and says so in a comment
  on its line (or the line above).  "Slow" is not taken on trust: the imported module must
  load (through module-top imports, read from the source) one of :data:`HEAVY` that the
  importing module does not load already.  So ``charz --help`` need not load numpy, the
  report need not load matplotlib until a figure is drawn, and nothing loads the simulator
  or tm_data_types until it is used.
* **No import cycles.**  Between modules, through module-top imports (what runs at import
  time) and through every import (a lazy import must not be what keeps a cycle from
  failing), and between charz's sub-packages.
* **No function over 150 lines** (decorators and docstring included).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2] / "charz"

# Slow or optional at import (measured with `python -X importtime`, 2026-11): the scientific stack
# and the compiler (numpy ~0.1 s, scipy.signal ~0.5 s, numba ~0.5 s), VISA, the schema
# validator, the plotting library, the Tek file library, and charz's own simulator, which
# runtime code loads only for --mock.
HEAVY = frozenset({"numpy", "scipy", "numba", "pyvisa", "pyvisa_py", "jsonschema",
                   "matplotlib", "tm_data_types", "charz.sim"})

MAX_LINES = 150


class Module:
    def __init__(self, path: Path):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        self.is_package = parts[-1] == "__init__"
        if self.is_package:
            parts = parts[:-1]
        self.name = ".".join(parts)
        self.path = path
        self.lines = path.read_text().splitlines()
        self.tree = ast.parse("\n".join(self.lines), filename=str(path))
        self.type_checking: set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for sub in ast.walk(node):
                    if hasattr(sub, "lineno"):
                        self.type_checking.add(sub.lineno)

    @property
    def top(self) -> str:
        """The top-level sub-package (``charz.cli``), or ``charz`` for charz/errors.py etc."""
        parts = self.name.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 or self.is_package and len(parts) == 2 else "charz"

    def resolve(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = self.name.split(".") if self.is_package else self.name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def imports(self):
        """(node, [dotted targets], at_module_top) for each import statement.

        ``from a.b import c`` targets ``a.b`` and, when ``a.b.c`` is a module, ``a.b.c``."""
        top_level = set()
        for node in self.tree.body:
            stack = [node]
            while stack:  # module body, including if/try blocks at top
                n = stack.pop()
                if isinstance(n, (ast.Import, ast.ImportFrom)):
                    top_level.add(id(n))
                elif isinstance(n, (ast.If, ast.Try, ast.With)):
                    for field in ("body", "orelse", "finalbody", "handlers"):
                        stack.extend(getattr(n, field, []))
                elif isinstance(n, ast.ExceptHandler):
                    stack.extend(n.body)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                yield node, [a.name for a in node.names], id(node) in top_level
            elif isinstance(node, ast.ImportFrom):
                base = self.resolve(node)
                targets = [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
                yield node, targets, id(node) in top_level

    def commented(self, node: ast.stmt) -> bool:
        span = range(node.lineno - 1, node.end_lineno)
        if any("#" in self.lines[i] for i in span):
            return True
        above = self.lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        return above.startswith("#")


MODULES: dict[str, Module] = {}
for _path in sorted(ROOT.rglob("*.py")):
    _m = Module(_path)
    MODULES[_m.name] = _m


def _parents(name: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a/__init__``, ``a.b/__init__`` and ``a.b.c``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def statement_edges(mod: Module, node: ast.stmt, targets: list[str]) -> set[str]:
    """What one import statement in ``mod`` makes Python run: charz modules, third-party tops."""
    out = set()
    # Python runs an importer's own packages' __init__ before the importer: an edge to one is
    # a dependency only when names are taken from it (`from pkg import f`, not `from pkg import _mod`)
    own = set(_parents(mod.name)[:-1])
    for i, target in enumerate(targets):
        if target == "charz" or target.startswith("charz."):
            takes_names = i == 0 and any(f"{target}.{a.name}" not in MODULES for a in node.names)
            direct = {target} if takes_names or i > 0 or isinstance(node, ast.Import) else set()
            out.update(p for p in _parents(target) if p in MODULES and (p not in own or p in direct))
        else:
            out.add(target.split(".")[0])
    out.discard(mod.name)
    return out


@cache
def _edges(name: str, lazy: bool = False) -> frozenset[str]:
    """Modules (charz's, or a third party's top name) that ``name`` imports at module top
    (``lazy``: anywhere).  TYPE_CHECKING imports never run."""
    mod = MODULES[name]
    out = set()
    for node, targets, at_top in mod.imports():
        if node.lineno in mod.type_checking or not (at_top or lazy):
            continue
        out |= statement_edges(mod, node, targets)
    if "import_module(" in "\n".join(mod.lines):
        # modules named as text and imported with importlib (the CLI's command modules)
        out |= {n.value for n in ast.walk(mod.tree) if isinstance(n, ast.Constant) and n.value in MODULES}
    out.discard(name)
    return frozenset(out)


@cache
def _loads(name: str) -> frozenset[str]:
    """Everything importing ``name`` loads at start-up (its packages' ``__init__`` included)."""
    seen: set[str] = set()
    stack = [p for p in _parents(name) if p in MODULES] if name in MODULES else [name]
    while stack:
        cur = stack.pop()
        if cur in seen:
            continue
        seen.add(cur)
        if cur in MODULES:
            stack.extend(_edges(cur))
    return frozenset(seen)


def _heavy(loaded: frozenset[str]) -> set[str]:
    return {h for h in HEAVY if h in loaded or any(m.startswith(h + ".") for m in loaded)}


def _private_target(target: str) -> str | None:
    """The private module in ``target`` (``charz.analysis._wa`` in ``charz.analysis._wa.x``)."""
    parts = target.split(".")
    if parts[0] != "charz":
        return None
    for i, part in enumerate(parts[2:], start=2):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[: i + 1])
    return None


def private_cross_package_imports() -> list[str]:
    found = []
    for mod in MODULES.values():
        for node, targets, _ in mod.imports():
            for target in targets:
                private = _private_target(target)
                if private and ".".join(private.split(".")[:2]) != mod.top:
                    found.append(f"{mod.path.relative_to(ROOT.parent)}:{node.lineno}: {ast.unparse(node)}")
                    break
    return found


def function_level_imports() -> list[tuple[Module, ast.stmt, list[str]]]:
    found = []
    for mod in MODULES.values():
        for node, targets, at_top in mod.imports():
            if not at_top and node.lineno not in mod.type_checking:
                found.append((mod, node, targets))
    return found


def unjustified_function_level_imports() -> list[str]:
    bad = []
    for mod, node, targets in function_level_imports():
        where = f"{mod.path.relative_to(ROOT.parent)}:{node.lineno}: {ast.unparse(node)}"
        spared = set().union(*(_heavy(_loads(t)) for t in targets)) - _heavy(_loads(mod.name))
        if not spared:
            bad.append(f"{where}  (loads nothing heavy that {mod.name} does not: move it to the top)")
        elif not mod.commented(node):
            bad.append(f"{where}  (lazy for {', '.join(sorted(spared))}: say so in a comment)")
    return bad


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def module_cycles() -> list[list[str]]:
    graph = {}
    for name, mod in MODULES.items():
        # a package's __init__ is run before its modules, so "module imports its own package"
        # is no edge back into a cycle unless __init__ also imports that module
        graph[name] = {t for t in _edges(name) if t in MODULES}
    return _cycles(graph)


def lazy_module_cycles() -> list[list[str]]:
    """Modules that import each other at all, lazily or not (a lazy import that only dodges
    a cycle hides a tangle: cli/_wa.py and cli/_wa_model.py did that)."""
    graph = {name: {t for t in _edges(name, lazy=True) if t in MODULES} for name in MODULES}
    return _cycles(graph)


def package_cycles() -> list[list[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, mod in MODULES.items():
        for target in _edges(name, lazy=True):
            # charz/errors.py and charz/_text.py are leaves every package may use; __main__ is
            # the entry point
            if target in MODULES and MODULES[target].top not in (mod.top, "charz") and mod.top != "charz":
                graph[mod.top].add(MODULES[target].top)
    return _cycles(dict(graph))


def long_functions() -> list[str]:
    found = []
    for name, mod in MODULES.items():
        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qual = f"{prefix}.{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        length = child.end_lineno - first + 1
                        if length > MAX_LINES:
                            found.append(f"{qual}: {length} lines")
                    visit(child, qual)
        visit(mod.tree, name)
    return found


def test_the_reader_sees_what_python_imports():
    # the walk must find the well-known facts, or every check below passes vacuously
    assert "charz.cli" in MODULES and "charz.analysis" in MODULES
    assert {"numpy", "charz.analysis"} <= _loads("charz.profile")
    assert "charz.cli._conventions" in _edges("charz.cli")
    assert _private_target("charz.analysis._wa.x") == "charz.analysis._wa"
    assert _private_target("charz._text") is None
    assert len(function_level_imports()) > 0  # some lazy imports are rightly kept
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_no_module_uses_another_packages_private_modules():
    found = private_cross_package_imports()
    assert not found, f"{len(found)} imports of another package's private module " \
        "(export the name from that package's __init__):\n" + "\n".join(found)


def test_imports_inside_functions_only_for_slow_or_optional_modules_and_say_so():
    found = unjustified_function_level_imports()
    assert not found, f"{len(found)} imports inside functions:\n" + "\n".join(found)


def test_charz_help_loads_nothing_heavy():
    # what `charz --help` loads: the CLI package and its command modules
    loaded = _loads("charz.cli")
    for mod in MODULES:
        if mod.startswith("charz.cli."):
            loaded |= _loads(mod)
    assert not _heavy(loaded), _heavy(loaded)


def test_no_import_cycles_between_modules():
    found = module_cycles()
    assert not found, "modules that import each other at module top:\n" + "\n".join(map(str, found))


def test_no_module_imports_another_that_imports_it_lazy_imports_included():
    found = lazy_module_cycles()
    assert not found, "modules that import each other:\n" + "\n".join(map(str, found))


def test_no_import_cycles_between_subpackages():
    found = package_cycles()
    assert not found, "sub-packages that import each other (lazy imports included):\n" + \
        "\n".join(map(str, found))


def test_no_function_over_150_lines():
    found = long_functions()
    assert not found, "\n".join(found)


def _defined_names() -> set[str]:
    names = set()
    for mod in MODULES.values():
        names.add(mod.name.rsplit(".", 1)[-1])
        for node in ast.walk(mod.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def test_architecture_doc_names_what_exists():
    # docs/architecture.md is the names a newcomer greps for: each must be found in charz
    doc = ROOT.parent / "docs" / "architecture.md"
    names = _defined_names()
    words = re.findall(r"`([^`]+)`", doc.read_text())
    assert len(words) > 40
    missing = []
    for word in words:
        if "/" in word:
            if not (ROOT.parent / word).exists():
                missing.append(word)
        elif re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", word) and not word.endswith((".toml", ".py", ".md")):
            if word not in MODULES and word.rsplit(".", 1)[-1] not in names and word not in ("__all__", "_private"):
                missing.append(word)
    assert not missing, f"docs/architecture.md names what charz does not have: {missing}"

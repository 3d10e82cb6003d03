"""Rewrite charz's imports to the rules tests/unit/test_public_api.py checks (issue 26 item 4).

Re-runnable (it changes only what breaks a rule, so a second run changes nothing):

1. ``from charz.X._y import a`` in a module outside ``charz.X`` becomes ``from charz.X import a``;
   ``charz/X/__init__.py`` gains ``from charz.X._y import a`` and ``"a"`` in ``__all__``.
2. An import inside a function that spares the module nothing heavy moves to the module top,
   unless that would close an import cycle or the name is bound differently at the top.
3. An import inside a function that is kept lazy gains a comment saying what it keeps out
   (``# lazy: numpy, scipy``), when it has none.

What it cannot do it prints (name clashes, ``from charz.X import _y``, cycles) for a person.

    python tools/public_api.py [--dry-run]
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DRY = "--dry-run" in sys.argv
TODO: list[str] = []


def load_rules():
    spec = importlib.util.spec_from_file_location("_rules", REPO / "tests/unit/test_public_api.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(path: Path, lines: list[str]) -> None:
    if not DRY:
        path.write_text("\n".join(lines) + "\n")


def top_import_end(tree: ast.Module, charz_only: bool | None = None) -> int:
    """Line (1-based) of the end of the last module-top import (of charz if charz_only)."""
    last = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            is_charz = (name or "").startswith("charz")
            if charz_only is None or charz_only == is_charz or getattr(node, "level", 0):
                last = node.end_lineno
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and last == 0 \
                and charz_only is None:
            last = node.end_lineno  # after the docstring
    return last


def bound_at_top(tree: ast.Module, resolve) -> dict[str, str]:
    """name → what binds it at module top ("import:mod.name", "def", "assign")."""
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                out[a.asname or a.name] = f"import:{resolve(node)}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = f"import:{a.name if a.asname else a.name.split('.')[0]}"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = "def"
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id] = "assign"
    return out


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def trailing_comment(lines: list[str], node: ast.stmt) -> str:
    first = lines[node.lineno - 1]
    return "  " + first[first.index("#"):] if "#" in first else ""


# ---------------------------------------------------------------- 1. public imports
def publicize(rules) -> int:
    changed = 0
    exports: dict[str, dict[str, set[str]]] = {}  # package → source module → names
    for mod in rules.MODULES.values():
        lines = mod.lines[:]
        edits = []
        for node, targets, _ in mod.imports():
            private = next((rules._private_target(t) for t in targets if rules._private_target(t)), None)
            if not private or ".".join(private.split(".")[:2]) == mod.top:
                continue
            where = f"{mod.path.relative_to(REPO)}:{node.lineno}"
            package = private.rsplit(".", 1)[0]
            if isinstance(node, ast.Import) or rules._private_target(targets[0]) is None:
                TODO.append(f"{where}: {ast.unparse(node)}  (imports a private module itself: by hand)")
                continue
            source = targets[0]
            init = rules.MODULES[package]
            bound = bound_at_top(init.tree, init.resolve)
            ok = True
            for a in node.names:
                have = bound.get(a.name)
                if a.name.startswith("_"):
                    TODO.append(f"{where}: {ast.unparse(node)}  (private name {a.name}: by hand)")
                    ok = False
                elif have and have != f"import:{source}.{a.name}":
                    TODO.append(f"{where}: {ast.unparse(node)}  ({package} binds {a.name} as {have}: by hand)")
                    ok = False
            if not ok:
                continue
            for a in node.names:
                if not bound.get(a.name):
                    exports.setdefault(package, {}).setdefault(source, set()).add(a.name)
            names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
            new = f"{indent_of(lines[node.lineno - 1])}from {package} import {names}{trailing_comment(lines, node)}"
            edits.append((node.lineno, node.end_lineno, [new]))
        if edits:
            for start, end, new in sorted(edits, reverse=True):
                lines[start - 1:end] = new
            write(mod.path, lines)
            changed += len(edits)
    for package, sources in exports.items():
        add_exports(rules.MODULES[package], sources)
    return changed


def add_exports(init, sources: dict[str, set[str]]) -> None:
    lines = init.lines[:]
    names = sorted(set().union(*sources.values()))
    # __all__: new names on a line before its closing bracket
    for node in init.tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            end = node.end_lineno - 1
            added = "    " + ", ".join(f'"{n}"' for n in names) + ","
            if lines[end].strip() == "]":
                lines.insert(end, added)
            else:  # one line: open it up
                assert node.lineno == node.end_lineno, f"{init.path}: an __all__ I cannot extend"
                old = ", ".join(repr(e.value).replace("'", '"') for e in node.value.elts)
                lines[end:end + 1] = ["__all__ = [", f"    {old},", added, "]"]
            break
    else:
        TODO.append(f"{init.path.relative_to(REPO)}: no __all__ (add {names} by hand)")
    at = top_import_end(init.tree)
    new = [f"from {src} import {', '.join(sorted(ns))}" for src, ns in sorted(sources.items())]
    lines[at:at] = new
    write(init.path, lines)
    print(f"  {init.name} exports {', '.join(names)}")


def _name_key(alias: str) -> tuple:
    name = alias.split(" as ")[0]
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2  # isort/ruff order-by-type
    return (kind, name)


def merge_from_imports(rules) -> int:
    """Adjacent module-top ``from P import a`` / ``from P import b`` become one statement."""
    merged = 0
    for mod in rules.MODULES.values():
        runs, run = [], []
        for node in mod.tree.body:
            if isinstance(node, ast.ImportFrom) and not node.level and not mod.commented(node) \
                    and run and node.module == run[-1].module and node.lineno == run[-1].end_lineno + 1:
                run.append(node)
                continue
            if len(run) > 1:
                runs.append(run)
            run = [node] if isinstance(node, ast.ImportFrom) and not mod.commented(node) else []
        if len(run) > 1:
            runs.append(run)
        if not runs:
            continue
        lines = mod.lines[:]
        for run in reversed(runs):
            names = sorted({a.name + (f" as {a.asname}" if a.asname else "") for n in run for a in n.names},
                           key=_name_key)
            one = f"from {run[0].module} import {', '.join(names)}"
            new = [one] if len(one) <= 110 else \
                [f"from {run[0].module} import ("] + [f"    {n}," for n in names] + [")"]
            lines[run[0].lineno - 1:run[-1].end_lineno] = new
            merged += len(run) - 1
        write(mod.path, lines)
    return merged


def restore_exports(rules) -> int:
    """``from charz.X import a`` where ``charz.X`` no longer exports ``a`` (a merge took an
    ``__init__`` from the other side): export it again from the module that defines it."""
    wanted: dict[str, dict[str, set[str]]] = {}
    for mod in rules.MODULES.values():
        for node, targets, _ in mod.imports():
            if not isinstance(node, ast.ImportFrom):
                continue
            package = targets[0]
            init = rules.MODULES.get(package)
            if init is None or not init.is_package or not package.startswith("charz."):
                continue
            bound = bound_at_top(init.tree, init.resolve)
            for a in node.names:
                if a.name in bound or f"{package}.{a.name}" in rules.MODULES:
                    continue
                homes = [m for m in rules.MODULES.values() if m.name.startswith(package + "._")
                         and bound_at_top(m.tree, m.resolve).get(a.name) in ("def", "assign")]
                if len(homes) != 1:
                    TODO.append(f"{mod.path.relative_to(REPO)}:{node.lineno}: {package} has no {a.name} "
                                f"({len(homes)} modules define it: by hand)")
                    continue
                wanted.setdefault(package, {}).setdefault(homes[0].name, set()).add(a.name)
    for package, sources in wanted.items():
        add_exports(rules.MODULES[package], sources)
    return sum(len(n) for src in wanted.values() for n in src.values())


# ---------------------------------------------------------------- 2. hoist
def hoist(rules) -> int:
    graph = {n: {t for t in rules._edges(n) if t in rules.MODULES} for n in rules.MODULES}

    def reaches(starts: set[str], goal: str) -> bool:
        seen, stack = set(), list(starts)
        while stack:
            cur = stack.pop()
            if cur == goal:
                return True
            if cur not in seen:
                seen.add(cur)
                stack.extend(graph.get(cur, ()))
        return False

    moved = 0
    for mod in rules.MODULES.values():
        lines = mod.lines[:]
        top = bound_at_top(mod.tree, mod.resolve)
        heavy_here = rules._heavy(rules._loads(mod.name))
        removals, additions = [], []
        for node, targets, at_top in mod.imports():
            if at_top or node.lineno in mod.type_checking:
                continue
            spared = set().union(*(rules._heavy(rules._loads(t)) for t in targets)) - heavy_here
            if spared:
                continue
            where = f"{mod.path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}"
            # the targets it would add as module-top edges
            new_edges = {t for t in rules.statement_edges(mod, node, targets) if t in rules.MODULES}
            if reaches(new_edges - {mod.name}, mod.name):
                TODO.append(f"{where}  (at the top it would close a cycle: by hand)")
                continue
            clash = False
            stmt = ast.unparse(node)
            if isinstance(node, ast.ImportFrom):
                base = mod.resolve(node)
                for a in node.names:
                    have = top.get(a.asname or a.name)
                    if have and have != f"import:{base}.{a.name}":
                        clash = True
                stmt = f"from {base} import " + ", ".join(
                    a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
            else:
                for a in node.names:
                    bound = a.asname or a.name.split(".")[0]
                    have = top.get(bound)
                    if have and have != f"import:{a.name if a.asname else bound}":
                        clash = True
            if clash:
                TODO.append(f"{where}  (a name it binds means something else at the top: by hand)")
                continue
            func_body = _enclosing_body(mod.tree, node)
            if func_body is not None and len(func_body) == 1:
                TODO.append(f"{where}  (the function's only statement: by hand)")
                continue
            removals.append(node)
            graph[mod.name] |= new_edges - {mod.name}
            already = all(top.get(n) for n in _bound_names(node))
            if not already:
                additions.append(stmt)
                top.update(bound_at_top(ast.parse(stmt), mod.resolve))
        if not removals:
            continue
        for node in sorted(removals, key=lambda n: -n.lineno):
            start, end = node.lineno - 1, node.end_lineno
            # a blank line after an import that opened the block goes too
            prev = lines[start - 1].strip() if start else ""
            if end < len(lines) and not lines[end].strip() and (prev.endswith(":") or prev.endswith('"""')):
                end += 1
            del lines[start:end]
        for stmt in sorted(set(additions), key=_key, reverse=True):
            _insert_sorted(lines, mod.tree, stmt)
        write(mod.path, lines)
        moved += len(removals)
    return moved


def _category(stmt_module: str) -> int:
    top = stmt_module.split(".")[0]
    if top == "__future__":
        return 0
    if top == "charz":
        return 3
    return 1 if top in sys.stdlib_module_names else 2


def _module_of(node_or_stmt) -> str:
    node = ast.parse(node_or_stmt).body[0] if isinstance(node_or_stmt, str) else node_or_stmt
    return node.module if isinstance(node, ast.ImportFrom) else node.names[0].name


def _key(stmt) -> tuple:
    node = ast.parse(stmt).body[0] if isinstance(stmt, str) else stmt
    mod = _module_of(node)
    return (_category(mod), isinstance(node, ast.ImportFrom), mod.lower())


def _insert_sorted(lines: list[str], tree: ast.Module, stmt: str) -> None:
    """Put ``stmt`` where isort would among the module-top imports (``lines`` edited below the
    imports only, so the tree's line numbers for the import block still hold)."""
    nodes = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and not getattr(n, "level", 0)]
    key = _key(stmt)
    same = [n for n in nodes if _key(n)[0] == key[0]]
    if same:
        later = [n for n in same if _key(n) > key]
        if later:
            lines.insert(later[0].lineno - 1, stmt)
        else:
            lines.insert(same[-1].end_lineno, stmt)
        return
    before = [n for n in nodes if _key(n)[0] < key[0]]
    after = [n for n in nodes if _key(n)[0] > key[0]]
    if before:
        lines[before[-1].end_lineno:before[-1].end_lineno] = ["", stmt]
    elif after:
        lines[after[0].lineno - 1:after[0].lineno - 1] = [stmt, ""]
    else:
        at = top_import_end(tree)
        lines[at:at] = ["", stmt]


def _has_imports(tree) -> bool:
    return any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)


def _bound_names(node) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return [a.asname or a.name for a in node.names]
    return [a.asname or a.name.split(".")[0] for a in node.names]


def _enclosing_body(tree, target):
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and target in body:
                return body
    return None


# ---------------------------------------------------------------- 3. comment the lazy ones
def comment_lazy(rules) -> int:
    count = 0
    for mod in rules.MODULES.values():
        lines = mod.lines[:]
        heavy_here = rules._heavy(rules._loads(mod.name))
        edits = 0
        for node, targets, at_top in mod.imports():
            if at_top or node.lineno in mod.type_checking or mod.commented(node):
                continue
            spared = set().union(*(rules._heavy(rules._loads(t)) for t in targets)) - heavy_here
            if not spared:
                continue
            what = ", ".join(sorted("the simulator" if s == "charz.sim" else s for s in spared))
            line = lines[node.end_lineno - 1]
            lines[node.end_lineno - 1] = f"{line}  # lazy: {what}"
            edits += 1
        if edits:
            write(mod.path, lines)
            count += edits
    return count


def main() -> None:
    rules = load_rules()
    print(f"before: {len(rules.private_cross_package_imports())} private cross-package imports, "
          f"{len(rules.function_level_imports())} imports in functions")
    print(f"public imports rewritten: {publicize(rules)}")
    rules = load_rules()
    print(f"names exported again: {restore_exports(rules)}")
    rules = load_rules()
    print(f"imports moved to the top: {hoist(rules)}")
    rules = load_rules()
    print(f"adjacent imports from one package merged: {merge_from_imports(rules)}")
    rules = load_rules()
    print(f"lazy imports commented: {comment_lazy(rules)}")
    rules = load_rules()
    print(f"after: {len(rules.private_cross_package_imports())} private cross-package imports, "
          f"{len(rules.function_level_imports())} imports in functions, "
          f"{len(rules.unjustified_function_level_imports())} unjustified")
    for line in TODO:
        print("TODO", line)


if __name__ == "__main__":
    main()

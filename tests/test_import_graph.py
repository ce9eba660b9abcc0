"""The import graph of serving/, features/ and training/, read from the source with `ast`.

Every import counts, also those inside functions and under `TYPE_CHECKING`: a circle
hidden behind a function-level import is still a circle. Importing `a.b.c` runs `a/`
and `a/b/`'s `__init__` too, so it counts as importing those packages as well.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("serving", "features", "training")
# imports point one way: training -> features -> serving
LAYER = {"serving": 0, "features": 1, "training": 2}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def imports(name: str, path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, imported module, imported name or "") for every import in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                yield node.lineno, base, alias.name


def dependency_graph() -> dict[str, set[str]]:
    mods = modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for _, module, imported in imports(name, path):
            target = f"{module}.{imported}" if f"{module}.{imported}" in mods else module
            if target not in mods:
                continue
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                dep = ".".join(parts[:i])
                # a module's own packages are being imported already, not by it
                if dep in mods and dep != name and not name.startswith(dep + "."):
                    graph[name].add(dep)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycles_finds_a_circle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_circles() -> None:
    assert cycles(dependency_graph()) == []


def test_imports_point_training_to_features_to_serving() -> None:
    wrong = [
        f"{name} -> {dep}"
        for name, deps in dependency_graph().items()
        for dep in deps
        if LAYER[dep.split(".")[0]] > LAYER[name.split(".")[0]]
    ]
    assert wrong == []


def test_no_private_name_is_imported_from_another_module() -> None:
    paths = [*modules().items(), *((module_name(p), p) for p in (ROOT / "tests").rglob("*.py"))]
    private = [
        f"{path.relative_to(ROOT)}:{line}: from {module} import {imported}"
        for name, path in paths
        for line, module, imported in imports(name, path)
        if imported.startswith("_") and not imported.startswith("__")
    ]
    assert private == []

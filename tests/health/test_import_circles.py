"""No import circles among livetable's own modules (issue 22).

A small AST walk rather than a library (pydeps draws graphs and needs Graphviz for its
output; import-linter checks contracts one writes by hand, so a new circle between two
modules nobody named would pass): every ``import`` and ``from ... import`` in every module
of the packages, at any depth (an import inside a function is still a dependency, only a
later one), except those under ``if TYPE_CHECKING:`` (annotations only, never run). The
circles are the strongly connected components of that graph with more than one module.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("controller", "drivers", "display", "vision", "room")


def _modules() -> dict[str, Path]:
    """Return ``{"controller.engine.hand": path, "controller.engine": .../__init__.py, ...}``."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Return the modules of ours that module ``name`` imports (any depth, not TYPE_CHECKING)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()

    def ours(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (hit := ours(alias.name)) is not None:
                    out.add(hit)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from pkg import submodule`` imports the submodule too
                if (hit := ours(f"{source}.{alias.name}")) is not None:
                    out.add(hit)
            if (hit := ours(source)) is not None:
                out.add(hit)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    # Python runs a module's parent packages before it whatever it imports; ``from . import
    # codec`` names the parent only to reach the sibling, so no edge to its own packages.
    parts = name.split(".")
    out.difference_update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
    return out


def import_graph() -> dict[str, set[str]]:
    """Return ``{module: modules of ours it imports}`` for every module of the packages."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(found)


def test_circles_finds_a_circle() -> None:
    """The walk itself: a made-up graph with one circle and one tail."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_packages_have_no_import_circles() -> None:
    """No module of ours imports, directly or through others, one that imports it back."""
    graph = import_graph()
    assert "controller.engine.hand" in graph, "the walk found the packages"
    assert circles(graph) == []

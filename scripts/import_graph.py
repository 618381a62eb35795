"""The import graph of the project's Python packages, read from the source (nothing is
imported): every `import` counts, function-local ones too, so a cycle cannot hide
inside a function. Imports under `if TYPE_CHECKING:` (never run) do not count.

    python scripts/import_graph.py          # the graph between modules, then any cycle

Exits 1 when the graph has a cycle or the runtime imports the workbench. `tests/unit/test_imports.py` asserts the same.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# each top-level package and the directory that holds it
PACKAGES: tuple[tuple[str, Path], ...] = (
    ("superbiz", ROOT / "layers" / "superbiz"),
    ("superbiz_workbench", ROOT / "workbench"),
    ("functions", ROOT),
)
RUNTIME = ("superbiz", "functions")  # what ships to Lambda
WORKBENCH = "superbiz_workbench"


def modules(packages: Iterable[tuple[str, Path]] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the packages."""
    found: dict[str, Path] = {}
    for package, root in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST) -> Iterable[ast.AST]:
    """Every node but what sits under `if TYPE_CHECKING:` (annotations, never run)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not _is_type_checking(child):
            yield from _walk(child)


def _imported_names(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in _walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*kept, base] if base else kept)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def graph(packages: Iterable[tuple[str, Path]] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a package's `__init__` included)."""
    known = modules(packages)
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets: set[str] = set()
        for imported in _imported_names(path, name):
            parts = imported.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in known:
                    targets.add(prefix)
        edges[name] = targets - {name} - _parents(name)
    return edges


def _parents(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
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

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def runtime_imports_of_the_workbench(edges: dict[str, set[str]]) -> dict[str, list[str]]:
    """Runtime modules that import a workbench module, and what they import of it."""
    found = {}
    for name, targets in edges.items():
        if name.split(".")[0] in RUNTIME:
            wrong = sorted(t for t in targets if t.split(".")[0] == WORKBENCH)
            if wrong:
                found[name] = wrong
    return found


def main() -> int:
    edges = graph()
    for name in sorted(edges):
        print(f"{name} -> {', '.join(sorted(edges[name])) or '(nothing of the project)'}")
    found = cycles(edges)
    wrong = runtime_imports_of_the_workbench(edges)
    print()
    for component in found:
        print("CYCLE: " + " <-> ".join(component))
    for name, targets in wrong.items():
        print(f"RUNTIME IMPORTS THE WORKBENCH: {name} -> {', '.join(targets)}")
    if found or wrong:
        return 1
    print(
        f"{len(edges)} modules, {sum(len(t) for t in edges.values())} imports, no cycle, "
        f"the runtime ({' and '.join(RUNTIME)}) imports nothing of {WORKBENCH}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

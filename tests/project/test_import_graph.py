"""The import graph of engine/, events/, tournaments/ and parlour/ has no cycle.

Every import counts, a function-level one too (a cycle hidden inside a function is
still a cycle: the two modules cannot be read, or tested, one without the other).
The graph is read from the source with :mod:`ast`, without importing anything.

A package's ``__init__`` that re-exports its modules is an edge from the package to
each module; an import of a name from the package (``from tournaments import
services``, ``from tournaments.play import create_game``) is an edge to the module
that defines the name when the ``__init__`` re-exports it, so a re-export makes a
cycle only when the modules themselves make one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "events", "tournaments", "parlour")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str) -> Iterator[tuple[str, str | None]]:
    """Each ``(module, imported name or None)`` that module ``name`` imports, at any depth."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    package = name if _is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield base, alias.name


def _reexports(package: str) -> dict[str, str]:
    """The names a package's ``__init__`` imports from its own modules: name -> module."""
    found: dict[str, str] = {}
    for module, name in _imports(package):
        if name is not None and module.startswith(package + ".") and module in MODULES:
            found[name] = module
    return found


def _targets(name: str) -> set[str]:
    """The project's modules that module ``name`` depends on."""
    targets: set[str] = set()
    for module, imported in _imports(name):
        if imported is not None and f"{module}.{imported}" in MODULES:
            # ``from tournaments import services``: the submodule itself.
            targets.add(f"{module}.{imported}")
            continue
        if module not in MODULES:
            continue
        if imported is not None and _is_package(module):
            defined = _reexports(module).get(imported)
            if defined is not None and defined != name:
                # A re-exported name: the edge goes to where it is defined.
                targets.add(defined)
                continue
        targets.add(module)
    targets.discard(name)
    return targets


def _graph() -> dict[str, set[str]]:
    return {name: _targets(name) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_packages_import_each_other_without_a_cycle() -> None:
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles (function-level imports count):\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles
    )


def test_a_cycle_is_found_through_a_function_level_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_engine_imports_no_django() -> None:
    engine = [name for name in MODULES if name == "engine" or name.startswith("engine.")]
    offenders = sorted(
        f"{name} imports {module}"
        for name in engine
        for module, _ in _imports(name)
        if module == "django" or module.startswith("django.")
    )
    assert offenders == []


def test_the_game_service_never_imports_the_tournament_services() -> None:
    graph = _graph()
    play = [name for name in graph if name.startswith("tournaments.play")]
    offenders = sorted(
        f"{name} imports {target}"
        for name in play
        for target in graph[name]
        if target == "tournaments.services" or target.startswith("tournaments.services.")
    )
    assert offenders == []


def test_the_walk_sees_function_level_imports() -> None:
    # tournaments/workers/tasks.py imports tournaments.demo inside a task.
    assert "tournaments.demo" in _graph()["tournaments.workers.tasks"]

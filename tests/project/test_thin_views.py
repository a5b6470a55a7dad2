"""The views are thin: no page or API view reads the event store or its model itself.

What they show of the events comes through the game service (tournaments.play) and
the read side (tournaments.services.queries); a view importing ``events`` would be a second
place that knows how games are stored.  The imports are read from the source (every
``import`` statement, at the top or inside a function), not from a running process.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VIEW_PACKAGES = [ROOT / "tournaments" / "web", ROOT / "tournaments" / "api" / "views"]


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports by dotted name (``from a import b``: ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def view_modules() -> list[Path]:
    modules = sorted(path for package in VIEW_PACKAGES for path in package.glob("*.py"))
    assert len(modules) > 2 * len(VIEW_PACKAGES), "the view packages were not found"
    return modules


def test_no_web_or_api_view_module_imports_the_event_store() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in imported_modules(path)
            if name == "events" or name.startswith("events.")
        )
        for path in view_modules()
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_no_web_page_imports_the_apis_permission_module() -> None:
    pages = [path for path in view_modules() if path.parent.name == "web"]
    offenders = [
        str(path.relative_to(ROOT))
        for path in pages
        if any(name.startswith("tournaments.api.permissions") for name in imported_modules(path))
    ]
    assert offenders == []


def test_the_walk_sees_an_import_of_the_store_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "view.py"
    module.write_text(
        "def page():\n    from events.store import read_stream\n    return read_stream\n"
    )
    assert "events.store" in imported_modules(module)

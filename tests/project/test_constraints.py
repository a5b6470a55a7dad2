"""constraints.txt pins every package make install installs (docs/operations.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _pin_lines() -> list[str]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in _pin_lines():
        name, _, version = line.partition("==")
        pins[canonicalize_name(name)] = Version(version)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["dev"]
    return [Requirement(line) for line in lines]


def test_every_dependency_is_pinned_within_the_range_pyproject_allows() -> None:
    pins = _pins()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} has no version in constraints.txt"
        assert pins[name] in requirement.specifier, (
            f"constraints.txt pins {requirement.name} {pins[name]}, outside {requirement.specifier}"
        )


def test_constraints_are_exact_pins_only() -> None:
    for line in _pin_lines():
        assert line.count("==") == 1 and " " not in line, line

"""The harness's rooms: imports run one way, in the order CONTRIBUTING.md states.

Every import statement of ``conformance/memspec`` is walked, those inside functions
included, and each is placed by the room of the module it names.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memspec"

ROOMS = ("cli", "plugin", "reports", "run", "judge", "observe", "wire", "corpus")
"""Each room imports only the rooms after it."""

BASE = frozenset({"memspec", "memspec.exceptions", "memspec.strategies"})
"""Modules any room may import; they import no room."""

SHIMS = frozenset({"memspec.__main__", "memspec.pytest_plugin", "memspec.checked_reference"})
"""Public module paths kept for users; no room imports them."""

SUITE = "suite"
"""The property suites pytest collects: they may import every room but ``cli``."""

MOST_AT_TOP = 8
MOST_IN_A_ROOM = 15


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def harness_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path, modules: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for every memspec module ``path`` imports."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "memspec":
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "memspec":
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                yield node.lineno, submodule if submodule in modules else node.module


def room_of(module: str) -> str | None:
    """The room, ``suite``, or None for the top-level modules."""
    parts = module.split(".")
    if len(parts) > 1 and (parts[1] in ROOMS or parts[1] == SUITE):
        return parts[1]
    return None


def problem(importer: str, target: str) -> str | None:
    source_room, target_room = room_of(importer), room_of(target)
    if target in BASE:
        return None
    if importer in BASE:
        return "a base module imports nothing of the harness"
    if target in SHIMS:
        return "the public shims are for users, not for the harness"
    if target_room == SUITE and source_room != SUITE:
        return "the suites are collected by pytest, never imported"
    if source_room is None:
        return None  # a shim: it may import any room
    if source_room == SUITE:
        return "the suites do not import the command line" if target_room == "cli" else None
    if target_room is None:
        return f"{target} is not in a room"
    if source_room == target_room:
        return None
    if ROOMS.index(target_room) < ROOMS.index(source_room):
        return f"{source_room} may not import {target_room}, which comes before it"
    return None


def imports_between_rooms() -> list[tuple[str, int, str]]:
    modules = harness_modules()
    return [
        (name, line, target)
        for name, path in modules.items()
        for line, target in imported(path, modules)
        if target != name
    ]


def test_every_import_runs_down_the_table() -> None:
    wrong = [
        f"{name}:{line} imports {target}: {reason}"
        for name, line, target in imports_between_rooms()
        if (reason := problem(name, target))
    ]
    assert not wrong, "\n".join(wrong)


def test_no_cycle_between_rooms() -> None:
    arrows: dict[str, set[str]] = {}
    for name, _, target in imports_between_rooms():
        source, goal = room_of(name), room_of(target)
        if source and goal and source != goal:
            arrows.setdefault(source, set()).add(goal)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in arrows.get(start, ()):
            if step == goal or (step not in seen and reaches(step, goal, seen | {step})):
                return True
        return False

    cycles = [room for room in arrows if reaches(room, room, {room})]
    assert not cycles, f"rooms in a cycle: {cycles}"


def test_the_top_level_and_each_room_stay_small() -> None:
    top = [path.name for path in PACKAGE.glob("*.py")]
    assert len(top) <= MOST_AT_TOP, top
    for room in ROOMS:
        modules = [path.name for path in (PACKAGE / room).glob("*.py")]
        assert len(modules) <= MOST_IN_A_ROOM, (room, modules)


def test_every_module_is_in_a_room_or_named_at_the_top() -> None:
    stray = [
        name for name in harness_modules() if room_of(name) is None and name not in BASE | SHIMS
    ]
    assert not stray, stray


def test_each_room_says_what_it_is_for_and_what_it_may_import() -> None:
    for room, later in zip(ROOMS, itertools.chain(ROOMS[1:], [None]), strict=True):
        doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text("utf-8")))
        assert doc, room
        if later is None:
            assert "Imports no other room." in doc, room
        else:
            assert f"``{later}``" in doc, (room, later)


@pytest.mark.parametrize(
    ("importer", "target"),
    [
        ("memspec.corpus.cases", "memspec.run.trees"),
        ("memspec.wire.adapters", "memspec.judge.messages"),
        ("memspec.reports.matrix", "memspec.plugin.hooks"),
        ("memspec.run.runner", "memspec.suite.test_cases"),
        ("memspec.exceptions", "memspec.corpus.cases"),
        ("memspec.cli.main", "memspec.pytest_plugin"),
        ("memspec.suite.test_cases", "memspec.cli.lint"),
    ],
)
def test_the_check_refuses_an_import_back_up_the_table(importer: str, target: str) -> None:
    assert problem(importer, target)


@pytest.mark.parametrize(
    ("importer", "target"),
    [
        ("memspec.cli.main", "memspec.corpus.cases"),
        ("memspec.run.runner", "memspec.judge.messages"),
        ("memspec.suite.test_cases", "memspec.corpus.cases"),
        ("memspec.pytest_plugin", "memspec.plugin.hooks"),
        ("memspec.corpus.cases", "memspec.exceptions"),
        ("memspec.wire.adapters", "memspec"),
    ],
)
def test_the_check_lets_an_import_down_the_table_through(importer: str, target: str) -> None:
    assert problem(importer, target) is None

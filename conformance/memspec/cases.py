"""The fixture corpus as typed values: a case has a tree and one or more steps."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from memspec._data import fixtures_dir, schema_path
from memspec.exceptions import FixtureError

__all__ = ["Case", "Concurrency", "Expectation", "Step", "case_from_json", "fixture_files",
           "load_case", "load_cases", "schema_errors"]


@dataclass(frozen=True)
class Expectation:
    """What one step must produce: a result or an error, and optionally the tree after it."""

    result: Any = None
    has_result: bool = False
    error_kind: str | None = None
    error_message: str | None = None
    tree: Mapping[str, Any] | None = None
    results: tuple[Any, ...] | None = None
    """Concurrent steps: every reply's result, as a multiset."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Expectation:
        error = data.get("error")
        results = data.get("results")
        return cls(
            result=data.get("result"),
            has_result="result" in data,
            error_kind=error["kind"] if error else None,
            error_message=error.get("message") if error else None,
            tree=data.get("tree"),
            results=tuple(results) if results is not None else None,
        )


@dataclass(frozen=True)
class Concurrency:
    """Send a step from ``workers`` connections at once, each ``repeat`` times."""

    workers: int
    repeat: int = 1


@dataclass(frozen=True)
class Step:
    op: str
    args: Mapping[str, Any]
    expect: Expectation
    concurrent: Concurrency | None = None
    crash_points: bool = False


@dataclass(frozen=True)
class Case:
    id: str
    description: str
    requirements: tuple[str, ...]
    steps: tuple[Step, ...]
    tree: Mapping[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    host: tuple[str, ...] = ()
    source: str = ""
    divergence: str = ""
    path: Path | None = None
    setup: tuple[Mapping[str, Any], ...] = ()
    tree_ignore: tuple[str, ...] = ()

    @property
    def profile(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def area(self) -> str:
        return self.id.split("/")[1]


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_path("case.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def schema_errors(data: Any) -> list[str]:
    """Every way ``data`` breaks the case schema, as ``location: message`` lines."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]


def case_from_json(data: Mapping[str, Any], path: Path | None = None) -> Case:
    if "steps" in data:
        raw_steps = data["steps"]
    else:
        raw_steps = [{"op": data["op"], "args": data["args"], "expect": data["expect"]}]
    steps = tuple(_step(raw) for raw in raw_steps)
    return Case(
        id=data["id"],
        description=data["description"],
        requirements=tuple(data["requirements"]),
        steps=steps,
        tree=data.get("tree", {}),
        requires=tuple(data.get("requires", ())),
        host=tuple(data.get("host", ())),
        source=data.get("source", ""),
        divergence=data.get("divergence", ""),
        path=path,
        setup=tuple(data.get("setup", ())),
        tree_ignore=tuple(data.get("tree_ignore", ())),
    )


def _step(raw: Mapping[str, Any]) -> Step:
    concurrent = raw.get("concurrent")
    return Step(
        op=raw["op"],
        args=raw["args"],
        expect=Expectation.from_json(raw["expect"]),
        concurrent=Concurrency(concurrent["workers"], concurrent.get("repeat", 1))
        if concurrent else None,
        crash_points=bool(raw.get("crash_points")),
    )


def load_case(path: Path, root: Path) -> Case:
    """Read one fixture file, check it against the schema and its id against its path."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{path}: cannot read fixture: {exc}") from exc
    problems = schema_errors(data)
    if problems:
        raise FixtureError(f"{path}: breaks the case schema: {problems[0]}")
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        raise FixtureError(f"{path}: id {data['id']!r} does not match its path {expected_id!r}")
    return case_from_json(data, path)


def fixture_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.json") if not _hidden(p.relative_to(root)))


def _hidden(relative: Path) -> bool:
    return any(part.startswith(("_", ".")) for part in relative.parts)


def load_cases(
    root: Path | None = None, profiles: Iterable[str] | None = None
) -> list[Case]:
    """All cases below ``root`` (the bundled fixtures by default), sorted by id."""
    base = root or fixtures_dir()
    wanted = set(profiles) if profiles else None
    files = fixture_files(base)
    if not files:
        raise FixtureError(f"no fixture files found below {base}")
    cases = []
    for path in files:
        if wanted is not None and path.relative_to(base).parts[0] not in wanted:
            continue
        cases.append(load_case(path, base))
    return sorted(cases, key=lambda c: c.id)

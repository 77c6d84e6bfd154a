"""``memspec lint``'s checks of the op schemas, and of every fixture against them.

A step that expects a result sends args that fit the op's args schema, and its expected
result fits the result schema. A step that expects another error (``not-found``,
``invalid-input``, ...) sends well-formed args too. A step that expects ``invalid-args``
is *structural* when its args break the schema (a missing or unknown member, a wrong
type, a relative path where the schema asks for an absolute one), and is refused *by
rule* otherwise: the schema cannot state what is wrong (an unpaired surrogate, a
relative path without ``cwd``, waiters sharing a name, a number of milliseconds that
overflows); the requirement its case lists states the rule. Both counts appear in
lint's summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from memspec.corpus.cases import Case, Step
from memspec.corpus.compare import is_text_pattern
from memspec.corpus.op_schemas import (
    WIRE_ID,
    args_errors,
    arguments,
    op_schema,
    ops_with_schemas,
    result_errors,
    schema_file,
    wire_file,
)
from memspec.corpus.tokens import for_worker, substitute

__all__ = ["SchemaCheck", "check_fixtures", "never_omitted", "schema_problems"]

# What ${ROOT} and the concurrency tokens stand for while a fixture is validated: the
# harness's own substitution, so that lint sees what an adapter is sent.
_ROOT = "/memspec-lint-root"


def _substitute(value: Any) -> Any:
    return substitute(for_worker(value, 0, 0), _ROOT)


def _patterns_as_text(value: Any) -> Any:
    """The expected value with each ``{"text_pattern": ...}`` read as the text it
    stands for: the schema then checks that the member is text."""
    if is_text_pattern(value):
        return ""
    if isinstance(value, list):
        return [_patterns_as_text(item) for item in value]
    if isinstance(value, dict):
        return {key: _patterns_as_text(item) for key, item in value.items()}
    return value


@dataclass
class SchemaCheck:
    """What checking the fixtures against the op schemas found."""

    problems: list[str] = field(default_factory=list)
    steps: int = 0
    cases: int = 0
    structural: list[str] = field(default_factory=list)
    """Cases expecting invalid-args whose args break the args schema."""
    by_rule: list[str] = field(default_factory=list)
    """Cases expecting invalid-args whose args fit the schema: a rule refuses them."""

    def summary(self) -> str:
        return (
            f"op schemas: {len(ops_with_schemas())} ops; {self.steps} steps of {self.cases} "
            f"cases validated; invalid-args cases: {len(self.structural)} break the args "
            f"schema, {len(self.by_rule)} are refused by a rule the schema cannot state"
        )


def check_fixtures(cases: Iterable[Case], fixtures_root: Path) -> SchemaCheck:
    check = SchemaCheck()
    for case in cases:
        where = case.path.relative_to(fixtures_root).as_posix() if case.path else case.id
        check.cases += 1
        structural = by_rule = False
        for index, step in enumerate(case.steps, 1):
            if op_schema(step.op) is None:
                continue  # reported once per op by schema_problems
            check.steps += 1
            at = f"{where}: step {index} ({step.op})" if len(case.steps) > 1 else where
            broken = args_errors(step.op, _substitute(dict(step.args)))
            expect = step.expect
            if expect.error_kind == "invalid-args":
                structural |= bool(broken)
                by_rule |= not broken
                continue
            if broken:
                what = f"error {expect.error_kind!r}" if expect.error_kind else "a result"
                check.problems.append(
                    f"{at}: expects {what} but its args break the schema: {broken[0]}"
                )
            results = expect.results if expect.results is not None else ()
            if expect.has_result:
                results = (expect.result,)
            for result in results:
                for error in result_errors(step.op, _patterns_as_text(_substitute(result)))[:1]:
                    check.problems.append(f"{at}: the expected result breaks the schema: {error}")
            check.problems.extend(_observation_problems(step, at))
        if structural:
            check.structural.append(case.id)
        elif by_rule:
            check.by_rule.append(case.id)
    return check


def _observation_problems(step: Step, at: str) -> Iterable[str]:
    """An observing call of a crash-points step is checked like a step of its own."""
    for observation in step.crash_points_observe:
        where = f"{at}: observing {observation.op}"
        if op_schema(observation.op) is None:
            yield f"{where}: no op schema"
            continue
        for error in args_errors(observation.op, _substitute(dict(observation.args)))[:1]:
            yield f"{where}: its args break the schema: {error}"
        for which in ("before", "after"):
            value = _patterns_as_text(_substitute(getattr(observation, which)))
            for error in result_errors(observation.op, value)[:1]:
                yield f"{where}: its {which} result breaks the schema: {error}"


def never_omitted(cases: Iterable[Case], profiles: list[str] | None = None) -> list[str]:
    """Optional arguments that every step calling their op gives: a port that fails
    without one would pass. A step expecting ``invalid-args`` does not count."""
    omitted: dict[str, set[str]] = {}
    for case in cases:
        for step in case.steps:
            if step.expect.error_kind != "invalid-args":
                given = omitted.setdefault(step.op, set())
                given.update(
                    a.name for a in arguments(step.op) if not a.required and a.name not in step.args
                )
    problems = []
    for op in ops_with_schemas():
        if profiles and op.split(".", 1)[0] not in profiles:
            continue
        for argument in arguments(op):
            if not argument.required and argument.name not in omitted.get(op, set()):
                problems.append(f"{op}: no case leaves out the optional argument {argument.name!r}")
    return problems


_DEFS = {"args", "result"}


def _members_without_description(schema: Any, where: str) -> Iterable[str]:
    if isinstance(schema, Mapping):
        for name, member in schema.get("properties", {}).items():
            if isinstance(member, Mapping) and "description" not in member:
                yield f"{where}/properties/{name}"
            yield from _members_without_description(member, f"{where}/properties/{name}")
        for key in ("items", "additionalProperties"):
            if isinstance(schema.get(key), Mapping):
                yield from _members_without_description(schema[key], f"{where}/{key}")
        for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
            for index, branch in enumerate(schema.get(key, ())):
                yield from _members_without_description(branch, f"{where}/{key}/{index}")


# A path is looked up from an argument and comes back as text, since a name need not be
# UTF-8: each part has its own form, (the right one, the wrong one).
_PATH_FORMS = {"args": ("path", "result-path"), "result": ("result-path", "path")}


def _refs(schema: Any, where: str) -> Iterable[tuple[str, str]]:
    """Each ``$ref`` inside ``schema`` with where it is, without following any."""
    if isinstance(schema, Mapping):
        if isinstance(schema.get("$ref"), str):
            yield where, schema["$ref"]
        for key, value in schema.items():
            yield from _refs(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _refs(value, f"{where}/{index}")


def _misplaced_paths(defs: Mapping[str, Any]) -> Iterable[str]:
    for part, (right, wrong) in _PATH_FORMS.items():
        for where, ref in _refs(defs[part], part):
            if ref == f"{WIRE_ID}#/$defs/{wrong}":
                yield f"{where} is a {wrong}; a path in the {part} is a {right}"


def schema_problems(ops: Iterable[str], profiles: Iterable[str] | None = None) -> list[str]:
    """The schema files keep the convention, and every op named in the spec has one.

    ``profiles`` limits both directions to those profiles' ops."""
    problems = []
    chosen = set(profiles) if profiles else None
    wanted = {op for op in ops if chosen is None or op.partition(".")[0] in chosen}
    if not wire_file().is_file():
        problems.append(f"{wire_file()}: missing")
    for op in sorted(wanted - set(ops_with_schemas())):
        problems.append(f"{op}: no op schema ({schema_file(op)})")
    specified = {op.partition(".")[0] for op in ops}
    for op in ops_with_schemas():
        profile = op.partition(".")[0]
        if profile not in specified or (chosen is not None and profile not in chosen):
            continue
        schema = op_schema(op)
        assert schema is not None
        where = f"schema {op}"
        profile, _, name = op.partition(".")
        if op not in wanted:
            problems.append(f"{where}: no spec Operations table names {op}")
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            problems.append(f"{where}: not a valid draft 2020-12 schema: {exc.message}")
            continue
        expected_id = f"{WIRE_ID.rsplit('/', 1)[0]}/{profile}/{name}.json"
        if schema.get("$id") != expected_id:
            problems.append(f"{where}: $id must be {expected_id}")
        if schema.get("title") != op:
            problems.append(f"{where}: title must be {op!r}")
        if not schema.get("description"):
            problems.append(f"{where}: needs a description")
        defs = schema.get("$defs", {})
        if set(defs) != _DEFS:
            problems.append(f"{where}: $defs must hold exactly args and result, not {sorted(defs)}")
            continue
        if defs["args"].get("type") != "object":
            problems.append(f"{where}: args must be an object schema")
        for part in sorted(_DEFS):
            for member in _members_without_description(defs[part], part):
                problems.append(f"{where}: {member} needs a description")
        problems.extend(f"{where}: {problem}" for problem in _misplaced_paths(defs))
    return problems

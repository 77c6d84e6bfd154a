"""The protocol's JSON Schemas, and checking messages against them."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
from referencing import Registry, Resource

from memspec.corpus.data import schema_path

__all__ = ["ERROR_KINDS", "message_errors", "report_line_errors"]

_PROTOCOL_FILES = ("v1.json", "start.json", "stop.json", "op.json")


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_path(name).read_text(encoding="utf-8"))
    return data


@functools.cache
def _registry() -> Registry:
    resources = []
    for name in _PROTOCOL_FILES:
        schema = _load(f"protocol/{name}")
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@functools.cache
def _validator(reference: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": reference}, registry=_registry())


def _errors(validator: jsonschema.Draft202012Validator, message: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in validator.iter_errors(message)
    ]


def message_errors(message: Any, kind: str) -> list[str]:
    """How ``message`` breaks the schema of ``kind`` ('start', 'stop' or 'op', + '.reply')."""
    command, _, part = kind.partition(".")
    base = f"https://memspec.dev/schemas/protocol/{command}.json"
    return _errors(_validator(base + ("#/$defs/reply" if part == "reply" else "")), message)


@functools.cache
def _report_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_load("report.schema.json"))


def report_line_errors(line: Any) -> list[str]:
    return _errors(_report_validator(), line)


ERROR_KINDS: frozenset[str] = frozenset(_load("protocol/op.json")["$defs"]["error_kind"]["enum"])

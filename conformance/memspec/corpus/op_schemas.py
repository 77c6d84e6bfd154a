"""Op signatures as data: one JSON Schema per op, ``schemas/ops/<profile>/<op>.json``.

Each schema holds ``$defs/args`` (the request's ``args``) and ``$defs/result`` (a
successful reply's ``result``); the shared wire types live in ``schemas/ops/wire.json``.
This module loads them, validates values against them, and renders signatures for
``memspec explain``, the spec pages' Operations tables and ``memspec new-adapter``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import referencing.exceptions
from referencing import Registry, Resource

from memspec.corpus.data import schema_path

__all__ = [
    "WIRE_ID",
    "Argument",
    "args_errors",
    "arguments",
    "described",
    "forget_op_schemas",
    "kind_of",
    "lookup",
    "op_schema",
    "ops_with_schemas",
    "result_errors",
    "schema_file",
    "schema_files",
    "signature",
    "table_cell",
    "wire_file",
]

WIRE_ID = "https://memspec.dev/schemas/ops/wire.json"
_BASE = "https://memspec.dev/schemas/ops/"


def _ops_dir() -> Path:
    """The op schemas: the package's, or the folder ``MEMSPEC_OP_SCHEMAS`` names (as
    ``MEMSPEC_FIXTURES`` and ``MEMSPEC_SPEC`` name other corpora)."""
    override = os.environ.get("MEMSPEC_OP_SCHEMAS")
    return Path(override) if override else schema_path("ops")


def schema_files() -> list[Path]:
    """Every file of the op schemas (``wire.json`` among them), in a stable order."""
    root = _ops_dir()
    return sorted(root.rglob("*.json")) if root.is_dir() else []


def wire_file() -> Path:
    own = _ops_dir() / "wire.json"
    return own if own.is_file() else schema_path("ops") / "wire.json"


def schema_file(op: str) -> Path:
    """Where the schema of ``<profile>.<op>`` lives."""
    profile, _, name = op.partition(".")
    return _ops_dir() / profile / f"{name}.json"


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@functools.cache
def _schemas() -> dict[str, dict[str, Any]]:
    """Every op schema by op name (``turnlog.write``); unreadable files are left out."""
    found: dict[str, dict[str, Any]] = {}
    root = _ops_dir()
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.json")):
            try:
                found[f"{folder.name}.{path.stem}"] = _read(path)
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                continue
    return found


def forget_op_schemas() -> None:
    """Read the schemas again on next use (after ``MEMSPEC_OP_SCHEMAS`` changed)."""
    for cached in (_schemas, _registry, _validator):
        cached.cache_clear()


def ops_with_schemas() -> list[str]:
    return sorted(_schemas())


def op_schema(op: str) -> dict[str, Any] | None:
    return _schemas().get(op)


@functools.cache
def _registry() -> Registry:
    wire = _read(wire_file())
    resources = [(WIRE_ID, Resource.from_contents(wire))]
    for schema in _schemas().values():
        if isinstance(schema.get("$id"), str):
            resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def lookup(ref: str, base: str) -> Any:
    """What ``ref`` names, read from ``base`` (the $id of the schema holding it), among
    the op schemas and wire.json; None when it names nothing."""
    try:
        return _registry().resolver(base_uri=base).lookup(ref).contents
    except referencing.exceptions.Unresolvable:
        return None


def _exact_integer(checker: Any, instance: Any) -> bool:
    # On the wire an integer has no fraction or exponent: 1.0 is not one.
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _ecma(pattern: str) -> re.Pattern[str]:
    # ECMA-262's $ (the dialect of JSON Schema) matches only at the end; Python's also
    # before a final newline, which would let "/w==\n" pass for base64.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if isinstance(instance, str) and not _ecma(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    validators={"pattern": _pattern},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _exact_integer),
)


@functools.cache
def _validator(op: str, part: str) -> Any:
    return _Validator(
        {"$ref": f"{_BASE}{op.replace('.', '/', 1)}.json#/$defs/{part}"}, registry=_registry()
    )


def _errors(op: str, part: str, value: Any) -> list[str]:
    if op not in _schemas():
        return [f"{op} has no schema ({schema_file(op).relative_to(_ops_dir().parent)})"]
    errors = sorted(_validator(op, part).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [_describe(error) for error in errors]


def _describe(error: jsonschema.ValidationError) -> str:
    where = "/".join(map(str, error.absolute_path)) or "(top)"
    message = error.message
    if error.context:
        # anyOf/oneOf: the deepest reason of each branch says more than "is not valid".
        best = jsonschema.exceptions.best_match(error.context)
        message = f"{message if len(message) < 120 else message[:117] + '...'} ({best.message})"
    return f"{where}: {message}"


def args_errors(op: str, args: Any) -> list[str]:
    """How ``args`` breaks the op's args schema; [] when it fits."""
    return _errors(op, "args", args)


def result_errors(op: str, result: Any) -> list[str]:
    """How ``result`` breaks the op's result schema; [] when it fits."""
    return _errors(op, "result", result)


# --- Rendering ------------------------------------------------------------------------

_WIRE_TYPES = ("text", "instant", "int64", "path", "result-path", "path-text")
_WIRE_NAMES = {f"{WIRE_ID}#/$defs/{name}": name for name in _WIRE_TYPES}


def kind_of(schema: Mapping[str, Any]) -> str:
    """A short name of a schema's type: ``text``, ``instant or null``, ``list of path``."""
    if "$ref" in schema and schema["$ref"] in _WIRE_NAMES:
        name = _WIRE_NAMES[schema["$ref"]]
        return "absolute path" if name == "path" and _absolute(schema) else name
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " or ".join(json.dumps(value) for value in schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema and "type" not in schema:
            branches = schema[combinator]
            if len(branches) > 2 and all(b.get("type") == "object" for b in branches):
                return f"object of {len(branches)} forms"
            kinds = [kind_of(branch) for branch in branches]
            return " or ".join(dict.fromkeys(kinds))
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("prefixItems")
        if items:
            return "[" + ", ".join(kind_of(item) for item in items) + "]"
        return "list of " + kind_of(schema.get("items", {}))
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and not schema.get("properties"):
            return "object of " + kind_of(values) + "s"
        members = schema.get("properties")
        if members:
            required = set(schema.get("required", ()))
            return "{" + ", ".join(m + ("" if m in required else "?") for m in members) + "}"
        return "object"
    if isinstance(kind, str):
        return kind
    return "any JSON value"


def _absolute(schema: Mapping[str, Any]) -> bool:
    return str(schema.get("pattern", "")).startswith("^/")


@dataclass(frozen=True)
class Argument:
    name: str
    kind: str
    required: bool
    description: str
    default: Any = None
    has_default: bool = False
    alternative: tuple[str, ...] = ()
    """The members of the ``oneOf`` branch that requires this argument, when one does."""

    def render(self) -> str:
        """``name`` (kind), ``name``? (kind = default): the form of the Operations tables."""
        mark = "?" if not self.required and not self.alternative else ""
        default = f" = `{json.dumps(self.default)}`" if self.has_default else ""
        return f"`{self.name}`{mark} ({self.kind}{default})"


def _alternatives(args: Mapping[str, Any]) -> list[tuple[str, ...]]:
    branches = args.get("oneOf") or args.get("anyOf") or []
    return [tuple(branch.get("required", ())) for branch in branches if branch.get("required")]


def arguments(op: str) -> list[Argument]:
    """The op's arguments in schema order; [] for an op without a schema."""
    schema = op_schema(op)
    if schema is None:
        return []
    args = schema["$defs"]["args"]
    required = set(args.get("required", ()))
    alternatives = _alternatives(args)
    found = []
    for name, member in args.get("properties", {}).items():
        branch = next((alt for alt in alternatives if name in alt), ())
        found.append(
            Argument(
                name=name,
                kind=kind_of(member),
                required=name in required,
                description=member.get("description", ""),
                default=member.get("default"),
                has_default="default" in member,
                alternative=branch,
            )
        )
    return found


def table_cell(op: str) -> str:
    """The args cell of the op's row in its spec page's Operations table."""
    schema = op_schema(op)
    if schema is None:
        return ""
    args = arguments(op)
    if not args:
        closed = schema["$defs"]["args"].get("additionalProperties") is False
        return "—" if closed else "— (any given are ignored)"
    alternatives = _alternatives(schema["$defs"]["args"])
    parts: list[str] = []
    if alternatives:
        parts.append(
            "either "
            + " or ".join(", ".join(f"`{name}`" for name in alt) for alt in alternatives)
            + ";"
        )
    parts.append(", ".join(argument.render() for argument in args))
    return " ".join(parts)


def described(head: str, schema: Mapping[str, Any]) -> str:
    """``head — description``, or ``head`` alone when the schema has no description."""
    description = schema.get("description", "")
    return f"{head} — {description}" if description else head


def _members(schema: Mapping[str, Any], indent: str) -> Iterator[str]:
    required = set(schema.get("required", ()))
    for name, member in schema.get("properties", {}).items():
        optional = "" if name in required else ", optional"
        yield described(f"{indent}{name}: {kind_of(member)}{optional}", member)


def signature(op: str) -> list[str]:
    """The lines ``memspec explain OP`` prints."""
    schema = op_schema(op)
    if schema is None:
        return [f"{op}: no schema ({schema_file(op)})"]
    lines = [described(op, schema), "", "args:"]
    args = arguments(op)
    alternatives = _alternatives(schema["$defs"]["args"])
    if alternatives:
        lines.append(
            "  (either " + " or ".join(" + ".join(alt) for alt in alternatives) + " is required)"
        )
    if not args:
        lines.append("  (none)")
    for argument in args:
        status = "required" if argument.required else "optional"
        if argument.alternative:
            status = "required in its alternative"
        if argument.has_default:
            status += f", default {json.dumps(argument.default)}"
        head = f"  {argument.name}: {argument.kind}, {status}"
        lines.append(f"{head} — {argument.description}" if argument.description else head)
    result = schema["$defs"]["result"]
    lines += ["", described(f"result: {kind_of(result)}", result)]
    lines += _members(result, "  ")
    for index, branch in enumerate(result.get("oneOf", result.get("anyOf", ())), 1):
        lines.append(described(f"  form {index}: {kind_of(branch)}", branch))
        lines += _members(branch, "    ")
    items = result.get("items")
    if isinstance(items, dict) and items.get("properties"):
        lines.append(described("  each item", items))
        lines += _members(items, "    ")
    lines += ["", f"schema: {schema_file(op)}"]
    return lines

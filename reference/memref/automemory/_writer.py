"""The memory file the seed writes: a frontmatter block of name, description and
metadata, then the body."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from memref._atomic import write_atomic

__all__ = ["format_memory_file", "slug_name", "write_memory_file"]

_SLUG = re.compile("[a-z0-9_-]+")
_NOT_SLUG = re.compile("[^a-z0-9]+")
_SIMPLE = re.compile("[A-Za-z][A-Za-z0-9_-]*")
_KEYWORDS = frozenset(
    word
    for base in ("true", "false", "null", "yes", "no", "on", "off", "y", "n")
    for word in (base, base.capitalize(), base.upper())
)


def slug_name(name: str) -> str:
    """A name kept when it is ``[a-z0-9_-]+``, else lower-cased with each run of other
    characters made one ``-`` and ``-`` trimmed from both ends."""
    if _SLUG.fullmatch(name):
        return name
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        if _SIMPLE.fullmatch(value) and value not in _KEYWORDS:
            return value
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        # The seed's writer keeps the sign of a negative zero.
        return "-0" if value == 0 and math.copysign(1.0, value) < 0 else str(int(value))
    return json.dumps(value, ensure_ascii=False)


def _entry(key: str, value: Any, indent: str) -> list[str]:
    if isinstance(value, list) and not value:
        # ``key:`` alone would read back as null.
        return [f"{indent}{key}: []"]
    if isinstance(value, list):
        return [f"{indent}{key}:"] + [f"{indent}  - {_scalar(item)}" for item in value]
    if isinstance(value, dict):
        lines = [f"{indent}{key}:"]
        for inner, item in value.items():
            lines += _entry(inner, item, indent + "  ")
        return lines
    return [f"{indent}{key}: {_scalar(value)}"]


def format_memory_file(
    name: str | None, description: str | None, metadata: Mapping[str, Any], body: str
) -> str:
    """The file text: ``---``, the YAML block, ``---``, a blank line, the body without its
    leading newlines."""
    entries = {key: value for key, value in metadata.items() if key != "node_type"}
    meta = {"node_type": "memory", **{k: v for k, v in entries.items() if v is not None}}
    lines = _entry("name", slug_name(name or ""), "")
    if description is not None:
        lines += _entry("description", description, "")
    lines += _entry("metadata", meta, "")
    return "---\n" + "\n".join(lines) + "\n---\n\n" + body.lstrip("\n")


def write_memory_file(
    path: str,
    name: str | None,
    description: str | None,
    metadata: Mapping[str, Any],
    body: str,
) -> None:
    """Replace ``path`` atomically with the formatted file. Raises ``OSError``."""
    text = format_memory_file(name, description, metadata, body)
    write_atomic(path, text.encode("utf-8"))

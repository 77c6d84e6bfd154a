"""The memory tool's definition: name, description and input schema (Go port)."""

from __future__ import annotations

import copy
from typing import Any

from memref.errors import OpError
from memref.memorytool._constants import TOOL_NAME

__all__ = ["DESCRIPTION", "INPUT_SCHEMA", "resolve_pointer", "tool_definition"]

DESCRIPTION = (
    "Persist durable memory. action=add appends an entry; replace swaps an existing substring; "
    "remove deletes one. target=self (MEMORY.md, default) or user (USER.md). Writes persist to "
    "disk and load at the START of your next session \u2014 they do NOT change your current "
    "context."
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "replace", "remove"]},
        "target": {"type": "string", "enum": ["self", "user"]},
        "text": {
            "type": "string",
            "description": "For add: the entry. For replace/remove: the existing text.",
        },
        "with": {"type": "string", "description": "For replace: the replacement text."},
    },
    "required": ["action", "text"],
}

_MISSING = object()


def tool_definition() -> dict[str, Any]:
    """The definition as a fresh object: ``{"name", "description", "input_schema"}``."""
    return {
        "name": TOOL_NAME,
        "description": DESCRIPTION,
        "input_schema": copy.deepcopy(INPUT_SCHEMA),
    }


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value an RFC 6901 JSON Pointer names in ``document``, or None when nothing."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise OpError("invalid-args", f"JSON pointer {pointer!r} must be empty or start with '/'")
    current: Any = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict):
            current = current.get(token, _MISSING)
        elif isinstance(current, list) and token.isdigit() and (token == "0" or token[0] != "0"):
            index = int(token)
            current = current[index] if index < len(current) else _MISSING
        else:
            current = _MISSING
        if current is _MISSING:
            return None
    return current

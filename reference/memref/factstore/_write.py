"""Store.Write: the checks, in order, then an atomic write into the type's scope."""

from __future__ import annotations

import os

from memref._gostr import trim_space
from memref.errors import OpError
from memref.factstore._constants import MAX_FACT_SIZE
from memref.factstore._files import SaveError, kind_of, mkdir_all, mkdir_message
from memref.factstore._files import write_file_atomic as _write_file_atomic
from memref.factstore._format import Memory, go_quote, go_quote_rune, serialize
from memref.factstore._names import StoreDirs, scope_for_type, valid_name, valid_type

__all__ = ["LIFECYCLE_MESSAGE", "check", "write"]

LIFECYCLE_MESSAGE = (
    "memory must declare its lifecycle: an ephemeral fact needs invalidate_when with a "
    'condition another agent can check without asking the user (for example, "when issue '
    '#84 is closed"), while a permanent fact needs durable: true (for example, a user '
    "preference)"
)
EXCLUSIVE_MESSAGE = (
    "invalidate_when and durable are mutually exclusive: declare either a checkable expiry "
    "condition or durable: true"
)


def _control(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F


def check(memory: Memory) -> tuple[Memory, bytes]:
    """Validate ``memory`` as Write does; return it (condition normalised) and its bytes."""
    if not valid_name(memory.name):
        raise OpError(
            "invalid-input", f"invalid name {go_quote(memory.name)}: use kebab-case ascii [a-z0-9-]"
        )
    if not valid_type(memory.type):
        raise OpError(
            "invalid-input",
            f"invalid type {go_quote(memory.type)}: use user|feedback|project|reference",
        )
    if trim_space(memory.description) == "":
        raise OpError("invalid-input", "description is required")
    if "\r" in memory.description or "\n" in memory.description:
        raise OpError("invalid-input", "description must be a single line")
    for char in memory.description:
        if _control(char):
            raise OpError(
                "invalid-input",
                f"description must not contain control characters (found {go_quote_rune(char)})",
            )
    when = memory.invalidate_when
    if trim_space(when) == "":
        when = ""
    if when == "" and not memory.durable:
        raise OpError("invalid-input", LIFECYCLE_MESSAGE)
    if when != "" and memory.durable:
        raise OpError("invalid-input", EXCLUSIVE_MESSAGE)
    if "\r" in when or "\n" in when:
        raise OpError("invalid-input", "invalidate_when must be a single line")
    checked = Memory(
        memory.name,
        memory.description,
        memory.type,
        when,
        memory.durable,
        memory.body,
        scope_for_type(memory.type),
    )
    data = serialize(checked).encode("utf-8", "surrogateescape")
    if len(data) > MAX_FACT_SIZE:
        raise OpError("invalid-input", f"fact exceeds 16KB limit ({len(data)} bytes)")
    return checked, data


def write(dirs: StoreDirs, memory: Memory) -> str:
    """Write one fact; returns its path. ``memory.scope`` is not consulted."""
    checked, data = check(memory)
    directory = dirs.dir_for(checked.scope)
    try:
        mkdir_all(directory, 0o700)
    except OSError as exc:
        raise OpError(kind_of(exc), f"creating memory dir: {mkdir_message(exc)}") from exc
    path = os.path.join(directory, checked.name + ".md")
    try:
        _write_file_atomic(path, data)
    except SaveError as exc:
        raise OpError(kind_of(exc.cause), f"{exc.stage} memory: {exc.message}") from exc
    return path

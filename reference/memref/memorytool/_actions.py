"""The memory tool's three actions: add, replace, remove (Go port, home.go L84-149)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memref._gostr import decode
from memref.memorytool._constants import MEMORY_FILE, USER_FILE
from memref.memorytool._writes import (
    ReadOutcome,
    WriteFailure,
    locked,
    mkdir_all,
    read_target,
    write_target,
)

__all__ = ["ToolResult", "execute", "next_content", "target_file"]

_ADD_TRIM = b" \t\r\n"


@dataclass(frozen=True)
class ToolResult:
    output: str
    is_error: bool


class Miss(Exception):
    """A replace or remove whose text is not in the file."""


def _string(tool_input: Mapping[str, Any], name: str) -> str:
    value = tool_input.get(name)
    return value if isinstance(value, str) else ""


def target_file(directory: str, tool_input: Mapping[str, Any]) -> str:
    """USER.md only for the exact string "user"; MEMORY.md for anything else."""
    name = USER_FILE if tool_input.get("target") == "user" else MEMORY_FILE
    return os.path.join(directory, name)


def next_content(current: bytes, action: str, text: bytes, replacement: bytes) -> bytes:
    """The file after the action; raises Miss when replace/remove cannot find ``text``."""
    if action == "add":
        return (current.rstrip(_ADD_TRIM) + b"\n- " + text + b"\n").lstrip(_ADD_TRIM)
    if text not in current:
        raise Miss
    if action == "replace":
        return current.replace(text, replacement, 1)
    return current.replace(text, b"", 1)


def execute(directory: str, tool_input: Mapping[str, Any]) -> ToolResult:
    """Run one call of the memory tool over ``directory`` (an absolute, clean path).

    Strings in ``tool_input`` must be encodable as UTF-8; fields that are missing or
    not strings count as empty.
    """
    action = _string(tool_input, "action")
    if action not in ("add", "replace", "remove"):
        return ToolResult(f"unknown action: {action}", True)
    text = _string(tool_input, "text").encode("utf-8")
    replacement = _string(tool_input, "with").encode("utf-8")
    path = target_file(directory, tool_input)
    miss = ToolResult("not found: " + decode(text), True)

    def attempt(before: ReadOutcome) -> ToolResult | bytes:
        if before.error is not None:
            return ToolResult(before.error, True)
        try:
            return next_content(before.content, action, text, replacement)
        except Miss:
            return miss

    if not os.path.isdir(directory):
        # Nothing is created for a call that would not write.
        planned = attempt(read_target(path))
        if isinstance(planned, ToolResult):
            return planned
        try:
            mkdir_all(directory)
        except WriteFailure as failure:
            return ToolResult(failure.output, True)
    with locked(directory):
        before = read_target(path)
        planned = attempt(before)
        if isinstance(planned, ToolResult):
            return planned
        try:
            write_target(path, planned, before, directory)
        except WriteFailure as failure:
            return ToolResult(failure.output, True)
    return ToolResult(f"ok ({action} \u2192 {os.path.basename(path)}); loads next session", False)

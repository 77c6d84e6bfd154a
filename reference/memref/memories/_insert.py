"""``insert``: a text as new lines after a given line; the file then ends with a newline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memref.memories._errors import ToolFailure, encoded, integer, string
from memref.memories._files import read_text, replace
from memref.memories._paths import Root, existing_file

__all__ = ["insert", "inserted"]


def inserted(content: str, line: int, text: str) -> str | None:
    """``content`` with ``text`` inserted after line ``line`` (0: at the start), or None
    when ``line`` is outside ``[0, n]`` (n: the lines, a final empty one not counted)."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not 0 <= line <= len(lines):
        return None
    lines.insert(line, text.rstrip("\n"))
    joined = "\n".join(lines)
    return joined if joined.endswith("\n") else joined + "\n"


def line_count(content: str) -> int:
    lines = content.split("\n")
    return len(lines) - (lines[-1] == "")


def insert(root: Root, tool_input: Mapping[str, Any]) -> str:
    path = string(tool_input, "path")
    with existing_file(root, path) as target:
        content = read_text(target, path)
        line = integer(tool_input, "insert_line")
        if not 0 <= line <= line_count(content):
            raise ToolFailure(
                f"Invalid `insert_line` parameter: {line}. "
                f"It should be within the range [0, {line_count(content)}]."
            )
        new_content = inserted(content, line, string(tool_input, "insert_text"))
        assert new_content is not None
        parent = target.parent()
        assert parent is not None
        replace(*parent, encoded(new_content, "insert_text"))
    return f"The file {path} has been edited."

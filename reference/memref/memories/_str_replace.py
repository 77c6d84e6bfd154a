"""``str_replace``: replace the one occurrence of a text, and show the lines around it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memref.memories._errors import ToolFailure, encoded, string
from memref.memories._files import read_text, replace
from memref.memories._paths import Root, existing_file
from memref.memories._view import numbered

__all__ = ["occurrence_lines", "snippet", "str_replace"]

SNIPPET_CONTEXT = 2


def occurrence_lines(content: str, old: str) -> list[int]:
    """The 1-based line of every occurrence of ``old``, overlapping ones included; the
    newlines are counted once, from one occurrence to the next."""
    lines, start, line, counted = [], 0, 1, 0
    while (at := content.find(old, start)) != -1:
        line += content.count("\n", counted, at)
        counted = at
        lines.append(line)
        start = at + 1
    return lines


def snippet(new_content: str, line_index: int) -> list[str]:
    """The lines of ``new_content`` within two of the 0-based ``line_index``, numbered."""
    lines = new_content.split("\n")
    first = max(0, line_index - SNIPPET_CONTEXT)
    last = min(len(lines), line_index + SNIPPET_CONTEXT + 1)
    return numbered(lines[first:last], first + 1)


def str_replace(root: Root, tool_input: Mapping[str, Any]) -> str:
    path = string(tool_input, "path")
    with existing_file(root, path) as target:
        old, new = string(tool_input, "old_str"), string(tool_input, "new_str")
        content = read_text(target, path)
        count = content.count(old)
        if count == 0:
            raise ToolFailure(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            )
        if count > 1:
            lines = ", ".join(map(str, occurrence_lines(content, old)))
            raise ToolFailure(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` "
                f"in lines: {lines}. Please ensure it is unique"
            )
        at = content.find(old)
        new_content = content[:at] + new + content[at + len(old) :]
        parent = target.parent()
        assert parent is not None
        replace(*parent, encoded(new_content, "new_str"))
    shown = snippet(new_content, content.count("\n", 0, at))
    return (
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + "\n".join(shown)
    )

"""``view``: a directory as a listing two levels deep, a file with numbered lines."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from memref.memories._constants import LINE_NUMBER_WIDTH, LISTING_DEPTH, MAX_LINES, SIZE_UNITS
from memref.memories._errors import ToolFailure, does_not_exist, string
from memref.memories._files import read_text, readable_directory
from memref.memories._paths import BLOCKED, DIR, FILE, MISSING, Root, Target, resolve

__all__ = ["format_size", "listing", "numbered", "view"]


def format_size(size: int) -> str:
    """``0B``, ``1023B``, ``1K``, ``1.5K``, ... ``1024G``: powers of 1024 up to G, one
    decimal unless the value is whole."""
    if size == 0:
        return "0B"
    unit = min((size.bit_length() - 1) // 10, len(SIZE_UNITS) - 1)
    value = size / 1024**unit
    if value == int(value):
        return f"{int(value)}{SIZE_UNITS[unit]}"
    return f"{value:.1f}{SIZE_UNITS[unit]}"


def numbered(lines: list[str], first: int) -> list[str]:
    return [f"{str(first + i).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(lines)]


def view(root: Root, tool_input: Mapping[str, Any]) -> str:
    path = string(tool_input, "path")
    with resolve(root, path) as target:
        kind = target.kind
        if kind in (MISSING, BLOCKED):
            raise does_not_exist(path)
        if kind == DIR:
            return listing(target, path)
        if kind == FILE:
            return _file(target, path, tool_input.get("view_range"))
    raise ToolFailure(f"Unsupported file type for {path}")


def listing(target: Target, path: str) -> str:
    header = (
        f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    )
    lines = [f"{format_size(os.fstat(target.fd).st_size)}\t{path}"]
    lines += [f"{size}\t{path}/{relative}" for size, relative in _entries(target, "", 1)]
    return header + "\n" + "\n".join(lines)


def _names(directory: int) -> list[str]:
    try:
        fd = readable_directory(directory)
    except OSError:
        return []
    try:
        return sorted(os.listdir(fd))
    except OSError:
        return []
    finally:
        os.close(fd)


def _entries(directory: Target, prefix: str, depth: int) -> list[tuple[str, str]]:
    """(size, relative path) of every entry shown below ``directory``, depth first, by name.

    Hidden names are left out at every depth; so is an entry that cannot be resolved (a
    link that is dangling, loops or leads out of the root) and anything that is neither a
    directory nor a regular file.
    """
    found: list[tuple[str, str]] = []
    for name in _names(directory.fd):
        if name.startswith("."):
            continue
        relative = f"{prefix}/{name}" if prefix else name
        try:
            entry = directory.descend(name)
        except (ToolFailure, OSError):
            continue
        with entry:
            if entry.kind == DIR:
                found.append((format_size(os.fstat(entry.fd).st_size), relative + "/"))
                if depth < LISTING_DEPTH:
                    found += _entries(entry, relative, depth + 1)
            elif entry.kind == FILE:
                parent = entry.parent()
                assert parent is not None
                try:
                    size = os.stat(parent[1], dir_fd=parent[0], follow_symlinks=False).st_size
                except OSError:
                    continue
                found.append((format_size(size), relative))
    return found


def _file(target: Target, path: str, view_range: Any) -> str:
    lines = read_text(target, path).split("\n")
    if len(lines) > MAX_LINES:
        raise ToolFailure(f"File {path} exceeds maximum line limit of 999,999 lines.")
    first = 1
    if view_range is not None:
        if not isinstance(view_range, list):
            raise ToolFailure("The view command needs a view_range of two integers.")
        if len(view_range) == 2:
            start, end = (_line_number(item) for item in view_range)
            begin = max(1, start) - 1
            lines = lines[begin : len(lines) if end == -1 else end]
            first = begin + 1
    header = f"Here's the content of {path} with line numbers:"
    return header + "\n" + "\n".join(numbered(lines, first))


def _line_number(item: Any) -> int:
    if not isinstance(item, int) or isinstance(item, bool):
        raise ToolFailure("The view command needs a view_range of two integers.")
    return item

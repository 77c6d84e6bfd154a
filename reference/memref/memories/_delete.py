"""``delete``: a file, or a directory with everything in it; never the root."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memref.memories._errors import ToolFailure, string
from memref.memories._files import remove, remove_tree
from memref.memories._paths import DIR, FILE, Root, resolve

__all__ = ["delete"]


def delete(root: Root, tool_input: Mapping[str, Any]) -> str:
    path = string(tool_input, "path")
    missing = ToolFailure(f"The path {path} does not exist")
    with resolve(root, path) as target:
        if target.is_root:
            raise ToolFailure("Cannot delete the /memories directory itself")
        parent = target.parent()
        if parent is None or target.kind not in (FILE, DIR):
            raise missing
        try:
            if target.kind == FILE:
                remove(*parent)
            else:
                remove_tree(*parent)
        except FileNotFoundError:
            raise missing from None
    return f"Successfully deleted {path}"

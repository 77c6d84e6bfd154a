"""``create``: a new file, never over an existing one, complete before it appears."""

from __future__ import annotations

import errno
from collections.abc import Mapping
from typing import Any

from memref.memories._errors import ToolFailure, encoded, string
from memref.memories._files import create_exclusive, make_parent_dirs
from memref.memories._paths import BLOCKED, MISSING, Root, resolve

__all__ = ["create"]


def create(root: Root, tool_input: Mapping[str, Any]) -> str:
    path = string(tool_input, "path")
    with resolve(root, path) as target:
        exists = ToolFailure(f"File {path} already exists")
        if target.kind not in (MISSING, BLOCKED):
            raise exists
        data = encoded(string(tool_input, "file_text"), "file_text")
        parent = make_parent_dirs(target)
        if parent is None:
            raise OSError(errno.ENOTDIR, "Not a directory")
        if not create_exclusive(*parent, data):
            raise exists
    return f"File created successfully at: {path}"

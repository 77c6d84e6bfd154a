"""``rename``: move a file or directory to a new path that does not exist yet."""

from __future__ import annotations

import errno
from collections.abc import Mapping
from typing import Any

from memref.memories._errors import ToolFailure, failure_for_os_error, string
from memref.memories._files import make_parent_dirs, rename
from memref.memories._paths import BLOCKED, MISSING, Root, Target, resolve

__all__ = ["move"]


def move(root: Root, tool_input: Mapping[str, Any]) -> str:
    old = string(tool_input, "old_path")
    with resolve(root, old) as source:
        new = string(tool_input, "new_path")
        with resolve(root, new) as destination:
            return _move(source, destination, old, new)


def _move(source: Target, destination: Target, old: str, new: str) -> str:
    if source.is_root:
        raise ToolFailure("Cannot rename the /memories directory itself")
    if destination.kind == BLOCKED:  # below something that is not a directory
        raise failure_for_os_error(OSError(errno.ENOTDIR, "Not a directory"), new)
    if destination.kind != MISSING:
        raise ToolFailure(f"The destination {new} already exists")
    target = make_parent_dirs(destination)
    missing = ToolFailure(f"The path {old} does not exist")
    found = source.parent()
    if (found is None and source.stop_kind == MISSING) or source.kind == MISSING:
        raise missing
    if found is None or target is None:
        raise failure_for_os_error(OSError(errno.ENOTDIR, "Not a directory"), old)
    try:
        rename(found, target)
    except FileNotFoundError:
        raise missing from None
    return f"Successfully renamed {old} to {new}"

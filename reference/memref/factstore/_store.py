"""memory.New: the two directories of one workspace's store."""

from __future__ import annotations

import os
from collections.abc import Mapping

from memref.factstore._codebase_key import codebase_key
from memref.factstore._names import StoreDirs

__all__ = ["new_store"]


def new_store(
    config_dir: str, workspace: str, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> StoreDirs:
    key = codebase_key(workspace, env or {}, cwd)
    return StoreDirs(
        os.path.join(config_dir, "global", "memory"),
        os.path.join(config_dir, "codebases", key, "memory"),
    )

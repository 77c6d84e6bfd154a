"""Shared helpers for memref.memories' own tests: a base on a real filesystem."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memref.memories import Reply, execute

__all__ = ["base_with", "call", "tree_of"]


def base_with(tmp_path: Path, files: dict[str, str | bytes | None] | None = None) -> str:
    """A base below ``tmp_path`` whose root holds ``files`` (None: a directory)."""
    root = tmp_path / "base" / "memories"
    root.mkdir(parents=True)
    for name, content in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(tmp_path / "base")


def call(base: str, command: str, **members: Any) -> Reply:
    return execute(base, {"command": command, **members})


def tree_of(top: str | Path) -> dict[str, str]:
    """Every entry below ``top``: a file's text, ``<dir>`` or ``-> target``."""
    found = {}
    for directory, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, top)
            if os.path.islink(path):
                found[relative] = "-> " + os.readlink(path)
            elif os.path.isdir(path):
                found[relative] = "<dir>"
            else:
                with open(path, "rb") as handle:
                    found[relative] = handle.read().decode("utf-8", "replace")
    return found

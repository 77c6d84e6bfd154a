"""Whether a path lies inside the memory directory.

``is_in_memory_dir`` is evva's lexical check, with its ``..name`` false negative
fixed. ``check_write_path`` is the strict check a writer applies, which also
resolves symbolic links.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from memref import _gopath
from memref.memdir._paths import memory_dir

__all__ = ["WriteCheck", "check_write_path", "is_in_memory_dir"]

Reason = Literal["ok", "empty", "nul", "relative", "dotdot", "root", "outside", "symlink-escape"]


def is_in_memory_dir(app_home: str, path: str, cwd: str) -> bool:
    """Lexically inside ``<app_home>/memory`` and not the directory itself.

    Relative paths resolve against ``cwd`` (standing in for the process working
    directory); symbolic links are not resolved.
    """
    directory = memory_dir(app_home)
    if not directory or not path:
        return False
    relative = _gopath.rel(_gopath.abs_path(directory, cwd), _gopath.abs_path(path, cwd))
    if relative is None or relative in (".", ""):
        return False
    return relative.split("/", 1)[0] != ".."


@dataclass(frozen=True)
class WriteCheck:
    allowed: bool
    reason: Reason


def _components(path: str) -> list[str]:
    # An absolute path keeps a leading "" component, so it never matches a relative one.
    cleaned = _gopath.clean(path)
    parts = [part for part in cleaned.split("/") if part]
    return ["", *parts] if cleaned.startswith("/") else parts


def _relation(path: str, root: str) -> Literal["root", "inside", "outside"]:
    inner, outer = _components(path), _components(root)
    if inner == outer:
        return "root"
    if len(inner) > len(outer) and inner[: len(outer)] == outer:
        return "inside"
    return "outside"


def check_write_path(memory_dir: str, path: str) -> WriteCheck:
    """Whether a writer may create or replace ``path`` inside ``memory_dir``.

    The checks run in this order and the first that fails names the reason:
    empty input, a NUL byte, a relative path, a ``..`` segment, the directory
    itself, a path lexically outside it, and finally the same two questions
    asked again after resolving symbolic links (dangling ones included).
    """
    if not memory_dir or not path:
        return WriteCheck(False, "empty")
    if "\x00" in memory_dir or "\x00" in path:
        return WriteCheck(False, "nul")
    if not path.startswith("/"):
        return WriteCheck(False, "relative")
    if ".." in path.replace("\\", "/").split("/"):
        return WriteCheck(False, "dotdot")
    lexical = _relation(path, memory_dir)
    if lexical != "inside":
        return WriteCheck(False, lexical)
    resolved = _relation(os.path.realpath(path), os.path.realpath(memory_dir))
    if resolved == "root":
        return WriteCheck(False, "root")
    if resolved == "outside":
        return WriteCheck(False, "symlink-escape")
    return WriteCheck(True, "ok")

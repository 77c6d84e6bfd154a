"""Where the memory directory and its index live, and creating the directory."""

from __future__ import annotations

import errno
import os
import stat

from memref import _gopath
from memref._faults import mutation
from memref.errors import OpError
from memref.memdir._constants import MEMORY_DIR_NAME, MEMORY_INDEX_FILE
from memref.memdir._fileio import PathError, os_errno

__all__ = ["ensure_memory_dir", "memory_dir", "memory_index_path", "mkdir_all"]


def memory_dir(app_home: str) -> str:
    """``<app_home>/memory``, cleaned as Go's ``filepath.Join`` cleans; ``""`` for ``""``."""
    if not app_home:
        return ""
    return _gopath.join(app_home, MEMORY_DIR_NAME)


def memory_index_path(app_home: str) -> str:
    """``<app_home>/memory/MEMORY.md``; ``""`` for ``""``."""
    directory = memory_dir(app_home)
    if not directory:
        return ""
    return _gopath.join(directory, MEMORY_INDEX_FILE)


def _is_dir(path: str, *, follow: bool) -> bool | None:
    """Whether ``path`` is a directory; ``None`` when it cannot be examined."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except (OSError, ValueError):
        return None
    return stat.S_ISDIR(info.st_mode)


def _parent(path: str) -> str:
    i = len(path) - 1
    while i >= 0 and path[i] == "/":
        i -= 1
    while i >= 0 and path[i] != "/":
        i -= 1
    return path[: max(i, 0)]


def mkdir_all(path: str, mode: int = 0o755) -> PathError | None:
    """Go's ``os.MkdirAll``: the same checks in the same order, and the same errors."""
    missing: list[str] = []
    current = path
    while True:
        found = _is_dir(current, follow=True)
        if found is True:
            break
        if found is False:
            return PathError("mkdir", current, errno.ENOTDIR)
        missing.append(current)
        current = _parent(current)
        if not current:
            break
    for directory in reversed(missing):
        try:
            mutation("mkdir")
            os.mkdir(directory, mode)
        except (OSError, ValueError) as exc:
            # "foo/." and the like: the directory may exist after all.
            if _is_dir(directory, follow=False) is True:
                continue
            return PathError("mkdir", directory, os_errno(exc))
    return None


def ensure_memory_dir(app_home: str) -> None:
    """Create the memory directory and its parents (mode 0755 before the umask).

    Raises ``OpError`` whose message is Go's error text, for example
    ``mkdir /h/memory: not a directory``. An empty ``app_home`` does nothing.
    """
    directory = memory_dir(app_home)
    if not directory:
        return
    error = mkdir_all(directory)
    if error is not None:
        raise OpError(error.kind, str(error))

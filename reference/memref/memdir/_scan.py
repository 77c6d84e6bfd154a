"""Walking the memory directory for ``*.md`` files and reading their headers."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memref._gostr import decode
from memref.memdir import _gopath
from memref.memdir._constants import (
    FRONTMATTER_MAX_LINES,
    FRONTMATTER_SCAN_BYTES,
    MAX_MEMORY_FILES,
    MEMORY_INDEX_FILE,
)
from memref.memdir._fileio import NotRegularFile, open_for_read, read_at_most
from memref.memdir._frontmatter import parse_frontmatter
from memref.memdir._memtype import parse_memory_type

__all__ = ["MemoryHeader", "scan_memory_files"]


@dataclass(frozen=True)
class MemoryHeader:
    """One memory file as the scan sees it.

    ``filename`` is the path relative to the scanned directory with ``/``
    separators; ``path`` is the walked path; ``mtime`` is epoch nanoseconds of
    the entry itself (a symbolic link's own time).
    """

    filename: str
    path: str
    mtime: int
    description: str = ""
    type: str = ""


@dataclass(frozen=True)
class _Entry:
    path: str
    name: str
    is_dir: bool
    info: Callable[[], os.stat_result]


def _read_dir(path: str) -> list[os.DirEntry[str]]:
    """The directory's entries sorted by name in byte order; what could be read on error."""
    entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(path) as iterator:
            for entry in iterator:
                entries.append(entry)
    except (OSError, ValueError):
        pass
    entries.sort(key=lambda entry: os.fsencode(entry.name))
    return entries


def _entry_is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _walk(root: str) -> Iterator[_Entry]:
    """Go's ``filepath.WalkDir``: pre-order, names sorted per directory, links not followed."""
    try:
        root_info = os.lstat(root)
    except (OSError, ValueError):
        return
    stack: list[Iterator[_Entry]] = [
        iter([_Entry(root, _gopath.base(root), stat.S_ISDIR(root_info.st_mode), lambda: root_info)])
    ]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        yield entry
        if entry.is_dir:
            stack.append(_children(entry.path))


def _children(parent: str) -> Iterator[_Entry]:
    for child in _read_dir(parent):
        yield _Entry(
            _gopath.join(parent, child.name), child.name, _entry_is_dir(child), _lstat_of(child)
        )


def _lstat_of(entry: os.DirEntry[str]) -> Callable[[], os.stat_result]:
    return lambda: entry.stat(follow_symlinks=False)


def _read_header(path: str) -> dict[str, str] | None:
    """The frontmatter of the first 30 lines within the first 4096 bytes; ``None`` if unreadable."""
    try:
        fd = open_for_read(path, allow_dir=False)
    except (OSError, ValueError, NotRegularFile):
        return None
    try:
        data = read_at_most(fd, FRONTMATTER_SCAN_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    lines = decode(data).split("\n", FRONTMATTER_MAX_LINES)[:FRONTMATTER_MAX_LINES]
    frontmatter, _ = parse_frontmatter("\n".join(lines))
    return frontmatter


def scan_memory_files(directory: str) -> list[MemoryHeader]:
    """Every readable ``*.md`` file below ``directory`` except ``MEMORY.md``, newest first.

    Ties keep the walk order; at most ``MAX_MEMORY_FILES`` headers are returned.
    A file that cannot be opened or read as a regular file is left out. Never
    raises.
    """
    if not directory:
        return []
    headers: list[MemoryHeader] = []
    for entry in _walk(directory):
        if entry.is_dir or not entry.name.endswith(".md") or entry.name == MEMORY_INDEX_FILE:
            continue
        filename = _gopath.rel(directory, entry.path)
        if filename is None:
            continue
        try:
            info = entry.info()
        except (OSError, ValueError):
            continue
        frontmatter = _read_header(entry.path)
        if frontmatter is None:
            continue
        memory_type, _ = parse_memory_type(frontmatter.get("type", ""))
        headers.append(
            MemoryHeader(
                filename=filename,
                path=entry.path,
                mtime=info.st_mtime_ns,
                description=frontmatter.get("description", ""),
                type=memory_type,
            )
        )
    headers.sort(key=lambda header: -header.mtime)
    return headers[:MAX_MEMORY_FILES]

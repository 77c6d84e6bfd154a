"""Walking the memory directory for ``*.md`` files and reading their headers."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
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
from memref.memdir._frontmatter import frontmatter_of_lines
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


def _read_dir(path: str) -> list[os.DirEntry[str]]:
    """The directory's entries sorted by name in byte order; what could be read on error."""
    entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(path) as iterator:
            for entry in iterator:
                entries.append(entry)
    except (OSError, ValueError):
        pass
    if "".join([entry.name for entry in entries]).isascii():
        # ASCII names: code point order is byte order.
        entries.sort(key=_name_of)
    else:
        entries.sort(key=lambda entry: os.fsencode(entry.name))
    return entries


def _name_of(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entry_is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


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
    if not data.startswith(b"---"):
        # parse_frontmatter finds no block in text that does not start with "---".
        return {}
    lines = decode(data).split("\n", FRONTMATTER_MAX_LINES)[:FRONTMATTER_MAX_LINES]
    return frontmatter_of_lines(lines)


def _header(
    filename: str, path: str, mtime: int, frontmatter: dict[str, str]
) -> MemoryHeader:
    memory_type, _ = parse_memory_type(frontmatter.get("type", ""))
    return MemoryHeader(
        filename=filename,
        path=path,
        mtime=mtime,
        description=frontmatter.get("description", ""),
        type=memory_type,
    )


def _scan_root_file(directory: str, root_info: os.stat_result) -> list[MemoryHeader]:
    """The walk of a root that is not a directory: the root alone, named ``"."``."""
    name = _gopath.base(directory)
    if not name.endswith(".md") or name == MEMORY_INDEX_FILE:
        return []
    filename = _gopath.rel(directory, directory)
    if filename is None:
        return []
    frontmatter = _read_header(directory)
    if frontmatter is None:
        return []
    return [_header(filename, directory, root_info.st_mtime_ns, frontmatter)]


def scan_memory_files(directory: str) -> list[MemoryHeader]:
    """Every readable ``*.md`` file below ``directory`` except ``MEMORY.md``, newest first.

    Ties keep the walk order; at most ``MAX_MEMORY_FILES`` headers are returned.
    A file that cannot be opened or read as a regular file is left out. Never
    raises.

    The walk is Go's ``filepath.WalkDir`` (pre-order, names sorted per directory in
    byte order, links not followed). Each entry's path is ``filepath.Join(parent,
    name)`` and its filename ``filepath.Rel(directory, path)``; below a cleaned root
    both are built by appending ``/name``, which is what Go's algorithms give for a
    clean parent and a name read from a directory (never empty, ``.``, ``..``, and
    without a separator).
    """
    if not directory:
        return []
    try:
        root_info = os.lstat(directory)
    except (OSError, ValueError):
        return []
    if not stat.S_ISDIR(root_info.st_mode):
        return _scan_root_file(directory, root_info)
    headers: list[MemoryHeader] = []
    root = _gopath.clean(directory)
    # The first level: Join(directory, name) is Clean(directory) + "/" + name, except
    # below "/" (no doubled separator) and "." (the name alone).
    if root == "/":
        path_prefix = "/"
    elif root == ".":
        path_prefix = ""
    else:
        path_prefix = root + "/"
    # Pending directories: (entries still to visit, their path prefix, filename prefix).
    stack: list[tuple[Iterator[os.DirEntry[str]], str, str]] = [
        (iter(_read_dir(directory)), path_prefix, "")
    ]
    while stack:
        entries, path_prefix, name_prefix = stack[-1]
        for entry in entries:
            name = entry.name
            if _entry_is_dir(entry):
                path = path_prefix + name
                stack.append((iter(_read_dir(path)), path + "/", name_prefix + name + "/"))
                break
            if not name.endswith(".md") or name == MEMORY_INDEX_FILE:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except (OSError, ValueError):
                continue
            path = path_prefix + name
            frontmatter = _read_header(path)
            if frontmatter is None:
                continue
            headers.append(_header(name_prefix + name, path, info.st_mtime_ns, frontmatter))
        else:
            stack.pop()
    headers.sort(key=lambda header: -header.mtime)
    return headers[:MAX_MEMORY_FILES]

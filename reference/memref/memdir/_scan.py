"""Walking the memory directory for ``*.md`` files and reading their headers."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from stat import S_ISREG

from memref import _gopath
from memref._gostr import decode
from memref.memdir._constants import (
    FRONTMATTER_MAX_LINES,
    FRONTMATTER_SCAN_BYTES,
    MAX_MEMORY_FILES,
    MEMORY_INDEX_FILE,
    MEMORY_TYPES,
)
from memref.memdir._fileio import OPEN_READ_FLAGS
from memref.memdir._frontmatter import frontmatter_of_lines
from memref.memdir._type import parse_memory_type

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


_NAME = attrgetter("name")
_MTIME = itemgetter(2)


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
        entries.sort(key=_NAME)
    else:
        entries.sort(key=lambda entry: os.fsencode(entry.name))
    return entries


def _read_header(path: str) -> dict[str, str] | None:
    """The frontmatter of the first 30 lines within the first 4096 bytes; ``None`` if unreadable.

    ``open_for_read(path, allow_dir=False)`` and ``read_at_most(fd, 4096)``, inlined.
    """
    try:
        fd = os.open(path, OPEN_READ_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        regular = S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        # open_for_read closes and raises; a failing close is an OSError, also None.
        with contextlib.suppress(OSError):
            os.close(fd)
        return None
    try:
        data = os.read(fd, FRONTMATTER_SCAN_BYTES)
        remaining = FRONTMATTER_SCAN_BYTES - len(data)
        if data and remaining > 0:
            chunk = os.read(fd, remaining)
            if chunk:
                chunks = [data, chunk]
                remaining -= len(chunk)
                while remaining > 0:
                    chunk = os.read(fd, remaining)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    remaining -= len(chunk)
                data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not data.startswith(b"---"):
        # parse_frontmatter finds no block in text that does not start with "---".
        return {}
    lines = decode(data).split("\n", FRONTMATTER_MAX_LINES)
    if len(lines) > FRONTMATTER_MAX_LINES:
        del lines[FRONTMATTER_MAX_LINES:]
    return frontmatter_of_lines(lines, ascii_text=data.isascii())


def _header(filename: str, path: str, mtime: int, frontmatter: dict[str, str]) -> MemoryHeader:
    memory_type, _ = parse_memory_type(frontmatter.get("type", ""))
    return MemoryHeader(filename, path, mtime, frontmatter.get("description", ""), memory_type)


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
    # The fields of each header; only the newest MAX_MEMORY_FILES become headers.
    found: list[tuple[str, str, int, str, str]] = []
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
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
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
            # Only a regular file (or a link to one) is opened: a FIFO, socket or device is
            # left out without an open.
            if not S_ISREG(info.st_mode):
                if not stat.S_ISLNK(info.st_mode):
                    continue
                try:
                    if not S_ISREG(os.stat(path).st_mode):
                        continue
                except (OSError, ValueError):
                    continue
            frontmatter = _read_header(path)
            if frontmatter is None:
                continue
            memory_type = frontmatter.get("type", "")  # parse_memory_type, inlined
            found.append(
                (
                    name_prefix + name,
                    path,
                    info.st_mtime_ns,
                    frontmatter.get("description", ""),
                    memory_type if memory_type in MEMORY_TYPES else "",
                )
            )
        else:
            stack.pop()
    # Newest first; a stable sort, so ties keep the walk order (as reverse=True does).
    found.sort(key=_MTIME, reverse=True)
    return [MemoryHeader(*fields) for fields in found[:MAX_MEMORY_FILES]]

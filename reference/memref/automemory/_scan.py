"""Listing the memory files below the memory directory, newest first, with their
headers, and the manifest line per file."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from memref._time import format_rfc3339
from memref.automemory._constants import (
    INDEX_FILE,
    SCAN_HEAD_BYTES,
    SCAN_HEAD_LINES,
    SCAN_MAX_FILES,
)
from memref.automemory._frontmatter import parse_memory_file

__all__ = ["ScanHeader", "format_manifest", "scan_memory_files"]

NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class ScanHeader:
    """``filename`` is relative to the scanned directory with ``/`` separators;
    ``mtime_ms`` is whole milliseconds since the epoch."""

    filename: str
    mtime_ms: int
    description: str | None = None
    type: str | None = None


def _walk(root: str, prefix: str, seen: set[tuple[int, int]]) -> Iterator[tuple[str, str]]:
    """(relative name, path) of every non-directory below ``root``, links followed,
    each directory entered once."""
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except (OSError, ValueError):
        return
    for entry in entries:
        try:
            info = os.stat(entry.path)
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(info.st_mode):
            identity = (info.st_dev, info.st_ino)
            if identity not in seen:
                seen.add(identity)
                yield from _walk(entry.path, prefix + entry.name + "/", seen)
        else:
            yield prefix + entry.name, entry.path


def _head(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, SCAN_HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = data.decode("utf-8", "replace")
    return "\n".join(text.split("\n", SCAN_HEAD_LINES)[:SCAN_HEAD_LINES])


def scan_memory_files(directory: str) -> list[ScanHeader]:
    """Every readable ``*.md`` file below ``directory`` except ``MEMORY.md`` files, with
    its description and type from the first 30 lines, newest first, at most 200."""
    try:
        root = os.stat(directory)
    except (OSError, ValueError):
        return []
    found = []
    for name, path in _walk(directory, "", {(root.st_dev, root.st_ino)}):
        if not name.endswith(".md") or name.rsplit("/", 1)[-1] == INDEX_FILE:
            continue
        try:
            mtime_ns = os.stat(path).st_mtime_ns
        except (OSError, ValueError):
            continue
        head = _head(path)
        if head is None:
            continue
        header = parse_memory_file(head)
        found.append(ScanHeader(name, mtime_ns // NS_PER_MS, header.description, header.type))
    found.sort(key=lambda header: header.mtime_ms, reverse=True)
    return found[:SCAN_MAX_FILES]


def iso_ms(mtime_ms: int) -> str:
    """JavaScript's ``Date.prototype.toISOString``: UTC, three fraction digits."""
    seconds, millis = divmod(mtime_ms, 1000)
    return format_rfc3339(seconds * 1_000_000_000)[:-1] + f".{millis:03d}Z"


def _expanded_year(iso: str) -> str:
    """``toISOString`` writes a year past 9999 with a sign and six digits."""
    year = iso.split("-", 1)[0]
    return "+" + year.zfill(6) + iso[len(year) :] if len(year) > 4 else iso


def format_manifest(headers: Iterable[ScanHeader]) -> str:
    """``- [type] filename (ISO time): description`` per header, joined with ``\\n``."""
    lines = []
    for header in headers:
        tag = f"[{header.type}] " if header.type else ""
        line = f"- {tag}{header.filename} ({_expanded_year(iso_ms(header.mtime_ms))})"
        if header.description:
            line += ": " + header.description
        lines.append(line)
    return "\n".join(lines)

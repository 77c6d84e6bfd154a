"""The two files and their entries: reading, parsing, serialising (spec/hermes.md, "Storage")."""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from memref.hermes._constants import ENTRY_DELIMITER, FILES, MEMORY_DIR

__all__ = [
    "FileText",
    "memory_dir",
    "parse",
    "read_target",
    "read_text",
    "serialise",
    "target_path",
]


def memory_dir(home: str) -> str:
    return os.path.join(home, MEMORY_DIR)


def target_path(home: str, target: str) -> str:
    return os.path.join(memory_dir(home), FILES[target])


@dataclass(frozen=True)
class FileText:
    """A target file as read: ``text`` is None when it is missing or cannot be read."""

    text: str | None
    exists: bool

    @property
    def unreadable(self) -> bool:
        return self.exists and self.text is None


def read_text(path: str) -> FileText:
    """The file's text with universal newlines; never raises, never blocks on a FIFO."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return FileText(None, False)  # missing, or a dangling link: written through later
    except OSError:
        return FileText(None, True)
    if not stat.S_ISREG(info.st_mode):
        return FileText(None, True)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return FileText(None, True)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    except OSError:
        return FileText(None, True)
    finally:
        os.close(fd)
    try:
        raw = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        return FileText(None, True)
    # Universal newlines, as a text-mode read does: CRLF and lone CR become LF.
    return FileText(io.StringIO(raw, newline=None).read(), True)


def leads_outside(home: str, path: str) -> bool:
    """Whether ``path`` is a link whose target, all links followed, lies outside the home."""
    if not os.path.islink(path):
        return False
    real_home = os.path.realpath(home)
    return os.path.commonpath([real_home, os.path.realpath(path)]) != real_home


def read_target(home: str, target: str) -> FileText:
    """A target as read; a link leading outside the home cannot be read (FILES-010)."""
    path = target_path(home, target)
    if leads_outside(home, path):
        return FileText(None, True)
    return read_text(path)


def parse(text: str | None) -> list[str]:
    """The entries of a file's text: split at the delimiter, stripped, empty parts dropped,
    repeated entries dropped (the first kept)."""
    if text is None or not text.strip():
        return []
    parts = (part.strip() for part in text.split(ENTRY_DELIMITER))
    return list(dict.fromkeys(part for part in parts if part))


def serialise(entries: Sequence[str]) -> str:
    return ENTRY_DELIMITER.join(entries)

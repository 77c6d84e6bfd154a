"""Bounded reads and Go ``*PathError`` texts."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from memref._gostr import errno_text
from memref.errors import kind_for_errno

__all__ = [
    "OPEN_READ_FLAGS",
    "NotRegularFile",
    "PathError",
    "open_for_read",
    "os_errno",
    "read_at_most",
    "read_capped",
]

# O_NONBLOCK: opening a FIFO for reading must never wait for a writer.
OPEN_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


@dataclass(frozen=True)
class PathError:
    """Go's ``*os.PathError``: renders as ``<op> <path>: <errno text>``."""

    op: str
    path: str
    errno: int | None

    def __str__(self) -> str:
        return f"{self.op} {self.path}: {errno_text(self.errno)}"

    @property
    def kind(self) -> str:
        return kind_for_errno(self.errno)


class NotRegularFile(Exception):
    """The path opened, but is neither a regular file nor a directory."""


def os_errno(exc: BaseException) -> int:
    """The errno Go would see: a NUL byte in a path is EINVAL there."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc.errno
    return errno.EINVAL


def open_for_read(path: str, *, allow_dir: bool) -> int:
    """Open ``path`` for reading without blocking; a descriptor of a readable kind.

    The type is checked (symlinks followed) before the open, so that a FIFO, socket or
    device is refused with ``NotRegularFile`` without being opened: opening a socket
    fails (ENXIO) and opening a device can have effects of its own. A directory is
    accepted when ``allow_dir`` (reading it then fails with EISDIR, as Go reports).
    The type is checked again on the descriptor, in case the path changed in between.
    """
    _check_kind(os.stat(path).st_mode, path, allow_dir=allow_dir)
    fd = os.open(path, OPEN_READ_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if stat.S_ISREG(mode) or (allow_dir and stat.S_ISDIR(mode)):
        return fd
    os.close(fd)
    raise NotRegularFile(path)


def _check_kind(mode: int, path: str, *, allow_dir: bool) -> None:
    if not (stat.S_ISREG(mode) or (allow_dir and stat.S_ISDIR(mode))):
        raise NotRegularFile(path)


def _read_chunks(fd: int, limit: int) -> list[bytes]:
    """Read until end of file or ``limit`` bytes, never asking for more than remains."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return chunks


def read_at_most(fd: int, limit: int) -> bytes:
    """Read until end of file or ``limit`` bytes, never asking for more than remains."""
    return b"".join(_read_chunks(fd, limit))


def read_capped(fd: int, cap: int) -> tuple[bytes, bool]:
    """``read_at_most(fd, cap + 1)`` cut to ``cap`` bytes, and whether it was longer.

    The same reads as ``read_at_most``; when the first read fills the cap, that
    chunk is the answer as it is, without joining and cutting a copy.
    """
    chunks = _read_chunks(fd, cap + 1)
    remaining = cap + 1 - sum(map(len, chunks))
    if remaining > 0:
        return b"".join(chunks), False
    if len(chunks[0]) == cap:
        return chunks[0], True
    return b"".join(chunks)[:cap], True

"""How the memory tool touches the filesystem: mkdir -p, the lock, reading, atomic writes.

Error texts follow Go's ``*PathError`` (``<op> <path>: <reason>``), which the Go port
returns as the tool's output.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from memref._atomic import write_atomic
from memref._faults import mutation
from memref._gostr import errno_text

__all__ = ["ReadOutcome", "WriteFailure", "locked", "mkdir_all", "read_target", "write_target"]


class WriteFailure(Exception):
    """A write that did not happen; ``output`` is the tool's error output."""

    def __init__(self, output: str) -> None:
        super().__init__(output)
        self.output = output


def _path_error(op: str, path: str, exc: OSError) -> str:
    return f"{op} {path}: {errno_text(exc.errno)}"


def mkdir_all(path: str) -> None:
    """Go's ``os.MkdirAll(path, 0o755)``, with its error texts; raises WriteFailure."""
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            return
        raise WriteFailure(f"mkdir {path}: {errno_text(errno.ENOTDIR)}")
    parent = os.path.dirname(path.rstrip("/"))
    if parent and parent != path:
        mkdir_all(parent)
    try:
        mutation("mkdir")
        os.mkdir(path, 0o755)
    except OSError as exc:
        if os.path.isdir(path) and not os.path.islink(path):
            return
        raise WriteFailure(_path_error("mkdir", path, exc)) from exc


@contextlib.contextmanager
def locked(directory: str) -> Iterator[None]:
    """Hold an exclusive advisory lock on the memory directory for the block.

    The lock is ``flock`` on the directory itself, so no lock file appears in the
    tree; it serialises every read-modify-write of MEMORY.md and USER.md, between
    threads (each opens its own descriptor) and between processes. A directory that
    cannot be opened is used unlocked: the read and the write then fail or succeed
    exactly as they would have.
    """
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


@dataclass(frozen=True)
class ReadOutcome:
    """The target as the tool sees it before an action."""

    content: bytes
    is_directory: bool = False
    error: str | None = None  # an existing file that cannot be read
    mode: int = 0o644


def read_target(path: str) -> ReadOutcome:
    """The whole file (no cap). Missing, or a missing/non-directory parent, reads as empty."""
    try:
        info = os.stat(path)
    except OSError:
        return ReadOutcome(b"")
    if stat.S_ISDIR(info.st_mode):
        return ReadOutcome(b"", is_directory=True)
    if not stat.S_ISREG(info.st_mode):
        return ReadOutcome(b"", error=f"open {path}: not a regular file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return ReadOutcome(b"", error=_path_error("open", path, exc))
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    except OSError as exc:
        return ReadOutcome(b"", error=_path_error("read", path, exc))
    finally:
        os.close(fd)
    return ReadOutcome(b"".join(chunks), mode=stat.S_IMODE(info.st_mode))


def _within(path: str, directory: str) -> bool:
    return os.path.commonpath([path, directory]) == directory


def write_target(path: str, data: bytes, before: ReadOutcome, home: str) -> None:
    """Replace the file at ``path`` atomically, through a symlink that stays in ``home``;
    a link leading outside it is itself replaced (MEMORYTOOL-WRITE-012). Raises
    WriteFailure."""
    if before.is_directory:
        raise WriteFailure(f"open {path}: {errno_text(errno.EISDIR)}")
    real = os.path.realpath(path)
    if not _within(real, os.path.realpath(home)):
        real = path  # the link itself is replaced, so what it leads to is not opened
    elif os.path.lexists(real):
        # The same permission check as Go's in-place open for writing, changing nothing.
        try:
            os.close(os.open(real, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
        except OSError as exc:
            raise WriteFailure(_path_error("open", path, exc)) from exc
    try:
        write_atomic(real, data, mode=before.mode)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise WriteFailure(_path_error("open", path, exc)) from exc
        raise WriteFailure(_path_error("write", path, exc)) from exc

"""Replacing a file atomically: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import contextlib
import os
import secrets

from memref._faults import mutation

__all__ = ["write_all_and_sync", "write_atomic"]


def write_atomic(path: str, data: bytes, *, mode: int = 0o644, mtime_ns: int | None = None) -> None:
    """Make ``path`` hold exactly ``data``, or leave it as it was.

    The bytes go to a new file beside ``path`` (created with ``mode``, subject to
    the umask), which is flushed to disk, given ``mtime_ns`` as its access and
    modification time when set, and renamed over ``path``; the directory is
    then flushed so the rename itself is durable. Raises ``OSError``.
    """
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    mutation("create")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            write_all_and_sync(fd, data)
        finally:
            os.close(fd)
        if mtime_ns is not None:
            mutation("utime")
            os.utime(temporary, ns=(mtime_ns, mtime_ns))
        mutation("rename")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(directory or ".")


def write_all_and_sync(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``, then flush it to disk, announcing each
    mutation (memref._faults)."""
    view = memoryview(data)
    while view:
        mutation("write")
        view = view[os.write(fd, view) :]
    mutation("fsync")
    os.fsync(fd)


def _sync_directory(directory: str) -> None:
    # Some filesystems cannot fsync a directory; the data itself is already durable.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

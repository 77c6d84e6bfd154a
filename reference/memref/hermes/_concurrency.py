"""The lock of a target file: ``flock`` on its ``.lock`` sidecar (spec/hermes.md,
"Concurrency")."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

from memref._faults import mutation
from memref.hermes._constants import LOCK_SUFFIX

__all__ = ["locked"]


@contextlib.contextmanager
def locked(path: str) -> Iterator[None]:
    """Hold an exclusive flock on ``<path>.lock`` for the block, creating the file (and
    leaving it behind). Each call opens its own descriptor, so threads exclude each
    other as processes do. Raises OSError when the lock file cannot be opened."""
    lock_path = path + LOCK_SUFFIX
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
    try:
        fd = os.open(lock_path, flags)
    except FileNotFoundError:
        mutation("create")
        fd = os.open(lock_path, flags | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

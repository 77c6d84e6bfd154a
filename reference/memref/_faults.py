"""Counting filesystem mutations, and failing the k-th one on request.

Every memref writer calls ``mutation(what)`` just before it changes the filesystem
(create, write, fsync, rename, mkdir, unlink, rmdir, chmod, symlink, utime). Outside
``counting()`` the call does nothing. Inside, it counts, and at the mutation named by
``fail_mutation`` it raises ``OSError(EIO)`` instead, so the change does not happen.
This is the protocol's capability ``fault-injection`` (spec/protocol.md, "Faults").
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["MutationCounter", "counting", "mutation"]


@dataclass
class MutationCounter:
    fail_mutation: int | None = None
    attempted: int = 0


_CURRENT: contextvars.ContextVar[MutationCounter | None] = contextvars.ContextVar(
    "memref_mutations", default=None
)


@contextlib.contextmanager
def counting(fail_mutation: int | None = None) -> Iterator[MutationCounter]:
    """Count the mutations made inside the block; fail the ``fail_mutation``-th one."""
    counter = MutationCounter(fail_mutation)
    token = _CURRENT.set(counter)
    try:
        yield counter
    finally:
        _CURRENT.reset(token)


def mutation(what: str) -> None:
    """Announce one filesystem mutation; raises OSError(EIO) when it is the one to fail."""
    counter = _CURRENT.get()
    if counter is None:
        return
    counter.attempted += 1
    if counter.attempted == counter.fail_mutation:
        raise OSError(errno.EIO, f"injected fault at mutation {counter.attempted} ({what})")

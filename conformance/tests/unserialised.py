"""memref with what serialises its concurrent writers taken out, for measuring how
reliably each concurrency case catches an implementation that lacks it.

``unlocked()`` patches memref, for the duration of the block and in this process only,
so that every op a concurrency case sends does its read-modify-write unguarded:

- ``memorytool.call``: no ``flock`` on the home directory around reading MEMORY.md and
  writing it back (the file is still replaced by a rename, without ``fsync``, as a port
  that does not sync writes it);
- ``factstore.migrate_codebase``: the lock files are created but never locked;
- ``factstore.write``: the fact goes through one temporary name per directory, opened
  with truncation and renamed, so concurrent writers share it;
- ``turnlog.write``: a name is checked with ``lstat`` and then written (rename over it,
  no ``fsync``), as the seed's ``uniquePath`` and ``os.WriteFile`` do;
- ``turnlog.index_file``: SQLite opens the index with ``nolock=1``, so transactions of
  different connections are not serialised;
- ``memories.call``: ``create`` checks that the name is free and then renames its file
  over it, instead of claiming the name exclusively;
- ``hermes.call``: no ``flock`` on the target's ``.lock`` file around reading it and
  writing it back (the file is still replaced by a rename, without ``fsync``).

``torn()`` keeps every lock but writes as ``in_place()`` does, and ``automemory`` writes
its memory file in place too: one write that fails half way leaves a torn file.

``in_place()`` makes the memory tools write their files as Go's ``os.WriteFile`` does:
truncate, then write, without a lock (``memorytool`` and ``hermes``); ``memories``
creates a file under its final name and then writes it, and rewrites one in place.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import types
from collections.abc import Iterator
from typing import Any

import pytest

from memref.memories._files import replace
from memref.turnlog import _write as turnlog_write
from memref.turnlog._write import candidates

__all__ = ["UNLOCKED_OPS", "in_place", "torn", "unlocked"]

UNLOCKED_OPS = frozenset(
    {
        "memorytool.call",
        "factstore.migrate_codebase",
        "factstore.write",
        "turnlog.write",
        "turnlog.index_file",
        "memories.call",
        "hermes.call",
    }
)


@contextlib.contextmanager
def _no_lock(*_: Any) -> Iterator[None]:
    yield


@contextlib.contextmanager
def _lock_file_only(path: str) -> Iterator[None]:
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
    yield


def _write_and_rename(temporary: str, path: str, data: bytes, mode: int) -> None:
    """Write ``temporary`` (truncating whatever is there) and rename it to ``path``."""
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _shared_temporary(path: str, data: bytes, *, sync_dir: bool = True) -> None:
    _write_and_rename(os.path.join(os.path.dirname(path), ".memory.tmp"), path, data, 0o600)


def _renamed_unsynced(path: str, data: bytes, before: Any) -> None:
    real = os.path.realpath(path)
    _write_and_rename(f"{real}.{secrets.token_hex(6)}.tmp", real, data, before.mode)


def _check_then_write(directory: str, base: str, data: bytes) -> str:
    for name in candidates(base):
        final = os.path.join(directory, name)
        if not os.path.lexists(final):
            _write_and_rename(f"{final}.{secrets.token_hex(6)}.tmp", final, data, 0o644)
            return final
    raise AssertionError("no free name")


def _checked_then_renamed(directory: int, name: str, data: bytes) -> bool:
    try:
        os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        replace(directory, name, data)
        return True
    return False


def _connect_without_locks(path: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?nolock=1", *args, uri=True, **kwargs)


def _in_place_write(path: str, data: bytes, before: Any) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def _renamed_unsynced_text(path: str, text: str) -> None:
    _renamed_unsynced(path, text.encode("utf-8"), types.SimpleNamespace(mode=0o600))


def _in_place_text(path: str, text: str) -> None:
    _in_place_write(path, text.encode("utf-8"), None)


def _created_then_written(directory: int, name: str, data: bytes) -> bool:
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=directory)
    except FileExistsError:
        return False
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return True


def _rewritten_in_place(directory: int, name: str, data: bytes) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_TRUNC, dir_fd=directory)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


@contextlib.contextmanager
def unlocked() -> Iterator[None]:
    """memref without its locks and exclusive claims, inside the block."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memref.memorytool._actions.locked", _no_lock)
        patch.setattr("memref.memorytool._actions.write_target", _renamed_unsynced)
        patch.setattr("memref.factstore._migrate_codebase.flocked", _lock_file_only)
        patch.setattr("memref.factstore._write._write_file_atomic", _shared_temporary)
        patch.setattr(turnlog_write, "_claim", _check_then_write)
        patch.setattr("memref.memories._create.create_exclusive", _checked_then_renamed)
        patch.setattr("memref.hermes._tool.locked", _no_lock)
        patch.setattr("memref.hermes._tool.write_file", _renamed_unsynced_text)
        patch.setattr(
            "memref.turnlog._store.sqlite3",
            types.SimpleNamespace(connect=_connect_without_locks, Error=sqlite3.Error),
        )
        yield


def _write_in_place(patch: pytest.MonkeyPatch) -> None:
    """The memory tools' writers truncating and writing their files in place."""
    patch.setattr("memref.memorytool._actions.write_target", _in_place_write)
    patch.setattr("memref.hermes._tool.write_file", _in_place_text)
    patch.setattr("memref.memories._create.create_exclusive", _created_then_written)
    patch.setattr("memref.memories._str_replace.replace", _rewritten_in_place)
    patch.setattr("memref.memories._insert.replace", _rewritten_in_place)


@contextlib.contextmanager
def in_place() -> Iterator[None]:
    """memref's memory tools writing as the Go port does: truncate, write, no lock."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memref.memorytool._actions.locked", _no_lock)
        patch.setattr("memref.hermes._tool.locked", _no_lock)
        _write_in_place(patch)
        yield


def _in_place_bytes(path: str, data: bytes) -> None:
    _in_place_write(path, data, None)


def _in_place_backup(path: str, text: str) -> bool:
    try:
        _in_place_text(path, text)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def torn() -> Iterator[None]:
    """memref's writers of the four memory profiles truncating and writing in place,
    with their locks kept."""
    with pytest.MonkeyPatch.context() as patch:
        _write_in_place(patch)
        patch.setattr("memref.hermes._tool.write_backup", _in_place_backup)
        patch.setattr("memref.automemory._writer.write_atomic", _in_place_bytes)
        yield

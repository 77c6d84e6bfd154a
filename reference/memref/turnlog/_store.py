"""The index of summary files: one SQLite table, ``memory_turn_index``, one row per path.

The database is the file ``turnlog.db`` inside the store directory. Every call runs in
its own transaction, so several connections (threads or processes) may share the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from memref._faults import mutation
from memref._gostr import decode, encode, errno_text
from memref.errors import OpError
from memref.turnlog._constants import DB_FILE
from memref.turnlog._outline import outline
from memref.turnlog._write import ZERO_NS, Meta, kind_for

__all__ = ["SCHEMA", "Entry", "Store", "unix_milli"]

SCHEMA = """\
CREATE TABLE IF NOT EXISTS memory_turn_index (
    path TEXT PRIMARY KEY,
    session_id TEXT NOT NULL DEFAULT '',
    project_id TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    outline TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL DEFAULT 0,
    indexed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_turn_project ON memory_turn_index(project_id);
CREATE INDEX IF NOT EXISTS idx_memory_turn_session ON memory_turn_index(session_id);
"""

_COLUMNS = "path, session_id, project_id, title, outline, created_at, indexed_at"
_UPSERT = f"INSERT OR REPLACE INTO memory_turn_index ({_COLUMNS}) VALUES (?,?,?,?,?,?,?)"
_ORDER = "ORDER BY created_at DESC, path DESC"
_BUSY_TIMEOUT_S = 5.0


def unix_milli(ns: int) -> int:
    """Go's ``UnixMilli``: milliseconds, floored."""
    return ns // 1_000_000


@dataclass(frozen=True)
class Entry:
    path: str
    session_id: str = ""
    project_id: str = ""
    title: str = ""
    outline: str = ""
    created_at: int = 0  # unix ms
    indexed_at: int = 0  # unix ms


def _bind(text: str) -> str | bytes:
    # Text that is not valid UTF-8 (from a file's bytes) is kept byte for byte as a BLOB.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return encode(text)
    return text


def _unbind(value: Any) -> str:
    if isinstance(value, bytes):
        return decode(value)
    return str(value)


def _entry(row: tuple[Any, ...]) -> Entry:
    return Entry(
        _unbind(row[0]),
        _unbind(row[1]),
        _unbind(row[2]),
        _unbind(row[3]),
        _unbind(row[4]),
        int(row[5]),
        int(row[6]),
    )


def _mutation(what: str, step: str) -> None:
    """Announce a mutation; an injected or real failure becomes the op's error."""
    try:
        mutation(what)
    except OSError as exc:
        raise OpError(kind_for(exc), f"memfile: {step}: {exc.strerror or exc}") from exc


def _db_error(what: str, exc: sqlite3.Error) -> OpError:
    kind = "locked" if "locked" in str(exc) or "busy" in str(exc) else "io"
    return OpError(kind, f"memfile: {what}: {exc}")


class Store:
    """An open index. Use as a context manager, or call ``close``."""

    def __init__(self, store_dir: str) -> None:
        self.path = os.path.join(store_dir, DB_FILE)
        try:
            _make_dirs(store_dir)
        except OSError as exc:
            where = f"mkdir {exc.filename}: {errno_text(exc.errno)}" if exc.filename else exc
            raise OpError(kind_for(exc), f"memfile: open index: {where}") from exc
        except ValueError as exc:
            raise OpError("invalid-args", f"memfile: open index: {exc}") from exc
        if os.path.isdir(self.path):
            raise OpError("is-a-directory", f"memfile: open index: {self.path}: is a directory")
        if not os.path.lexists(self.path):
            _mutation("create", "open index")
        try:
            self._db = sqlite3.connect(
                self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise _db_error("open index", exc) from exc
        try:
            self._db.execute("PRAGMA foreign_keys=1")
            if not self._has_table():
                _mutation("schema", "open index")
                with self._transaction():
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
        except sqlite3.Error as exc:
            self._db.close()
            raise _db_error("open index", exc) from exc
        except BaseException:
            self._db.close()
            raise

    def _has_table(self) -> bool:
        row = self._db.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='memory_turn_index'"
        ).fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def is_indexed(self, path: str) -> bool:
        try:
            row = self._db.execute(
                "SELECT COUNT(*) FROM memory_turn_index WHERE path = ?", (_bind(path),)
            ).fetchone()
        except sqlite3.Error as exc:
            raise _db_error("check indexed", exc) from exc
        return bool(row[0] > 0)

    def upsert(self, entry: Entry, now_ns: int) -> Entry:
        """Insert or replace the row; an ``indexed_at`` of 0 becomes ``now``. Returns the row."""
        return self.upsert_many([entry], now_ns)[0]

    def upsert_many(self, entries: Iterable[Entry], now_ns: int) -> list[Entry]:
        rows = [e if e.indexed_at else replace(e, indexed_at=unix_milli(now_ns)) for e in entries]
        try:
            _mutation("sqlite", "upsert")
            with self._transaction():
                self._db.executemany(
                    _UPSERT,
                    [
                        (
                            _bind(e.path),
                            _bind(e.session_id),
                            _bind(e.project_id),
                            _bind(e.title),
                            _bind(e.outline),
                            e.created_at,
                            e.indexed_at,
                        )
                        for e in rows
                    ],
                )
        except sqlite3.Error as exc:
            raise _db_error("upsert", exc) from exc
        return rows

    def index_file(self, path: str, meta: Meta, now_ns: int) -> Entry:
        return self.index_files([(path, meta)], now_ns)[0]

    def index_files(self, items: Iterable[tuple[str, Meta]], now_ns: int) -> list[Entry]:
        """IndexFile for each item, all in one transaction."""
        entries = []
        for path, meta in items:
            created = now_ns if meta.created_at == ZERO_NS else meta.created_at
            entries.append(
                Entry(
                    path,
                    meta.session_id,
                    meta.project_id,
                    meta.title,
                    outline(path),
                    unix_milli(created),
                )
            )
        return self.upsert_many(entries, now_ns)

    def _list(self, column: str, value: str) -> list[Entry]:
        try:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM memory_turn_index WHERE {column} = ? {_ORDER}",
                (_bind(value),),
            ).fetchall()
        except sqlite3.Error as exc:
            raise _db_error("list", exc) from exc
        return [_entry(row) for row in rows]

    def list_by_project(self, project_id: str) -> list[Entry]:
        return self._list("project_id", project_id)

    def list_by_session(self, session_id: str) -> list[Entry]:
        return self._list("session_id", session_id)

    def purge_missing(self, project_id: str) -> None:
        """Drop this project's rows whose file does not exist (ENOENT only)."""
        gone = [e.path for e in self.list_by_project(project_id) if _missing(e.path)]
        if not gone:
            return
        try:
            _mutation("sqlite", "purge")
            with self._transaction():
                self._db.executemany(
                    "DELETE FROM memory_turn_index WHERE path = ?",
                    [(_bind(path),) for path in gone],
                )
        except sqlite3.Error as exc:
            raise _db_error("purge", exc) from exc


def _missing(path: str) -> bool:
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return False


def _make_dirs(directory: str) -> None:
    if os.path.isdir(directory):
        return
    parent = os.path.dirname(directory.rstrip("/"))
    if parent and parent != directory:
        _make_dirs(parent)
    mutation("mkdir")
    try:
        os.mkdir(directory, 0o755)
    except FileExistsError:
        if not os.path.isdir(directory):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", directory) from None

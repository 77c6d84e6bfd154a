"""Store.Read, Store.Delete and Store.List."""

from __future__ import annotations

import errno
import os
import stat

from memref._faults import mutation
from memref._gostr import decode, encode, errno_text
from memref.errors import OpError
from memref.factstore._files import ReadError, kind_of, list_dir, read_regular
from memref.factstore._format import FactFormatError, Memory, go_quote, parse_fact
from memref.factstore._names import StoreDirs, resolve

__all__ = ["delete", "is_reserved", "list_facts", "read"]


def is_reserved(filename: str) -> bool:
    """``MEMORY.md`` and every ``MEMORY.md.*`` are never facts."""
    return filename == "MEMORY.md" or filename.startswith("MEMORY.md.")


def _load(path: str, scope: str, name: str) -> Memory:
    memory = parse_fact(decode(read_regular(path)))
    memory.name = name
    memory.scope = scope
    memory.path = path
    return memory


def read(dirs: StoreDirs, fact_id: str) -> Memory | None:
    """The fact, or None when its file does not exist."""
    where = resolve(dirs, fact_id)
    try:
        return _load(where.path, where.scope, where.name)
    except ReadError as exc:
        if exc.cause.errno == errno.ENOENT:
            return None
        raise OpError(kind_of(exc.cause), exc.message) from exc
    except FactFormatError as exc:
        raise OpError("invalid-input", str(exc)) from exc


def delete(dirs: StoreDirs, fact_id: str) -> None:
    where = resolve(dirs, fact_id)
    try:
        mode = os.lstat(where.path).st_mode
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise OpError("not-found", f"memory {go_quote(fact_id)} not found") from exc
        raise OpError(kind_of(exc), f"remove {where.path}: {errno_text(exc.errno)}") from exc
    try:
        mutation("unlink")
        if stat.S_ISDIR(mode):
            os.rmdir(where.path)
        else:
            os.unlink(where.path)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise OpError("not-found", f"memory {go_quote(fact_id)} not found") from exc
        raise OpError(kind_of(exc), f"remove {where.path}: {errno_text(exc.errno)}") from exc


def _scan(directory: str, scope: str, into: dict[str, Memory]) -> None:
    for filename, mode in list_dir(directory):
        if stat.S_ISDIR(mode) or not filename.endswith(".md") or is_reserved(filename):
            continue
        name = filename[:-3]
        try:
            memory = _load(os.path.join(directory, filename), scope, name)
        except (ReadError, FactFormatError):
            continue
        into[memory.id] = memory


def list_facts(dirs: StoreDirs) -> list[Memory]:
    """Both scopes: project first, then by name in byte order."""
    found: dict[str, Memory] = {}
    _scan(dirs.global_dir, "global", found)
    _scan(dirs.project_dir, "project", found)
    return sorted(found.values(), key=lambda m: (m.scope != "project", encode(m.name)))

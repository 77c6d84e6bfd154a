"""Store.MigrateV1IfNeeded: wrap a flat v1 MEMORY.md into one fact, then retire it."""

from __future__ import annotations

import errno
import os
import re

from memref._gostr import decode, encode, errno_text, trim_space
from memref.errors import OpError
from memref.factstore._constants import V1_BACKUP_FILE, V1_DESCRIPTION, V1_FACT_NAME
from memref.factstore._files import (
    ReadError,
    SaveError,
    go_rename,
    kind_of,
    list_dir,
    mkdir_all,
    mkdir_message,
    read_regular,
    write_file_atomic,
)
from memref.factstore._format import FactFormatError, Memory, parse_fact, rename_fact_header
from memref.factstore._format import serialize as _serialize

__all__ = ["first_free", "migrate_v1_if_needed", "v1_fact", "v1_fact_bytes"]

_HELD = re.compile(re.escape(V1_FACT_NAME) + r"(-.*)?")


def v1_fact(content: str) -> Memory:
    return Memory(V1_FACT_NAME, V1_DESCRIPTION, "project", "", True, content, "project")


def v1_fact_bytes(content: str) -> bytes:
    return encode(_serialize(v1_fact(content)))


def first_free(directory: str, name: str) -> str:
    """``name`` when no ``name.md`` exists in ``directory``, else the first free ``name-N``."""
    if not os.path.lexists(os.path.join(directory, name + ".md")):
        return name
    n = 2
    while os.path.lexists(os.path.join(directory, f"{name}-{n}.md")):
        n += 1
    return f"{name}-{n}"


def _held(project_dir: str, data: bytes) -> bool:
    """Whether a ``notas-legado-v1[-*]`` file holds the notes: its trimmed bytes equal the
    new fact's (or those with the file's own name in the ``name:`` line), or its parsed
    body equals the new fact's parsed body."""
    wanted = trim_space(decode(data))
    body = parse_fact(decode(data)).body
    for filename, _ in list_dir(project_dir):
        if not filename.endswith(".md") or not _HELD.fullmatch(filename[:-3]):
            continue
        try:
            existing = read_regular(os.path.join(project_dir, filename))
        except ReadError:
            continue
        have = trim_space(decode(existing))
        if have == wanted or have == trim_space(decode(rename_fact_header(data, filename[:-3]))):
            return True
        try:
            if parse_fact(decode(existing)).body == body:
                return True
        except FactFormatError:
            continue
    return False


def _retire(flat: str) -> None:
    backup = os.path.join(os.path.dirname(flat), V1_BACKUP_FILE)
    try:
        go_rename(flat, backup)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return  # another run retired it first
        raise OpError(kind_of(exc), f"rename {flat} {backup}: {errno_text(exc.errno)}") from exc


def migrate_v1_if_needed(flat: str, project_dir: str) -> bool:
    """Wrap ``flat`` into ``project_dir``; True when a fact was written."""
    try:
        content = decode(read_regular(flat))
    except ReadError as exc:
        if exc.cause.errno == errno.ENOENT:
            return False
        raise OpError(kind_of(exc.cause), exc.message) from exc
    if trim_space(content) == "":
        _retire(flat)
        return False
    try:
        mkdir_all(project_dir, 0o700)
    except OSError as exc:
        raise OpError(kind_of(exc), mkdir_message(exc)) from exc
    data = v1_fact_bytes(content)
    wrote = False
    if not _held(project_dir, data):
        # A different fact already holding the name is kept; the notes take a suffix.
        target = first_free(project_dir, V1_FACT_NAME)
        if target != V1_FACT_NAME:
            data = rename_fact_header(data, target)
        try:
            write_file_atomic(os.path.join(project_dir, target + ".md"), data)
        except SaveError as exc:
            raise OpError(kind_of(exc.cause), f"{exc.stage} memory: {exc.message}") from exc
        wrote = True
    _retire(flat)
    return wrote

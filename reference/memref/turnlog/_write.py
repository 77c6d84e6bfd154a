"""``Write``: one summary file with hand-built frontmatter, under a name no one else holds.

The final name is claimed with ``link(2)`` from a fully written and flushed temporary file:
the link fails with EEXIST when the name is taken, so two writers (threads or processes)
never share a name, and a reader never sees a partial file under a ``.md`` name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from dataclasses import dataclass

from memref import _gopath
from memref._atomic import write_all_and_sync
from memref._faults import mutation
from memref._gostr import encode, errno_text, trim_space
from memref._time import format_rfc3339, parse_rfc3339
from memref.errors import OpError, kind_for_errno
from memref.turnlog._constants import (
    EMPTY_BODY_ERROR,
    MAX_COLLISION_SUFFIX,
    STATE_DIR,
    SUB_DIR,
)
from memref.turnlog._filename import filename

__all__ = ["ZERO_NS", "Meta", "build_content", "candidates", "memory_dir", "write", "yaml_string"]

ZERO_NS = parse_rfc3339("0001-01-01T00:00:00Z")


def kind_for(exc: OSError) -> str:
    return kind_for_errno(exc.errno)


@dataclass(frozen=True)
class Meta:
    session_id: str = ""
    project_id: str = ""
    session_type: str = ""
    title: str = ""
    created_at: int = ZERO_NS  # epoch ns; ZERO_NS is Go's zero time


def memory_dir(project_dir: str) -> str:
    """``filepath.Join(projectDir, ".ogcode", "memory")``: joined, then cleaned lexically."""
    return _gopath.clean(
        f"{project_dir}/{STATE_DIR}/{SUB_DIR}" if project_dir else f"{STATE_DIR}/{SUB_DIR}"
    )


def yaml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def build_content(meta: Meta, created_ns: int, body: str) -> bytes:
    text = (
        "---\n"
        f"title: {yaml_string(meta.title)}\n"
        f"session_id: {yaml_string(meta.session_id)}\n"
        f"session_type: {yaml_string(meta.session_type)}\n"
        f"project_id: {yaml_string(meta.project_id)}\n"
        f"created_at: {format_rfc3339(created_ns)}\n"
        "---\n"
        "\n"
        f"{body.rstrip(chr(10))}\n"
    )
    return encode(text)


def candidates(base: str) -> list[str]:
    stem = base[: -len(".md")]
    return [base] + [f"{stem}-{n}.md" for n in range(2, MAX_COLLISION_SUFFIX + 1)]


def write(project_dir: str, meta: Meta, body: str, now_ns: int) -> str:
    """Write the summary; return its path. Raises OpError."""
    if trim_space(body) == "":
        raise OpError("invalid-input", EMPTY_BODY_ERROR)
    directory = memory_dir(project_dir)
    try:
        _make_dirs(directory)
    except OSError as exc:
        raise OpError(
            kind_for(exc), f"memfile: create memory dir: {_describe(exc, 'mkdir')}"
        ) from exc
    created = now_ns if meta.created_at == ZERO_NS else meta.created_at
    data = build_content(meta, created, body)
    base = filename(created, meta.session_id, meta.title)
    try:
        return _claim(directory, base, data)
    except OSError as exc:
        raise OpError(kind_for(exc), f"memfile: write summary: {_describe(exc, 'open')}") from exc


def _describe(exc: OSError, op: str) -> str:
    """Go's ``*PathError`` text: ``<op> <path>: <reason>``."""
    if exc.filename is None:
        return str(exc.strerror or exc)
    return f"{op} {exc.filename}: {errno_text(exc.errno)}"


def _make_dirs(directory: str) -> None:
    if os.path.isdir(directory):
        return
    parent = os.path.dirname(directory)
    if parent and parent != directory:
        _make_dirs(parent)
    mutation("mkdir")
    try:
        os.mkdir(directory, 0o755)
    except FileExistsError:
        if not os.path.isdir(directory):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", directory) from None


def _claim(directory: str, base: str, data: bytes) -> str:
    temporary = os.path.join(directory, f".{secrets.token_hex(8)}.tmp")
    mutation("create")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        try:
            write_all_and_sync(fd, data)
        finally:
            os.close(fd)
        for name in candidates(base):
            final = os.path.join(directory, name)
            mutation("link")
            try:
                os.link(temporary, final, follow_symlinks=False)
            except FileExistsError:
                continue
            _sync_directory(directory)
            return _gopath.clean(final)
        raise OpError(
            "exists",
            f"memfile: write summary: no free name for {base} in {directory}: it and its "
            f"suffixes -2 to -{MAX_COLLISION_SUFFIX} all exist",
        )
    finally:
        with contextlib.suppress(OSError):
            mutation("unlink")
            os.unlink(temporary)


def _sync_directory(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

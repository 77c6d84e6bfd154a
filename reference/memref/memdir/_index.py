"""Reading a memory file with its 64 KiB cap, and the MEMORY.md line and byte caps."""

from __future__ import annotations

import errno
import os

from memref._gostr import decode, encode, trim_space
from memref.memdir._constants import MAX_FILE_BYTES, MAX_INDEX_BYTES, MAX_INDEX_LINES
from memref.memdir._fileio import (
    NotRegularFile,
    PathError,
    open_for_read,
    os_errno,
    read_at_most,
)
from memref.memdir._paths import memory_index_path

__all__ = ["read_index", "read_mem_file", "truncate_index"]


def read_mem_file(path: str) -> tuple[str, str]:
    """Read at most ``MAX_FILE_BYTES`` bytes of ``path``: ``(content, warning)``.

    A missing file is ``("", "")``. Any other failure is ``("", warning)``. A file
    that is neither regular nor a directory (a FIFO, a device) is refused with a
    read warning rather than read. Content beyond the cap is cut at a raw byte
    offset, which may split a UTF-8 sequence.
    """
    try:
        fd = open_for_read(path, allow_dir=True)
    except NotRegularFile:
        return "", f"memdir: read {path}: read {path}: not a regular file"
    except (OSError, ValueError) as exc:
        code = os_errno(exc)
        if code == errno.ENOENT:
            return "", ""
        return "", f"memdir: cannot read {path}: {PathError('open', path, code)}"
    try:
        data = read_at_most(fd, MAX_FILE_BYTES + 1)
    except OSError as exc:
        return "", f"memdir: read {path}: {PathError('read', path, os_errno(exc))}"
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        warning = (
            f"memdir: {path} truncated to {MAX_FILE_BYTES} bytes (cap {MAX_FILE_BYTES})"
        )
        return decode(data[:MAX_FILE_BYTES]), warning
    return decode(data), ""


def truncate_index(raw: str) -> tuple[str, str]:
    """Trim the index and apply its caps: ``(body, warning)``.

    Lines are cut first (200), then bytes (25000) at the last newline before the
    cap, or at the cap itself when there is none. When a cap fired, the body ends
    with ``"\\n\\n> WARNING: " + warning``; ``warning`` is ``""`` otherwise.
    """
    trimmed = trim_space(raw)
    if not trimmed:
        return "", ""
    lines = trimmed.split("\n")
    line_count = len(lines)
    byte_count = len(encode(trimmed))
    over_lines = line_count > MAX_INDEX_LINES
    over_bytes = byte_count > MAX_INDEX_BYTES
    if not over_lines and not over_bytes:
        return trimmed, ""
    truncated = "\n".join(lines[:MAX_INDEX_LINES]) if over_lines else trimmed
    data = encode(truncated)
    if len(data) > MAX_INDEX_BYTES:
        cut = data.rfind(b"\n", 0, MAX_INDEX_BYTES)
        truncated = decode(data[:cut] if cut > 0 else data[:MAX_INDEX_BYTES])
    if over_bytes and not over_lines:
        reason = f"{byte_count} bytes (limit {MAX_INDEX_BYTES}) — index entries are too long"
    elif over_lines and not over_bytes:
        reason = f"{line_count} lines (limit {MAX_INDEX_LINES})"
    else:
        reason = f"{line_count} lines and {byte_count} bytes"
    warning = (
        f"MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )
    return truncated + "\n\n> WARNING: " + warning, warning


def read_index(app_home: str) -> tuple[str, str]:
    """Read ``<app_home>/memory/MEMORY.md`` ready for the prompt: ``(body, warning)``.

    As in evva, a failure to read the file yields ``("", "")``; only ``load``
    reports it.
    """
    path = memory_index_path(app_home)
    if not path:
        return "", ""
    raw, _ = read_mem_file(path)
    return truncate_index(raw)

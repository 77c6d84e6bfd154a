"""Reading a memory file with its 64 KiB cap, and the MEMORY.md line and byte caps."""

from __future__ import annotations

import errno
import os

from memref._gostr import SPACE_CHARS, decode, encode, trim_space
from memref.memdir._constants import MAX_FILE_BYTES, MAX_INDEX_BYTES, MAX_INDEX_LINES
from memref.memdir._fileio import (
    NotRegularFile,
    PathError,
    open_for_read,
    os_errno,
    read_capped,
)
from memref.memdir._paths import memory_index_path

__all__ = [
    "read_index",
    "read_index_file",
    "read_mem_file",
    "truncate_index",
    "truncate_index_bytes",
]


def _read_mem_bytes(path: str) -> tuple[bytes, str]:
    """``read_mem_file`` before decoding: ``(content bytes, warning)``."""
    try:
        fd = open_for_read(path, allow_dir=True)
    except NotRegularFile:
        return b"", f"memdir: read {path}: read {path}: not a regular file"
    except (OSError, ValueError) as exc:
        code = os_errno(exc)
        if code == errno.ENOENT:
            return b"", ""
        return b"", f"memdir: cannot read {path}: {PathError('open', path, code)}"
    try:
        data, truncated = read_capped(fd, MAX_FILE_BYTES)
    except OSError as exc:
        return b"", f"memdir: read {path}: {PathError('read', path, os_errno(exc))}"
    finally:
        os.close(fd)
    if truncated:
        warning = f"memdir: {path} truncated to {MAX_FILE_BYTES} bytes (cap {MAX_FILE_BYTES})"
        return data, warning
    return data, ""


def read_mem_file(path: str) -> tuple[str, str]:
    """Read at most ``MAX_FILE_BYTES`` bytes of ``path``: ``(content, warning)``.

    A missing file is ``("", "")``. Any other failure is ``("", warning)``. A file
    that is neither regular nor a directory (a FIFO, a device) is refused with a
    read warning rather than read. Content beyond the cap is cut at a raw byte
    offset, which may split a UTF-8 sequence.
    """
    data, warning = _read_mem_bytes(path)
    return decode(data), warning


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
    return _with_warning(truncated, over_lines, over_bytes, line_count, byte_count)


# Decoding (UTF-8, surrogateescape) a slice cut at any byte gives the characters of
# the whole, except near a cut: a sequence is at most 4 bytes, so at most the 3 bytes
# of a sequence the cut splits decode differently (each escaped on its own). A cut
# where a character starts (an ASCII byte is always one) or at an end of the data
# changes nothing.
_SPLIT_CHARS = 3
_WINDOW = 64
_ASCII_SPACES = encode("".join(char for char in SPACE_CHARS if char.isascii()))


def _space_prefix_end(data: bytes) -> int:
    """The byte offset where ``trim_space(decode(data))`` starts."""
    size = len(data)
    if size and data[0] < 0x80 and data[0] not in _ASCII_SPACES:
        return 0
    width = _WINDOW
    while True:
        head = decode(data[:width])
        rest = head.lstrip(SPACE_CHARS)
        # Past the first 3 characters of ``rest``, a split sequence cannot matter.
        if len(rest) > _SPLIT_CHARS or width >= size:
            return len(encode(head[: len(head) - len(rest)]))
        width *= 2


def _space_suffix_start(data: bytes, start: int) -> int:
    """The byte offset where ``trim_space(decode(data))`` ends, given where it starts.

    ``start`` is where a character that is not white space starts.
    """
    end = len(data)
    if data[end - 1] in _ASCII_SPACES:
        # Not past ``start``: the character there is not ASCII white space.
        end = len(data.rstrip(_ASCII_SPACES))
    if data[end - 1] < 0x80:
        return end
    width = _WINDOW
    while True:
        begin = max(start, end - width)
        tail = decode(data[begin:end])
        kept = tail.rstrip(SPACE_CHARS)
        # Before the last 3 characters of ``kept``, a split sequence cannot matter.
        if len(kept) > _SPLIT_CHARS or begin == start:
            return end - len(encode(tail[len(kept) :]))
        width *= 2


# Below this many bytes, counting every newline costs less than finding 200 of them.
_COUNT_BELOW = 8192


def _nth_newline(data: bytes, start: int, end: int, count: int) -> int:
    """The offset of the ``count``-th ``\\n`` in ``data[start:end]``; -1 if there are fewer."""
    last = data.rfind(b"\n", start, end)
    if last < 0:
        return -1
    # The newlines all lie in data[start:last + 1].
    if last - start < _COUNT_BELOW and data.count(b"\n", start, last + 1) < count:
        return -1
    position = start - 1
    for _ in range(count):
        position = data.find(b"\n", position + 1, last + 1)
        if position < 0:
            return -1
    return position


def truncate_index_bytes(raw: bytes) -> tuple[str, str]:
    """``truncate_index(decode(raw))``, working on the bytes it keeps.

    The trimmed text is ``raw[start:end]``: its byte count is ``end - start`` and its
    line count one more than its newline bytes. Lines are cut at the 200th newline
    and bytes at the last newline before the byte cap, found with ``find`` and
    ``rfind``; only the kept bytes are decoded. All the newlines are counted only
    for the line count a warning reports.
    """
    start = _space_prefix_end(raw)
    if start == len(raw):
        return "", ""
    end = _space_suffix_start(raw, start)
    byte_count = end - start
    over_bytes = byte_count > MAX_INDEX_BYTES
    # "\n".join(lines[:200]) is the text before the 200th newline.
    line_cut = _nth_newline(raw, start, end, MAX_INDEX_LINES)
    over_lines = line_cut >= 0
    if not over_lines and not over_bytes:
        return decode(raw[start:end]), ""
    kept_end = line_cut if over_lines else end
    if kept_end - start > MAX_INDEX_BYTES:
        cut = raw.rfind(b"\n", start, start + MAX_INDEX_BYTES)
        kept_end = cut if cut - start > 0 else start + MAX_INDEX_BYTES
    truncated = decode(raw[start:kept_end])
    line_count = raw.count(b"\n", start, end) + 1 if over_lines else 0
    return _with_warning(truncated, over_lines, over_bytes, line_count, byte_count)


def _with_warning(
    truncated: str, over_lines: bool, over_bytes: bool, line_count: int, byte_count: int
) -> tuple[str, str]:
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


def read_index_file(path: str) -> tuple[str, str, str]:
    """Read and cap the index at ``path``: ``(body, cap warning, read warning)``."""
    raw, read_warning = _read_mem_bytes(path)
    body, cap_warning = truncate_index_bytes(raw)
    return body, cap_warning, read_warning


def read_index(app_home: str) -> tuple[str, str]:
    """Read ``<app_home>/memory/MEMORY.md`` ready for the prompt: ``(body, warning)``.

    As in evva, a failure to read the file yields ``("", "")``; only ``load``
    reports it.
    """
    path = memory_index_path(app_home)
    if not path:
        return "", ""
    body, warning, _ = read_index_file(path)
    return body, warning

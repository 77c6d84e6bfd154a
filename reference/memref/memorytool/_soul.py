"""ComposeSoul: the seven bootstrap files as ``## <file>`` sections (Go port, home.go L40-82)."""

from __future__ import annotations

import os
import stat

from memref._gostr import decode, encode, trim_space
from memref.memorytool._constants import BOOTSTRAP_ORDER, MAX_FILE_BYTES, TRUNCATION_NOTICE

__all__ = ["compose_soul", "read_capped"]


def read_capped(path: str) -> bytes | None:
    """The file cut to MAX_FILE_BYTES (with the notice when cut), or None when not readable.

    Only a regular file (symlinks followed) is read; it is opened without blocking, so a
    FIFO in the tree is skipped instead of hanging the composition.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = MAX_FILE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE_BYTES:
        return data[:MAX_FILE_BYTES] + TRUNCATION_NOTICE.encode()
    return data


def _trim(body: bytes) -> bytes:
    """Go's strings.TrimSpace on bytes; decodes only when an end is not ASCII."""
    stripped = body.strip(b" \t\n\v\f\r")
    if stripped[:1] >= b"\x80" or stripped[-1:] >= b"\x80":
        return encode(trim_space(decode(stripped)))
    return stripped


def compose_soul(directory: str) -> tuple[bytes, list[str]]:
    """The composed soul and the bare names of the files found, in bootstrap order."""
    sections: list[bytes] = []
    found: list[str] = []
    for name in BOOTSTRAP_ORDER:
        body = read_capped(os.path.join(directory, name))
        if body is None:
            continue
        found.append(name)
        sections.append(b"## " + name.encode() + b"\n\n" + _trim(body))
    return b"\n\n".join(sections), found

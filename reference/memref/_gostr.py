"""String primitives with the semantics the seed implementations have in Go.

Text is a ``str`` in which bytes that are not valid UTF-8 are carried as lone
surrogates (the ``surrogateescape`` error handler), so a Go string round-trips.
"""

from __future__ import annotations

import errno

__all__ = [
    "SPACE_CHARS",
    "byte_len",
    "decode",
    "encode",
    "errno_text",
    "is_space",
    "to_lower",
    "trim_space",
]

# unicode.IsSpace: the Latin-1 spaces plus the White_Space property.
_SPACE_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_SPACES = frozenset(_SPACE_CHARS)
# The characters trim_space strips, for ``str.strip`` and friends.
SPACE_CHARS = _SPACE_CHARS


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def byte_len(text: str) -> int:
    return len(encode(text))


def is_space(char: str) -> bool:
    return char in _SPACES


def trim_space(text: str) -> str:
    """Go's ``strings.TrimSpace``: strip Unicode White_Space, and nothing else."""
    return text.strip(_SPACE_CHARS)


def _lower_rune(char: str) -> str:
    if "\udc80" <= char <= "\udcff":
        return "\ufffd"
    lowered = char.lower()
    # Simple case mapping: U+0130 is the one rune whose full mapping has two runes.
    return lowered if len(lowered) == 1 else lowered[0]


def to_lower(text: str) -> str:
    """Go's ``strings.ToLower``: per-rune simple case mapping; invalid bytes become U+FFFD."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_rune(char) for char in text)


# Go's syscall error strings (zerrors_linux), which differ from os.strerror in case.
_ERRNO_TEXT = {
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "not a directory",
    errno.EISDIR: "is a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EEXIST: "file exists",
    errno.ENOSPC: "no space left on device",
    errno.EROFS: "read-only file system",
    errno.ELOOP: "too many levels of symbolic links",
    errno.ENAMETOOLONG: "file name too long",
    errno.EINVAL: "invalid argument",
    errno.EIO: "input/output error",
}


def errno_text(code: int | None) -> str:
    if code is None:
        return "unknown error"
    return _ERRNO_TEXT.get(code) or _lower_first(errno_strerror(code))


def errno_strerror(code: int) -> str:
    import os

    return os.strerror(code)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]

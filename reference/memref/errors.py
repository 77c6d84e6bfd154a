"""The error every memref operation raises for a documented failure."""

from __future__ import annotations

import errno

__all__ = ["ERROR_KINDS", "OpError", "kind_for_errno"]

# The closed set of error kinds of the protocol (spec/protocol.md, "Error kinds").
ERROR_KINDS: frozenset[str] = frozenset(
    {
        "unknown-op",
        "invalid-args",
        "invalid-input",
        "not-found",
        "not-a-directory",
        "is-a-directory",
        "permission-denied",
        "exists",
        "no-space",
        "path-escape",
        "locked",
        "io",
        "unsupported",
        "internal",
    }
)


class OpError(Exception):
    """A documented failure of an operation, carrying a protocol error kind."""

    def __init__(self, kind: str, message: str) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.message = message


_ERRNO_KINDS = {
    errno.ENOENT: "not-found",
    errno.ENOTDIR: "not-a-directory",
    errno.EISDIR: "is-a-directory",
    errno.EACCES: "permission-denied",
    errno.EPERM: "permission-denied",
    errno.EEXIST: "exists",
    errno.ENOSPC: "no-space",
}


def kind_for_errno(code: int | None) -> str:
    """The protocol error kind of an operating-system error number; ``io`` for the rest."""
    return _ERRNO_KINDS.get(code, "io") if code is not None else "io"

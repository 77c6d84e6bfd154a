"""What the tool answers the model when a command fails, and how text is made sendable.

A failed command is never a protocol error: it is the tool's reply with ``is_error`` set,
and its text is what the application sends to the model. That text never holds a host
path: it names paths only as the model wrote them, below ``/memories``.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ToolFailure",
    "does_not_exist",
    "encoded",
    "failure_for_os_error",
    "integer",
    "string",
    "well_formed",
]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class ToolFailure(Exception):
    """A command that failed; ``text`` is the content the model gets."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def well_formed(text: str) -> str:
    """``text`` with every unpaired surrogate replaced by U+FFFD, so that it can be sent."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def does_not_exist(path: str) -> ToolFailure:
    return ToolFailure(f"The path {path} does not exist. Please provide a valid path.")


def string(tool_input: Mapping[str, Any], member: str) -> str:
    """The input's string member ``member``; a failure naming it when missing or not a string."""
    value = tool_input.get(member)
    if not isinstance(value, str):
        command = tool_input.get("command")
        raise ToolFailure(f"The {command} command needs a string {member}.")
    return value


def integer(tool_input: Mapping[str, Any], member: str) -> int:
    value = tool_input.get(member)
    if not isinstance(value, int) or isinstance(value, bool):
        command = tool_input.get("command")
        raise ToolFailure(f"The {command} command needs an integer {member}.")
    return value


def encoded(text: str, member: str) -> bytes:
    """``text`` as UTF-8; a failure when it holds an unpaired surrogate."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(
            f"The {member} holds an unpaired surrogate, which cannot be written as UTF-8."
        ) from None


_REASONS = {
    errno.ENAMETOOLONG: "a name in it is too long",
    errno.ENOTDIR: "a component of it is not a directory",
    errno.ELOOP: "it has too many levels of symbolic links",
    errno.EINVAL: "a directory cannot be moved into itself",
}


def failure_for_os_error(exc: OSError, path: str) -> ToolFailure:
    """A failure for an operating-system error on ``path``: its reason, never the host path."""
    reason = _REASONS.get(exc.errno or 0) or (
        os.strerror(exc.errno).lower() if exc.errno else "the operation failed"
    )
    return ToolFailure(f"The command failed on {path}: {reason}.")

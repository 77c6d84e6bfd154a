"""One call of the tool: the command the model sent, run on a base, and the reply."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memref.memories._constants import ROOT_DIR
from memref.memories._create import create
from memref.memories._delete import delete
from memref.memories._errors import ToolFailure, failure_for_os_error, well_formed
from memref.memories._files import make_root
from memref.memories._insert import insert
from memref.memories._paths import Root
from memref.memories._rename import move
from memref.memories._str_replace import str_replace
from memref.memories._view import view

__all__ = ["HANDLERS", "Reply", "execute", "reply_for"]

Handler = Callable[[Root, Mapping[str, Any]], str]

HANDLERS: dict[str, Handler] = {
    "view": view,
    "create": create,
    "str_replace": str_replace,
    "insert": insert,
    "delete": delete,
    "rename": move,
}


@dataclass(frozen=True)
class Reply:
    """What the application sends back to the model."""

    content: str
    is_error: bool


def reply_for(work: Callable[[], str], subject: Any) -> Reply:
    """Run ``work``; its text, or the failure it raised, as a reply the model can read.
    ``subject`` names the path an operating-system error is reported on."""
    try:
        text = work()
    except ToolFailure as failure:
        return Reply(well_formed(failure.text), True)
    except OSError as exc:
        where = subject if isinstance(subject, str) else "/memories"
        return Reply(well_formed(failure_for_os_error(exc, where).text), True)
    return Reply(well_formed(text), False)


def _unknown(command: Any) -> ToolFailure:
    if command is None:
        return ToolFailure("The input has no command.")
    return ToolFailure(f"Unknown command: {command}")


def execute(base: str, tool_input: Mapping[str, Any], *, construct: bool = True) -> Reply:
    """Run one command on ``base``. With ``construct`` the root is made first, as the
    seed's constructor makes it; a session passes False for its later commands."""

    def work() -> str:
        if construct:
            make_root(base, ROOT_DIR)
        command = tool_input.get("command")
        handler = HANDLERS.get(command) if isinstance(command, str) else None
        if handler is None:
            raise _unknown(command)
        with Root(base) as root:
            return handler(root, tool_input)

    return reply_for(work, tool_input.get("path", tool_input.get("old_path")))

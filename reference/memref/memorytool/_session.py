"""A scripted persona session: the soul is composed at session start and stays fixed.

A script is a list of items run in order over one memory directory:

- ``{"op": "soul"}``: the soul of the current session (composed when it started);
- ``{"op": "call", "input": {...}}``: one call of the memory tool;
- ``{"op": "new_session"}``: end the session and start the next, composing again.

The first session starts before the first item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memref.memorytool._actions import ToolResult, execute
from memref.memorytool._soul import compose_soul

__all__ = ["Event", "session_script"]

Executor = Callable[[str, Mapping[str, Any]], ToolResult]
Event = tuple[str, Any]


def session_script(
    directory: str, script: Sequence[Mapping[str, Any]], run: Executor = execute
) -> list[Event]:
    """One event per item: ("soul", (soul, found)), ("call", ToolResult) or
    ("new_session", number of the session that starts)."""
    soul = compose_soul(directory)
    session = 1
    events: list[Event] = []
    for item in script:
        op = item["op"]
        if op == "soul":
            events.append(("soul", soul))
        elif op == "call":
            events.append(("call", run(directory, item["input"])))
        else:
            soul = compose_soul(directory)
            session += 1
            events.append(("new_session", session))
    return events

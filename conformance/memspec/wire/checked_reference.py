"""memref with every successful op reply checked against the op's result schema.

``memspec run --adapter python:memspec.checked_reference:Reference`` runs the whole suite
(cases, properties, snapshots) this way: a reply whose ``result`` breaks
``schemas/ops/<profile>/<op>.json#/$defs/result`` becomes an ``internal`` error naming the
first violation, so the case that received it fails and says why.
"""

from __future__ import annotations

from typing import Any, Protocol

from memspec.corpus.op_schemas import result_errors
from memspec.wire.adapters import reference_handler

__all__ = ["Reference", "ResultChecked"]

_HARNESS_COMMANDS = ("start", "stop")


class Handler(Protocol):
    def handle(self, message: dict[str, Any]) -> dict[str, Any]: ...


class ResultChecked:
    """Wraps an in-process adapter; replies to ops are checked, the rest pass as they are."""

    def __init__(self, inner: Handler) -> None:
        self._inner = inner

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = self._inner.handle(message)
        op = message.get("op")
        if not isinstance(op, str) or op in _HARNESS_COMMANDS or "result" not in reply:
            return reply
        errors = result_errors(op, reply["result"])
        if not errors:
            return reply
        checked = {key: value for key, value in reply.items() if key != "result"}
        checked["error"] = {
            "kind": "internal",
            "message": f"the reply breaks the result schema of {op}: {errors[0]}",
        }
        return checked


def Reference() -> ResultChecked:
    return ResultChecked(reference_handler())

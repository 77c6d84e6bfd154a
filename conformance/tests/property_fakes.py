"""memref with one flaw each, in process (``python:property_fakes:NAME``), to make the
suite's properties fail the way a port would.

- ``NarrowLineNumbers``: a viewed file's lines are numbered five wide, not six.
- ``HostPathInErrors``: every error of ``memories.call`` ends with the host path of its base.
- ``CreatesNothing``: ``memories.call`` create answers success and writes nothing.
- ``HermesTextNotJson``: ``hermes.call`` answers a text that is not JSON.
- ``MarkdownFilenames``: ``turnlog.filename`` ends a name with ``.markdown``.
"""

from __future__ import annotations

from typing import Any

from memref.serve import Implementation

__all__ = [
    "CreatesNothing",
    "HermesTextNotJson",
    "HostPathInErrors",
    "MarkdownFilenames",
    "NarrowLineNumbers",
]


def _command(message: Any) -> str | None:
    """The command of a ``memories.call`` request, or None for any other request."""
    if message.get("op") != "memories.call":
        return None
    tool_input = message.get("args", {}).get("input")
    return tool_input.get("command") if isinstance(tool_input, dict) else None


class NarrowLineNumbers(Implementation):
    """Numbers the lines of a viewed file five wide."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        result = reply.get("result")
        if _command(message) == "view" and isinstance(result, dict):
            result["content"] = str(result["content"]).replace("\n     ", "\n    ")
        return reply


class HostPathInErrors(Implementation):
    """Ends every error text of the memory tool with the base it was given."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        result = reply.get("result")
        if _command(message) is not None and isinstance(result, dict) and result["is_error"]:
            result["content"] = f"{result['content']} ({message['args']['base']})"
        return reply


class CreatesNothing(Implementation):
    """Answers a create as done without writing the file."""

    def handle(self, message: Any) -> dict[str, Any]:
        if _command(message) != "create":
            return super().handle(message)
        path = message["args"]["input"].get("path")
        done = {"content": f"File created successfully at: {path}", "is_error": False}
        return {"id": message.get("id"), "result": done}


class HermesTextNotJson(Implementation):
    """Answers every call of the hermes tool with plain words."""

    def handle(self, message: Any) -> dict[str, Any]:
        if message.get("op") != "hermes.call":
            return super().handle(message)
        return {"id": message.get("id"), "result": {"text": "done: entry added"}}


class MarkdownFilenames(Implementation):
    """Ends the name of a turn file with .markdown, not .md."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        if message.get("op") == "turnlog.filename" and isinstance(reply.get("result"), str):
            reply["result"] = reply["result"].removesuffix(".md") + ".markdown"
        return reply

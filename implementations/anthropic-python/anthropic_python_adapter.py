"""memspec adapter (profile memories) for anthropic's BetaLocalFilesystemMemoryTool.

An in-process adapter: ``memspec run --adapter python:anthropic_python_adapter:Adapter``
with this folder on ``PYTHONPATH`` and the pinned ``anthropic`` installed beside memspec.

Glue only. ``memories.call`` hands the tool input to the tool of its base directory, as the
SDK's tool runner does, and answers what the runner would send back to the model: the
command's text, or the runner's rendering of the exception it raised (``ToolError``'s own
text, any other exception's ``repr``), with ``is_error``. The application keeps one tool per
base directory for its whole life, and so does the adapter.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from anthropic.lib.tools._tool_dispatch import tool_error_content, tool_result_content
from anthropic.tools import BetaLocalFilesystemMemoryTool

PROTOCOL_VERSION = "1.1.0"
CAPABILITIES = ["symlinks", "fifos", "concurrency"]


class OpError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def base_arg(args: dict[str, Any]) -> str:
    base = args.get("base")
    if not isinstance(base, str) or not base.startswith("/") or "\0" in base:
        raise OpError("invalid-args", "base must be an absolute path without NUL")
    return base


def input_arg(args: dict[str, Any]) -> dict[str, Any]:
    given = args.get("input")
    if not isinstance(given, dict):
        raise OpError("invalid-args", "input must be an object (the tool-use input)")
    return given


def tool_reply(run: Any) -> dict[str, Any]:
    """What the tool runner sends back for one call (``BetaToolRunner._run_tool``)."""
    try:
        return {"content": tool_result_content(run()), "is_error": False}
    except Exception as exc:  # the runner answers every exception, ToolError or not
        return {"content": tool_error_content(exc), "is_error": True}


class Adapter:
    """One instance per connection; one memory tool per base directory."""

    name = "anthropic-python"
    tool_class: Any = BetaLocalFilesystemMemoryTool

    def __init__(self) -> None:
        self._tools: dict[str, Any] = {}

    def tool(self, base: str) -> Any:
        if base not in self._tools:
            self._tools[base] = self.tool_class(base_path=base)
        return self._tools[base]

    def run(self, tool: Any, given: dict[str, Any]) -> Any:
        return tool.call(given)

    def call(self, args: dict[str, Any]) -> dict[str, Any]:
        base, given = base_arg(args), input_arg(args)
        return tool_reply(lambda: self.run(self.tool(base), given))

    def constants(self, args: dict[str, Any]) -> dict[str, Any]:
        return dict(BetaLocalFilesystemMemoryTool.to_dict(self.tool_definition_owner()))

    def tool_definition_owner(self) -> Any:
        return BetaLocalFilesystemMemoryTool.__new__(BetaLocalFilesystemMemoryTool)

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, request_id = message.get("op"), message.get("id")
        args = message.get("args") if isinstance(message.get("args"), dict) else {}
        if op == "start":
            return {
                "id": request_id,
                "result": {
                    "implementation": {
                        "name": self.name,
                        "version": version("anthropic"),
                        "language": "python",
                    },
                    "protocol_version": PROTOCOL_VERSION,
                    "profiles": ["memories"],
                    "capabilities": CAPABILITIES,
                },
            }
        if op == "stop":
            return {"id": request_id, "result": None}
        ops = {"memories.call": self.call, "memories.constants": self.constants}
        if op not in ops:
            return {"id": request_id, "error": {"kind": "unknown-op", "message": repr(op)}}
        try:
            return {"id": request_id, "result": ops[op](args)}
        except OpError as exc:
            return {"id": request_id, "error": {"kind": exc.kind, "message": str(exc)}}

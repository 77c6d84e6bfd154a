"""memspec adapter (profile memories) for anthropic's BetaLocalFilesystemMemoryTool.

An in-process adapter: ``memspec run --adapter python:anthropic_python_adapter:Adapter``
with this folder on ``PYTHONPATH`` and the pinned ``anthropic`` installed beside memspec.

Glue only. ``memories.call`` constructs the tool on the base and hands it the tool input;
``memories.session_script`` keeps one tool for the whole script. Each reply is what the
SDK's tool runner sends back to the model (``BetaToolRunner._run_tool``): the command's
text, or the runner's rendering of what it raised (``tool_error_content``: a
``ToolError``'s text, the ``repr`` of any other exception), with ``is_error``. A
constructor that raises is answered the same way.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from typing import Any, get_args

from anthropic.lib.tools import _beta_builtin_memory_tool as sdk
from anthropic.lib.tools._tool_dispatch import tool_error_content, tool_result_content
from anthropic.tools import BetaLocalFilesystemMemoryTool
from anthropic.types.beta import BetaMemoryTool20250818Command

PROTOCOL_VERSION = "1.1.0"
CAPABILITIES = ["symlinks", "fifos", "concurrency"]
SCRIPT_ITEMS = {"call": {"op", "input"}, "clear_all": {"op"}, "remove_root": {"op"}}

# What the SDK states only as literals in its code: the virtual root and the root's name
# (``_validate_path``, ``__init__``), the listing's depth and units (``view``,
# ``_format_file_size``).
VIRTUAL_ROOT = "/memories"
ROOT_DIR = "memories"
LISTING_DEPTH = 2
SIZE_UNITS = ["B", "K", "M", "G"]


class OpError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def base_arg(args: dict[str, Any]) -> str:
    base = args.get("base")
    if not isinstance(base, str) or not base.startswith("/") or "\0" in base:
        raise OpError("invalid-args", "base must be an absolute path without NUL")
    try:
        base.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", "base holds an unpaired surrogate") from exc
    return base


def input_arg(value: Any, name: str = "input") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"{name} must be an object (the tool-use input)")
    return value


def script_arg(args: dict[str, Any]) -> list[dict[str, Any]]:
    script = args.get("script")
    if not isinstance(script, list):
        raise OpError("invalid-args", "script must be a list")
    for index, item in enumerate(script):
        shape = SCRIPT_ITEMS.get(item.get("op")) if isinstance(item, dict) else None
        if shape is None or set(item) != shape:
            raise OpError("invalid-args", f"script[{index}] is no call, clear_all or remove_root")
        if item["op"] == "call":
            input_arg(item["input"], f"script[{index}].input")
    return script


def tool_reply(run: Callable[[], Any]) -> dict[str, Any]:
    """What the tool runner sends back for one call (``BetaToolRunner._run_tool``)."""
    try:
        return {"content": tool_result_content(run()), "is_error": False}
    except Exception as exc:  # the runner answers every exception, ToolError or not
        return {"content": tool_error_content(exc), "is_error": True}


def remove_root(base: str) -> None:
    """Another process's ``rm -rf <base>/memories``."""
    root = os.path.join(base, ROOT_DIR)
    if os.path.isdir(root) and not os.path.islink(root):
        shutil.rmtree(root)
    elif os.path.lexists(root):
        os.unlink(root)


def commands() -> list[str]:
    """The command names of the SDK's command union, in its order."""
    union = get_args(get_args(BetaMemoryTool20250818Command)[0])
    return [get_args(model.model_fields["command"].annotation)[0] for model in union]


class Adapter:
    """One instance per connection."""

    name = "anthropic-python"
    tool_class: Any = BetaLocalFilesystemMemoryTool

    def run(self, tool: Any, given: dict[str, Any]) -> Any:
        return tool.call(given)

    def clear_all(self, tool: Any) -> Any:
        return tool.clear_all_memory()

    def call(self, args: dict[str, Any]) -> dict[str, Any]:
        base, given = base_arg(args), input_arg(args.get("input"))
        return tool_reply(lambda: self.run(self.tool_class(base_path=base), given))

    def session_script(self, args: dict[str, Any]) -> dict[str, Any]:
        base, script = base_arg(args), script_arg(args)
        made: list[Any] = []
        failed = tool_reply(lambda: made.append(self.tool_class(base_path=base)))
        events: list[Any] = []
        for item in script:
            if item["op"] == "remove_root":
                remove_root(base)
                events.append(None)
            elif not made:
                events.append(failed)
            elif item["op"] == "call":
                events.append(tool_reply(lambda item=item: self.run(made[0], item["input"])))
            else:
                events.append(tool_reply(lambda: self.clear_all(made[0])))
        return {"events": events}

    def constants(self, args: dict[str, Any]) -> dict[str, Any]:
        # The definition the tool gives the API; the constructor makes a root, so it
        # makes it in a scratch directory of its own.
        with tempfile.TemporaryDirectory() as scratch:
            definition = self.tool_class(base_path=scratch).to_dict()
        return {
            "tool_type": definition["type"],
            "tool_name": definition["name"],
            "virtual_root": VIRTUAL_ROOT,
            "root_dir": ROOT_DIR,
            "commands": commands(),
            "max_lines": sdk.MAX_LINES,
            "line_number_width": sdk.LINE_NUMBER_WIDTH,
            "listing_depth": LISTING_DEPTH,
            "size_units": SIZE_UNITS,
            "file_mode": f"{sdk._FILE_CREATE_MODE:04o}",
            "dir_mode": f"{sdk._DIR_CREATE_MODE:04o}",
        }

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
        ops = {
            "memories.constants": self.constants,
            "memories.call": self.call,
            "memories.session_script": self.session_script,
        }
        if op not in ops:
            return {"id": request_id, "error": {"kind": "unknown-op", "message": repr(op)}}
        try:
            return {"id": request_id, "result": ops[op](args)}
        except OpError as exc:
            return {"id": request_id, "error": {"kind": exc.kind, "message": str(exc)}}

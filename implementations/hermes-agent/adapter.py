#!/usr/bin/env python3
"""memspec adapter (profile hermes) for Hermes Agent's memory tool, over JSON lines.

Glue only: each op checks the shape of its request (spec/hermes.md, "Operations"), calls
Hermes Agent, and turns its answer into the wire form. A session is what the agent makes
of one: a `MemoryStore` with the request's limits, loaded from `$HERMES_HOME` (a store whose
load raises is no store, as the agent's initialisation has it), and `memory_tool` called
with the model's arguments as the agent passes them. Whatever the package does with the
files, it does itself; an exception it raises reaches the harness as an `internal` error.

    memspec run --profile hermes --adapter "cmd:venv/bin/python adapter.py"
"""

from __future__ import annotations

import json
import os
import sys
import types
from importlib.metadata import version
from typing import Any

from tools import memory_tool as hermes_memory

IMPLEMENTATION = {
    "name": "hermes-agent",
    "version": version("hermes-agent"),
    "language": "python",
}
PROTOCOL_VERSION = "1.1.0"
CAPABILITIES = ["symlinks", "concurrency"]
SCRIPT_ITEMS = {
    "call": {"op", "input"},
    "snapshot": {"op"},
    "new_turn": {"op"},
    "new_session": {"op"},
}
DEFAULT_LIMITS = {"memory": 2200, "user": 1375}


class OpError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def encodable(name: str, value: Any) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise OpError("invalid-args", f"{name} holds an unpaired surrogate") from exc
    elif isinstance(value, list):
        for item in value:
            encodable(name, item)
    elif isinstance(value, dict):
        for key, item in value.items():
            encodable(name, key)
            encodable(name, item)


def home(args: dict[str, Any]) -> str:
    path = args.get("home")
    if not isinstance(path, str) or not path.startswith("/") or "\0" in path:
        raise OpError("invalid-args", "home must be an absolute path without NUL")
    encodable("home", path)
    return path


def limits(args: dict[str, Any]) -> dict[str, int]:
    given = args.get("limits", {})
    if not isinstance(given, dict) or set(given) - set(DEFAULT_LIMITS):
        raise OpError("invalid-args", "limits must be {memory?, user?}")
    for name, value in given.items():
        if type(value) is not int or not 0 <= value <= 10**9:
            raise OpError("invalid-args", f"limits.{name} must be an integer from 0 to 10**9")
    return DEFAULT_LIMITS | given


def now(args: dict[str, Any]) -> int:
    value = args.get("now", 0)
    if type(value) is not int or not 0 <= value <= 1 << 40:
        raise OpError("invalid-args", "now must be an integer from 0 to 2**40")
    return value


def tool_input(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"{name} must be an object")
    encodable(name, value)
    return value


class Session:
    """One agent session on a home: its store, loaded when the session starts."""

    def __init__(self, directory: str, budget: dict[str, int], clock: int) -> None:
        os.environ["HERMES_HOME"] = directory
        # The request's clock names drift backups (spec/divergences.md, hermes#clock).
        hermes_memory.time = types.SimpleNamespace(time=lambda: clock)  # type: ignore[assignment]
        store: Any = hermes_memory.MemoryStore(
            memory_char_limit=budget["memory"], user_char_limit=budget["user"]
        )
        try:
            store.load_from_disk()
        except Exception:  # the agent's initialisation runs without memory then
            store = None
        self.store = store

    def snapshot(self) -> dict[str, str]:
        if self.store is None:
            return {"memory": "", "user": ""}
        return {t: self.store.format_for_system_prompt(t) or "" for t in ("memory", "user")}

    def call(self, given: dict[str, Any]) -> dict[str, Any]:
        text = hermes_memory.memory_tool(
            action=given.get("action"),
            target=given.get("target", "memory"),
            content=given.get("content"),
            old_text=given.get("old_text"),
            operations=given.get("operations"),
            store=self.store,
        )
        return {"text": text}


def op_constants(args: dict[str, Any]) -> Any:
    schema = hermes_memory.MEMORY_SCHEMA
    properties = schema["parameters"]["properties"]
    store = hermes_memory.MemoryStore()
    return {
        "tool_name": schema["name"],
        "memory_dir": "memories",
        "memory_file": "MEMORY.md",
        "user_file": "USER.md",
        "targets": list(properties["target"]["enum"]),
        "actions": list(properties["action"]["enum"]),
        "parameters": list(properties),
        "required": list(schema["parameters"]["required"]),
        "operation_members": list(properties["operations"]["items"]["properties"]),
        "entry_delimiter": hermes_memory.ENTRY_DELIMITER,
        "memory_char_limit": store.memory_char_limit,
        "user_char_limit": store.user_char_limit,
        "max_failures_per_turn": hermes_memory.MemoryStore._MAX_CONSOLIDATION_FAILURES_PER_TURN,
        "preview_width": 80,
        "block_rule": "\u2550" * 46,
        "block_headers": dict(hermes_memory.MEMORY_BLOCK_HEADERS),
        "lock_suffix": ".lock",
        "max_scan_chars": __import__("tools.threat_patterns").threat_patterns.MAX_SCAN_CHARS,
    }


def op_call(args: dict[str, Any]) -> Any:
    directory = home(args)
    given = tool_input(args.get("input"), "input")
    return Session(directory, limits(args), now(args)).call(given)


def op_snapshot(args: dict[str, Any]) -> Any:
    return Session(home(args), limits(args), 0).snapshot()


def op_session_script(args: dict[str, Any]) -> Any:
    directory, budget, clock = home(args), limits(args), now(args)
    script = args.get("script")
    if not isinstance(script, list):
        raise OpError("invalid-args", "script must be a list")
    for index, item in enumerate(script):
        shape = SCRIPT_ITEMS.get(item.get("op")) if isinstance(item, dict) else None
        if shape is None or set(item) != shape:
            raise OpError(
                "invalid-args", f"script[{index}] is no call, snapshot, new_turn or new_session"
            )
        if item["op"] == "call":
            tool_input(item["input"], f"script[{index}].input")
    session = Session(directory, budget, clock)
    frozen = session.snapshot()
    events: list[Any] = []
    sessions, turns = 1, 1
    for item in script:
        if item["op"] == "call":
            events.append(session.call(item["input"]))
        elif item["op"] == "snapshot":
            events.append(dict(frozen))
        elif item["op"] == "new_turn":
            turns += 1
            if session.store is not None:
                session.store.reset_consolidation_failures()
            events.append({"turn": turns})
        else:
            sessions, turns = sessions + 1, 1
            session = Session(directory, budget, clock)
            frozen = session.snapshot()
            events.append({"session": sessions})
    return {"events": events}


OPS = {
    "hermes.constants": op_constants,
    "hermes.call": op_call,
    "hermes.snapshot": op_snapshot,
    "hermes.session_script": op_session_script,
}


def handle(request: dict[str, Any]) -> dict[str, Any]:
    op, request_id = request.get("op"), request.get("id")
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    if op == "start":
        return {
            "id": request_id,
            "result": {
                "implementation": IMPLEMENTATION,
                "protocol_version": PROTOCOL_VERSION,
                "profiles": ["hermes"],
                "capabilities": CAPABILITIES,
            },
        }
    if op == "stop":
        return {"id": request_id, "result": None}
    handler = OPS.get(op) if isinstance(op, str) else None
    if handler is None:
        return {"id": request_id, "error": {"kind": "unknown-op", "message": f"{op!r}"}}
    try:
        return {"id": request_id, "result": handler(args)}
    except OpError as exc:
        return {"id": request_id, "error": {"kind": exc.kind, "message": str(exc)}}
    except Exception as exc:  # Hermes raised: the application would see the exception
        return {"id": request_id, "error": {"kind": "internal", "message": repr(exc)}}


def main() -> int:
    for line in sys.stdin:
        request = json.loads(line)
        reply = handle(request)
        sys.stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        sys.stdout.flush()
        if request.get("op") == "stop":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())

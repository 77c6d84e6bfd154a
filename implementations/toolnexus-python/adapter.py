#!/usr/bin/env python3
"""memspec adapter (profile memorytool) for the Python port of toolnexus, over JSON lines.

Glue only: each op checks the shape of its request (spec/memorytool.md, "Operations"),
calls toolnexus, and turns its answer into the wire form. Whatever toolnexus does with
the files, it does itself; an exception it raises reaches the harness as an `internal`
error, as it reaches an application that calls the tool.

    memspec run --profile memorytool --adapter "cmd:python adapter.py"
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sys
from importlib.metadata import version
from typing import Any

from toolnexus.agents import BOOTSTRAP_ORDER, agent_from_dir, compose_soul, memory_tool
from toolnexus.agents.surface import _TRUNCATION_NOTICE, MAX_BOOTSTRAP_FILE_BYTES

IMPLEMENTATION = {
    "name": "toolnexus-python",
    "version": version("toolnexus"),
    "language": "python",
}
PROTOCOL_VERSION = "1.1.0"
CAPABILITIES = ["symlinks", "fifos", "concurrency"]
SUMMARY_EDGE = 64
INPUT_FIELDS = ("action", "target", "text", "with")
SCRIPT_ITEMS = {"soul": {"op"}, "new_session": {"op"}, "call": {"op", "input"}}
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
LOOP = asyncio.new_event_loop()


class OpError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def text_out(text: str) -> Any:
    """A Python string on the wire: itself, or base64 of its bytes when they are not UTF-8."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def bytes_out(data: bytes) -> Any:
    return text_out(data.decode("utf-8", "surrogateescape"))


def encodable(name: str, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", f"{name} holds an unpaired surrogate") from exc
    return value


def home(args: dict[str, Any]) -> str:
    directory = args.get("dir")
    if not isinstance(directory, str) or not directory.startswith("/") or "\0" in directory:
        raise OpError("invalid-args", "dir must be an absolute path without NUL")
    return encodable("dir", directory)


def tool_input(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"{name} must be an object")
    for field in INPUT_FIELDS:
        if isinstance(value.get(field), str):
            encodable(f"{name}.{field}", value[field])
    return value


def call_out(result: Any) -> dict[str, Any]:
    return {"output": text_out(result.output), "is_error": bool(result.is_error)}


def soul_out(soul: str, found: list[str]) -> dict[str, Any]:
    return {"soul": text_out(soul), "found": list(found)}


def definition() -> dict[str, Any]:
    tool = memory_tool("/")  # the definition does not depend on the directory
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def resolve(document: Any, pointer: str) -> Any:
    """RFC 6901; None when the pointer names nothing."""
    if pointer == "":
        return document
    value = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif (
            isinstance(value, list)
            and token.isdigit()
            and token.isascii()
            and (token == "0" or not token.startswith("0"))
            and int(token) < len(value)
        ):
            value = value[int(token)]
        else:
            return None
    return value


def pointers(args: dict[str, Any], name: str) -> list[str]:
    listed = args.get(name, [])
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise OpError("invalid-args", f"{name} must be a list of strings")
    for pointer in listed:
        if pointer and not pointer.startswith("/"):
            raise OpError("invalid-args", f"{name}: {pointer!r} is not a JSON pointer")
        encodable(name, pointer)
    return listed


def contains_pairs(args: dict[str, Any]) -> list[tuple[str, str]]:
    listed = args.get("contains", [])
    if not isinstance(listed, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
        for pair in listed
    ):
        raise OpError("invalid-args", "contains must be a list of [pointer, text]")
    pointers({"contains": [pair[0] for pair in listed]}, "contains")
    return [(encodable("contains", p), encodable("contains", t)) for p, t in listed]


def op_constants(args: dict[str, Any]) -> Any:
    schema = definition()["input_schema"]["properties"]
    return {
        "tool_name": definition()["name"],
        "memory_file": "MEMORY.md",
        "user_file": "USER.md",
        "bootstrap_order": list(BOOTSTRAP_ORDER),
        "max_file_bytes": MAX_BOOTSTRAP_FILE_BYTES,
        "truncation_notice": _TRUNCATION_NOTICE,
        "actions": list(schema["action"]["enum"]),
        "targets": list(schema["target"]["enum"]),
    }


def op_tool_definition(args: dict[str, Any]) -> Any:
    return definition()


def op_tool_definition_select(args: dict[str, Any]) -> Any:
    values, keys_of = pointers(args, "pointers"), pointers(args, "keys_of")
    pairs = contains_pairs(args)
    document = definition()
    keys = []
    for pointer in keys_of:
        value = resolve(document, pointer)
        keys.append(sorted(value) if isinstance(value, dict) else None)
    return {
        "values": [resolve(document, pointer) for pointer in values],
        "keys": keys,
        "contains": [
            isinstance(value := resolve(document, pointer), str)
            and text.translate(ASCII_LOWER) in value.translate(ASCII_LOWER)
            for pointer, text in pairs
        ],
    }


def op_call(args: dict[str, Any]) -> Any:
    directory = home(args)
    given = tool_input(args.get("input"), "input")
    return call_out(LOOP.run_until_complete(memory_tool(directory).execute(given)))


def op_compose_soul(args: dict[str, Any]) -> Any:
    directory = home(args)
    view = args.get("view", "full")
    if view not in ("full", "summary"):
        raise OpError("invalid-args", 'view must be "full" or "summary"')
    soul, found = compose_soul(directory)
    if view == "full":
        return soul_out(soul, found)
    data = soul.encode("utf-8", "surrogateescape")
    return {
        "length": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "head": bytes_out(data[:SUMMARY_EDGE]),
        "tail": bytes_out(data[-SUMMARY_EDGE:]),
        "found": list(found),
    }


def script_items(args: dict[str, Any]) -> list[dict[str, Any]]:
    script = args.get("script")
    if not isinstance(script, list):
        raise OpError("invalid-args", "script must be a list")
    for index, item in enumerate(script):
        shape = SCRIPT_ITEMS.get(item.get("op")) if isinstance(item, dict) else None
        if shape is None or set(item) != shape:
            raise OpError("invalid-args", f"script[{index}] is no soul, call or new_session item")
        if item["op"] == "call":
            tool_input(item["input"], f"script[{index}].input")
    return script


def op_session_script(args: dict[str, Any]) -> Any:
    """Each session is a persona from agent_from_dir: its system prompt is the soul, its
    memory tool the one agent_from_dir wired over the directory."""
    directory = home(args)
    script = script_items(args)

    def start_session() -> tuple[str, list[str], Any]:
        persona = agent_from_dir(directory)
        _, found = compose_soul(directory)
        prompt = persona.registry()[persona.name].system_prompt
        tool = next(t for t in persona.uses["tools"] if t.name == "memory")
        return prompt, found, tool

    events: list[Any] = []
    prompt, found, tool = start_session()
    session = 1
    for item in script:
        if item["op"] == "soul":
            events.append(soul_out(prompt, found))
        elif item["op"] == "call":
            events.append(call_out(LOOP.run_until_complete(tool.execute(item["input"]))))
        else:
            session += 1
            prompt, found, tool = start_session()
            events.append({"session": session})
    return {"events": events}


OPS = {
    "memorytool.constants": op_constants,
    "memorytool.tool_definition": op_tool_definition,
    "memorytool.tool_definition_select": op_tool_definition_select,
    "memorytool.call": op_call,
    "memorytool.compose_soul": op_compose_soul,
    "memorytool.session_script": op_session_script,
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
                "profiles": ["memorytool"],
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
    except Exception as exc:  # toolnexus raised: the application would see the exception
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

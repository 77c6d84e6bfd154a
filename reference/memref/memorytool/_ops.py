"""The ``memorytool.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref._gostr import decode
from memref._wire import text_out
from memref.errors import OpError
from memref.memorytool import _constants
from memref.memorytool._actions import ToolResult, execute
from memref.memorytool._identity import resolve_pointer, tool_definition
from memref.memorytool._session import session_script
from memref.memorytool._soul import compose_soul

__all__ = ["OPS"]

Args = Mapping[str, Any]

_SUMMARY_EDGE = 64
_INPUT_FIELDS = ("action", "target", "text", "with")
_SCRIPT_OPS = ("soul", "call", "new_session")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _clean(path: str) -> str:
    """Go's filepath.Clean for an absolute POSIX path."""
    parts: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if parts:
                parts.pop()
            continue
        parts.append(segment)
    return "/" + "/".join(parts)


def _encodable(name: str, value: str) -> str:
    return _wire.utf8_text(name, value)


def _dir(args: Args) -> str:
    directory = _encodable("dir", _wire.arg_str(args, "dir"))
    if "\x00" in directory:
        raise OpError("invalid-args", "argument 'dir' holds a NUL byte")
    if not directory.startswith("/"):
        raise OpError("invalid-args", "argument 'dir' must be an absolute path")
    return _clean(directory)


def _tool_input(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"argument {name!r} must be an object (the tool input)")
    for field in _INPUT_FIELDS:
        item = value.get(field)
        if isinstance(item, str):
            _encodable(f"{name}.{field}", item)
    return value


def _call_out(result: ToolResult) -> dict[str, Any]:
    return {"output": text_out(result.output), "is_error": result.is_error}


def _soul_out(soul: bytes, found: list[str]) -> dict[str, Any]:
    return {"soul": text_out(decode(soul)), "found": found}


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _tool_definition_op(args: Args) -> Any:
    return tool_definition()


def _pointer_list(args: Args, name: str) -> list[str]:
    pointers = _wire.arg_str_list(args, name, [])
    for pointer in pointers:
        _encodable(name, pointer)
        if pointer and not pointer.startswith("/"):
            raise OpError("invalid-args", f"{name}: {pointer!r} is not a JSON pointer")
    return pointers


def _tool_definition_select_op(args: Args) -> Any:
    pointers = _pointer_list(args, "pointers")
    keys_of = _pointer_list(args, "keys_of")
    definition = tool_definition()
    keys: list[Any] = []
    for pointer in keys_of:
        value = resolve_pointer(definition, pointer)
        keys.append(sorted(value) if isinstance(value, dict) else None)
    contains: list[bool] = []
    for pointer, needle in _contains_pairs(args):
        value = resolve_pointer(definition, pointer)
        contains.append(isinstance(value, str) and _fold(needle) in _fold(value))
    return {
        "values": [resolve_pointer(definition, p) for p in pointers],
        "keys": keys,
        "contains": contains,
    }


def _fold(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def _contains_pairs(args: Args) -> list[tuple[str, str]]:
    raw = args.get("contains", [])
    if not isinstance(raw, list):
        raise OpError("invalid-args", "argument 'contains' must be a list of [pointer, text]")
    pairs = []
    for index, item in enumerate(raw):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(part, str) for part in item)
        ):
            raise OpError("invalid-args", f"contains[{index}] must be [pointer, text]")
        pointer, needle = (_encodable("contains", part) for part in item)
        if pointer and not pointer.startswith("/"):
            raise OpError("invalid-args", f"contains: {pointer!r} is not a JSON pointer")
        pairs.append((pointer, needle))
    return pairs


def _call_op(args: Args) -> Any:
    directory = _dir(args)
    tool_input = _tool_input(args.get("input"), "input")
    return _call_out(execute(directory, tool_input))


def _compose_soul_op(args: Args) -> Any:
    directory = _dir(args)
    view = _wire.arg_str(args, "view", "full")
    if view not in ("full", "summary"):
        raise OpError("invalid-args", 'argument \'view\' must be "full" or "summary"')
    soul, found = compose_soul(directory)
    if view == "full":
        return _soul_out(soul, found)
    return {
        "length": len(soul),
        "sha256": hashlib.sha256(soul).hexdigest(),
        "head": text_out(decode(soul[:_SUMMARY_EDGE])),
        "tail": text_out(decode(soul[-_SUMMARY_EDGE:])),
        "found": found,
    }


def _script(args: Args) -> list[dict[str, Any]]:
    script = args.get("script")
    if not isinstance(script, list):
        raise OpError("invalid-args", "argument 'script' must be a list")
    for index, item in enumerate(script):
        if not isinstance(item, dict) or item.get("op") not in _SCRIPT_OPS:
            raise OpError(
                "invalid-args",
                f"script[{index}] must be an object whose 'op' is one of soul, call, new_session",
            )
        allowed = {"op", "input"} if item["op"] == "call" else {"op"}
        if set(item) != allowed:
            raise OpError(
                "invalid-args", f"script[{index}] must hold exactly {', '.join(sorted(allowed))}"
            )
        if item["op"] == "call":
            _tool_input(item["input"], f"script[{index}].input")
    return script


def _session_script_op(args: Args) -> Any:
    directory = _dir(args)
    events = []
    for kind, value in session_script(directory, _script(args)):
        if kind == "soul":
            events.append(_soul_out(*value))
        elif kind == "call":
            events.append(_call_out(value))
        else:
            events.append({"session": value})
    return {"events": events}


OPS: dict[str, Callable[[Args], Any]] = {
    "memorytool.constants": _constants_op,
    "memorytool.tool_definition": _tool_definition_op,
    "memorytool.tool_definition_select": _tool_definition_select_op,
    "memorytool.call": _call_op,
    "memorytool.compose_soul": _compose_soul_op,
    "memorytool.session_script": _session_script_op,
}

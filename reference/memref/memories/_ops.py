"""The ``memories.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref.errors import OpError
from memref.memories import _constants
from memref.memories._session import session_script
from memref.memories._tool import Reply, execute

__all__ = ["OPS"]

Args = Mapping[str, Any]

_SCRIPT_ITEMS = {
    "call": frozenset({"op", "input"}),
    "clear_all": frozenset({"op"}),
    "remove_root": frozenset({"op"}),
}


def _base(args: Args) -> str:
    base = _wire.arg_str(args, "base")
    try:
        base.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", "argument 'base' holds an unpaired surrogate") from exc
    if "\x00" in base:
        raise OpError("invalid-args", "argument 'base' holds a NUL character")
    if not base.startswith("/"):
        raise OpError("invalid-args", "argument 'base' must be an absolute path")
    return base


def _tool_input(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"argument {name!r} must be an object (the tool input)")
    return value


def _reply_out(reply: Reply) -> dict[str, Any]:
    return {"content": reply.content, "is_error": reply.is_error}


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _call_op(args: Args) -> Any:
    base = _base(args)
    return _reply_out(execute(base, _tool_input(args.get("input"), "input")))


def _script(args: Args) -> list[Args]:
    script = _wire.arg_script(args, "script", _SCRIPT_ITEMS)
    for index, item in enumerate(script):
        if item["op"] == "call":
            _tool_input(item["input"], f"script[{index}].input")
    return script


def _session_script_op(args: Args) -> Any:
    base = _base(args)
    events = [
        None if reply is None else _reply_out(reply)
        for reply in session_script(base, _script(args))
    ]
    return {"events": events}


OPS: dict[str, Callable[[Args], Any]] = {
    "memories.constants": _constants_op,
    "memories.call": _call_op,
    "memories.session_script": _session_script_op,
}

"""The ``hermes.*`` protocol operations: wire arguments in, wire results out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memref import _wire
from memref.errors import OpError
from memref.hermes import _constants
from memref.hermes._snapshot import session_script, snapshot
from memref.hermes._tool import Store

__all__ = ["OPS"]

Args = Mapping[str, Any]

_SCRIPT_ITEMS = {
    "call": frozenset({"op", "input"}),
    "snapshot": frozenset({"op"}),
    "new_turn": frozenset({"op"}),
    "new_session": frozenset({"op"}),
}
_MAX_LIMIT = 10**9
_MAX_NOW = 1 << 40


def _home(args: Args) -> str:
    home = _wire.utf8_text("home", _wire.arg_str(args, "home"))
    if "\x00" in home:
        raise OpError("invalid-args", "argument 'home' holds a NUL character")
    if not home.startswith("/"):
        raise OpError("invalid-args", "argument 'home' must be an absolute path")
    return home


def _limits(args: Args) -> dict[str, int]:
    raw = args.get("limits", {})
    if not isinstance(raw, dict) or set(raw) - {"memory", "user"}:
        raise OpError("invalid-args", "argument 'limits' must be {memory?, user?}")
    limits = {"memory": _constants.MEMORY_CHAR_LIMIT, "user": _constants.USER_CHAR_LIMIT}
    for name, value in raw.items():
        if type(value) is not int or not 0 <= value <= _MAX_LIMIT:
            raise OpError("invalid-args", f"limits.{name} must be an integer from 0 to 10**9")
        limits[name] = value
    return limits


def _now(args: Args) -> int:
    value = args.get("now", 0)
    if type(value) is not int or not 0 <= value <= _MAX_NOW:
        raise OpError("invalid-args", "argument 'now' must be an integer from 0 to 2**40")
    return value


def _check_strings(value: Any, name: str) -> None:
    if isinstance(value, str):
        _wire.utf8_text(name, value)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, name)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, name)
            _check_strings(item, name)


def _tool_input(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise OpError("invalid-args", f"argument {name!r} must be an object (the tool input)")
    _check_strings(value, name)
    return value


def _constants_op(args: Args) -> Any:
    return _constants.as_dict()


def _call_op(args: Args) -> Any:
    home = _home(args)
    tool_input = _tool_input(args.get("input"), "input")
    store = Store(home, _limits(args), _now(args))
    store.load()
    return {"text": store.call(tool_input)}


def _snapshot_op(args: Args) -> Any:
    return snapshot(_home(args), _limits(args))


def _session_script_op(args: Args) -> Any:
    home = _home(args)
    limits, now = _limits(args), _now(args)
    script = _wire.arg_script(args, "script", _SCRIPT_ITEMS)
    for index, item in enumerate(script):
        if item["op"] == "call":
            _tool_input(item["input"], f"script[{index}].input")
    return {"events": list(session_script(home, limits, now, script))}


OPS: dict[str, Callable[[Args], Any]] = {
    "hermes.constants": _constants_op,
    "hermes.call": _call_op,
    "hermes.snapshot": _snapshot_op,
    "hermes.session_script": _session_script_op,
}

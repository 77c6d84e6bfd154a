"""Converting protocol arguments and results to and from memref values.

Text on the wire is a JSON string when its bytes are valid UTF-8, and
``{"base64": "..."}`` otherwise. Instants are RFC 3339 strings.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from memref._gostr import decode, encode
from memref._time import format_rfc3339_nano, parse_rfc3339
from memref.errors import OpError

__all__ = [
    "arg_bool",
    "arg_int",
    "arg_script",
    "arg_str",
    "arg_str_list",
    "arg_text",
    "arg_time",
    "arg_time_or_none",
    "text_out",
    "time_out",
]

Args = Mapping[str, Any]

_MISSING = object()


def _get(args: Args, name: str, default: Any) -> Any:
    value = args.get(name, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise OpError("invalid-args", f"missing argument {name!r}")
        return default
    return value


def arg_text(args: Args, name: str, default: Any = _MISSING) -> str:
    value = _get(args, name, default)
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"base64"} and isinstance(value["base64"], str):
        try:
            return decode(base64.b64decode(value["base64"], validate=True))
        except binascii.Error as exc:
            raise OpError("invalid-args", f"argument {name!r}: bad base64") from exc
    raise OpError("invalid-args", f"argument {name!r} must be text")


def arg_str(args: Args, name: str, default: Any = _MISSING) -> str:
    value = _get(args, name, default)
    if not isinstance(value, str):
        raise OpError("invalid-args", f"argument {name!r} must be a string")
    return value


def arg_bool(args: Args, name: str, default: Any = _MISSING) -> bool:
    value = _get(args, name, default)
    if not isinstance(value, bool):
        raise OpError("invalid-args", f"argument {name!r} must be a boolean")
    return value


def arg_int(args: Args, name: str, default: Any = _MISSING) -> int:
    value = _get(args, name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise OpError("invalid-args", f"argument {name!r} must be an integer")
    return value


def arg_str_list(args: Args, name: str, default: Any = _MISSING) -> list[str]:
    value = _get(args, name, default)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise OpError("invalid-args", f"argument {name!r} must be a list of strings")
    return list(value)


def arg_script(args: Args, name: str, shapes: Mapping[str, frozenset[str]]) -> list[Args]:
    """A list of script items, each an object whose ``op`` names one of ``shapes`` and
    whose members are exactly those that shape lists."""
    script = _get(args, name, _MISSING)
    if not isinstance(script, list):
        raise OpError("invalid-args", f"argument {name!r} must be a list")
    for index, item in enumerate(script):
        op = item.get("op") if isinstance(item, dict) else None
        members = shapes.get(op) if isinstance(op, str) else None
        if members is None:
            raise OpError(
                "invalid-args",
                f"{name}[{index}] must be an object whose 'op' is one of {', '.join(shapes)}",
            )
        if set(item) != members:
            raise OpError(
                "invalid-args", f"{name}[{index}] must hold exactly {', '.join(sorted(members))}"
            )
    return script


def arg_time(args: Args, name: str, default: Any = _MISSING) -> int:
    value = _get(args, name, default)
    if not isinstance(value, str):
        raise OpError("invalid-args", f"argument {name!r} must be an RFC 3339 timestamp")
    try:
        return parse_rfc3339(value)
    except ValueError as exc:
        raise OpError("invalid-args", f"argument {name!r}: {exc}") from exc


def arg_time_or_none(args: Args, name: str) -> int | None:
    if args.get(name) is None:
        return None
    return arg_time(args, name)


def text_out(text: str) -> str | dict[str, str]:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return {"base64": base64.b64encode(encode(text)).decode("ascii")}
    return text


def time_out(ns: int | None) -> str | None:
    return None if ns is None else format_rfc3339_nano(ns)

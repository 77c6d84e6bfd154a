"""Converting protocol arguments and results to and from memref values.

Text on the wire is a JSON string when its bytes are valid UTF-8, and
``{"base64": "..."}`` otherwise. Instants are RFC 3339 strings.
"""

from __future__ import annotations

import base64
import binascii
import re
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
    "utf8_text",
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


def utf8_text(name: str, value: str) -> str:
    # A JSON string is UTF-8 text: an unpaired surrogate escape ("\udc80") names no bytes.
    # (memref keeps non-UTF-8 bytes as lone surrogates inside, so this is checked here,
    # where the string comes off the wire, and not after decoding base64.)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OpError("invalid-args", f"argument {name!r} holds an unpaired surrogate") from exc
    return value


def arg_text(args: Args, name: str, default: Any = _MISSING) -> str:
    value = _get(args, name, default)
    if isinstance(value, str):
        return utf8_text(name, value)
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
    return utf8_text(name, value)


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
    return [utf8_text(name, item) for item in value]


# The forms an instant argument may take (schemas/ops/wire.json, "instant"): ASCII digits,
# a year of four or more digits without a sign, and every field within its range.
_WIRE_INSTANT = re.compile(
    r"[0-9]{4,}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3])"
    r":[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_in_month(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _MONTH_DAYS[month - 1]


def _wire_instant(name: str, value: str) -> None:
    if _WIRE_INSTANT.fullmatch(value) is None:
        raise OpError("invalid-args", f"argument {name!r}: not an RFC 3339 timestamp: {value!r}")
    year, month, day = (
        int(part) for part in value[: value.index("T" if "T" in value else "t")].split("-")
    )
    if day > _days_in_month(year, month):
        raise OpError("invalid-args", f"argument {name!r}: day out of range: {value!r}")


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
    _wire_instant(name, value)
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

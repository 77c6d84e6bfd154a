"""What the suite's properties and snapshots share: calling the adapter and remembering
the calls, so that a failure is told in the protocol's terms (op, args, reply); reading
what the implementation answered or left behind, so that whatever it got wrong fails the
case as its own failure (``CaseFailure``) and is never taken for a fault of the harness;
and the scratch folders they hand the adapter.

A property states its invariant with ``expect_equal`` where it compares a reply (or a
file an op left) with a value it requires, and with ``assert`` where it checks a
predicate; every other exception it raises is a bug of memspec.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memspec.corpus.compare import json_equal, text_bytes
from memspec.exceptions import CaseFailure
from memspec.judge.messages import abridge, describe_difference, first_mismatch, shown_json
from memspec.run.calls import Call, call_adapter, recent_calls
from memspec.run.scratch import scratch_folder
from memspec.wire.adapters import Adapter, Response

__all__ = [
    "Call",
    "expect_equal",
    "file_bytes",
    "file_mode",
    "json_of",
    "names_in",
    "object_with",
    "recent_calls",
    "reference_result",
    "reply",
    "result",
    "scratch_folder",
    "text_of",
]

_REFERENCE: list[Adapter] = []
_LONG = 400
_SHORT = 160


def reply(adapter: Adapter, op: str, args: dict[str, Any]) -> Response:
    """Call ``op`` and remember the call; texts in the reply are decoded (a string
    wherever the bytes are UTF-8), so either wire form of a text compares alike."""
    return call_adapter(adapter, op, args)


def result(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    """Call ``op``; its result, or CaseFailure naming the error the adapter answered."""
    response = reply(adapter, op, args)
    if response.is_error:
        raise CaseFailure(
            f"{op} answered error '{response.error_kind}': {abridge(response.error_message, 300)}"
        )
    return response.result


def reference_result(op: str, args: dict[str, Any]) -> Any:
    """The reference implementation's result, through the ``reference`` adapter."""
    if not _REFERENCE:
        _REFERENCE.append(Adapter("reference"))
    response = _REFERENCE[0].call(op, args)
    if response.is_error:
        raise CaseFailure(f"the reference answered {op} with error '{response.error_kind}'")
    return response.result


def expect_equal(
    op: str,
    args: Mapping[str, Any],
    expected: Any,
    actual: Any,
    *,
    what: str = "result",
    whole_reply: Any = None,
) -> None:
    """Go on when ``actual`` equals ``expected`` as JSON (texts by their bytes, bytes as
    text, member order aside); otherwise fail the case with the call (op and args), its
    reply, both values and where they differ, each text escaped once.

    ``what`` names what was compared: the op's result, or what it left (``content of
    /memories/a.txt``). The reply is the one ``reply`` or ``result`` remembered for the
    call, or ``whole_reply`` for a message sent as it is."""
    wanted, got = _as_json(expected), _as_json(actual)
    if json_equal(wanted, got):
        return
    lines = [f"{op}: wrong {what}", f"  op:    {op}", f"  args:  {abridge(dict(args), _LONG)}"]
    whole = _as_json(whole_reply) if whole_reply is not None else _reply_to(op, args)
    if whole is not None:
        lines.append(f"  reply: {abridge(whole, _LONG)}")
    lines += [f"  expected: {abridge(wanted, _LONG)}", f"  actual:   {abridge(got, _LONG)}"]
    raise CaseFailure("\n".join(lines + _difference(wanted, got)))


def object_with(value: Any, *names: str, what: str = "the result") -> dict[str, Any]:
    """``value`` when it is an object holding every member named; the case fails when it
    is not."""
    if not isinstance(value, dict) or any(name not in value for name in names):
        raise CaseFailure(
            f"{what} is not an object with the members {', '.join(names)}: "
            f"{abridge(_as_json(value), _LONG)}"
        )
    return value


def text_of(value: Any, what: str = "the result") -> str:
    """The text a wire value (or bytes read from a file) stands for; the case fails when
    it is not UTF-8 text."""
    data = value if isinstance(value, bytes) else text_bytes(value)
    if data is None:
        raise CaseFailure(f"{what} is not text: {abridge(_as_json(value), _LONG)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CaseFailure(f"{what} is not UTF-8: {abridge(_as_json(value), _LONG)}") from None


def json_of(value: Any, what: str = "the result") -> Any:
    """The JSON value a text holds; the case fails when it holds none."""
    text = text_of(value, what)
    try:
        return json.loads(text)
    except ValueError:
        raise CaseFailure(f"{what} is not JSON: {abridge(text, _LONG)}") from None


def file_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """What the file at ``path`` holds, or None when no file is there."""
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        raise CaseFailure(f"the implementation left {path} unreadable: {exc.strerror}") from exc


def file_mode(path: str | os.PathLike[str]) -> str | None:
    """The permission bits of the file at ``path`` as four octal digits (``0600``), or
    None when nothing is there."""
    try:
        return f"{stat.S_IMODE(os.stat(path).st_mode):04o}"
    except (FileNotFoundError, NotADirectoryError):
        return None


def names_in(path: str | os.PathLike[str]) -> list[str] | None:
    """The sorted names in the directory at ``path``, or None when no directory is there."""
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise CaseFailure(f"the implementation left {path} unreadable: {exc.strerror}") from exc


def _reply_to(op: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The reply to the latest remembered call of ``op`` with ``args``, as JSON."""
    for call in reversed(recent_calls()):
        if call.op == op and call.args == args:
            return call.reply_json()
    return None


def _as_json(value: Any) -> Any:
    """``value`` as the wire carries it: bytes as text (base64 when not UTF-8), tuples
    and sets as lists."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Mapping):
        return {str(key): _as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_as_json(item) for item in value), key=shown_json)
    return value


def _difference(expected: Any, actual: Any) -> list[str]:
    """Where two JSON values first differ and how, unless both are short and differ as
    a whole (the expected and actual lines already say all)."""
    where, expected_part, actual_part = first_mismatch(expected, actual)
    if not where and max(len(shown_json(expected)), len(shown_json(actual))) <= _SHORT:
        return []
    heading = f"  differs at {where}:" if where else "  difference:"
    return [heading] + ["  " + line for line in _part_difference(expected_part, actual_part)]


def _part_difference(expected: Any, actual: Any) -> list[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        return _member_difference(expected, actual)
    if isinstance(expected, list) and isinstance(actual, list):
        return _item_difference(expected, actual)
    if text_bytes(expected) is not None and text_bytes(actual) is not None:
        return describe_difference(expected, actual)
    return [f"  expected: {abridge(expected, _LONG)}", f"  actual:   {abridge(actual, _LONG)}"]


def _member_difference(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    missing = [key for key in expected if key not in actual]
    unexpected = [key for key in actual if key not in expected]
    lines = []
    if missing:
        lines.append("  missing members: " + ", ".join(shown_json(key) for key in missing))
    if unexpected:
        lines.append("  unexpected members: " + ", ".join(shown_json(key) for key in unexpected))
    return lines


def _item_difference(expected: list[Any], actual: list[Any]) -> list[str]:
    agreeing = 0
    while agreeing < min(len(expected), len(actual)) and json_equal(
        expected[agreeing], actual[agreeing]
    ):
        agreeing += 1
    return [
        f"  expected {len(expected)} items, actual {len(actual)}; the first {agreeing} agree",
        f"  expected /{agreeing}: {_item(expected, agreeing)}",
        f"  actual /{agreeing}:   {_item(actual, agreeing)}",
    ]


def _item(items: list[Any], index: int) -> str:
    return abridge(items[index]) if index < len(items) else "(none: the list ends)"

"""Every way a comparison is relaxed, each named and tested.

Results are compared by ``json_equal``: strict JSON equality in which object key order
does not count (except in the objects an op's schema names under
``x-memspec-member-order``, a list of JSON Pointers into the result, ``*`` standing for
every member of an array, whose member order ``member_order_differences`` compares),
and text may be sent either as a string or as ``{"base64": ...}``. Where
an expected result holds ``{"text_pattern": "<regular expression>"}``, the reply's text
there must match the expression as a whole (for what a case cannot pin, such as the size
a filesystem gives a directory). Every reply reaches its judge through ``decode_text``, so
a fixture, a property and a snapshot see the same value whichever form the adapter chose.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from typing import Any

from memspec.corpus.pointers import values_at

__all__ = [
    "MEMBER_ORDER",
    "decode_text",
    "is_text_pattern",
    "json_equal",
    "member_order_differences",
    "text_bytes",
    "text_matches_pattern",
]

MEMBER_ORDER = "x-memspec-member-order"
"""The op-schema keyword listing the objects of a result whose member order counts."""


def text_bytes(value: Any) -> bytes | None:
    """The bytes a wire text value stands for, or None when ``value`` is not text.

    >>> text_bytes("é") == text_bytes({"base64": "w6k="})
    True
    """
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, dict) and set(value) == {"base64"} and isinstance(value["base64"], str):
        try:
            return base64.b64decode(value["base64"], validate=True)
        except binascii.Error:
            return None
    return None


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest in ``value`` more than ``limit`` levels deep,
    found without recursion (the value may come from an adapter, nested without end)."""
    pending = [(value, 1)]
    while pending:
        current, depth = pending.pop()
        if not isinstance(current, (dict, list)):
            continue
        if depth > limit:
            return True
        children = current.values() if isinstance(current, dict) else current
        pending.extend((child, depth + 1) for child in children)
    return False


def decode_text(value: Any) -> Any:
    """``value`` with each text in one form: a string wherever its bytes are UTF-8, and
    standard, padded ``{"base64": ...}`` otherwise.

    >>> decode_text({"outline": {"base64": "MSAgQQ=="}, "lines": [{"base64": "/w=="}]})
    {'outline': '1  A', 'lines': [{'base64': '/w=='}]}
    """
    if isinstance(value, list):
        return [decode_text(item) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) != {"base64"}:
        return {key: decode_text(item) for key, item in value.items()}
    data = text_bytes(value)
    if data is None:
        return value
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def json_equal(expected: Any, actual: Any) -> bool:
    """Strict JSON equality: no ``1 == 1.0 == True``; key order ignored; text by its bytes.

    >>> json_equal({"a": 1, "b": [True]}, {"b": [True], "a": 1})
    True
    >>> json_equal(1, True), json_equal(1, 1.0)
    (False, False)
    >>> json_equal({"size": {"text_pattern": "[0-9]+K"}}, {"size": "4K"})
    True
    """
    if is_text_pattern(expected):
        actual_text = text_bytes(actual)
        return actual_text is not None and text_matches_pattern(
            expected["text_pattern"], actual_text
        )
    expected_text = text_bytes(expected)
    if expected_text is not None:
        return text_bytes(actual) == expected_text
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(json_equal(expected[key], actual[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(json_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return type(expected) is type(actual) and expected == actual


def is_text_pattern(value: Any) -> bool:
    """Whether an expected value is ``{"text_pattern": ...}``: text judged by a pattern."""
    return (
        isinstance(value, dict)
        and set(value) == {"text_pattern"}
        and isinstance(value["text_pattern"], str)
    )


def text_matches_pattern(pattern: str, content: bytes) -> bool:
    """Whether the whole UTF-8 ``content`` matches ``pattern`` (expected trees and results).

    >>> text_matches_pattern("[0-9]+", b"4312"), text_matches_pattern("[0-9]+", b"43\\n")
    (True, False)
    """
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return re.fullmatch(pattern, text) is not None


def member_order_differences(expected: Any, actual: Any, pointers: Iterable[str]) -> list[str]:
    """Where an object at one of ``pointers`` holds its members in another order than
    expected (for results already found ``json_equal``).

    >>> member_order_differences({"m": {"a": 1, "b": 2}}, {"m": {"b": 2, "a": 1}}, ["/m"])
    ["/m: members ['b', 'a'], expected ['a', 'b']"]
    """
    found = []
    for pointer in pointers:
        pairs = zip(values_at(expected, pointer), values_at(actual, pointer), strict=False)
        for want, got in pairs:
            if isinstance(want, dict) and isinstance(got, dict) and list(want) != list(got):
                found.append(f"{pointer}: members {list(got)}, expected {list(want)}")
    return found

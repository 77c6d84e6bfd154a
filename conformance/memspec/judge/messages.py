"""Failure messages a person can read: values shown escaped, long ones as a diff."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from memspec.corpus.compare import is_text_pattern, json_equal, text_bytes

__all__ = [
    "abridge",
    "describe_difference",
    "first_mismatch",
    "json_text",
    "named",
    "shown_json",
    "visible",
]

_SHORT = 160
_CONTEXT = 40


def visible(text: str) -> str:
    """``text`` with every invisible, control or combining character escaped (and the
    backslash, so that an escape is never ambiguous); every printable character, ASCII or
    not, is shown as it is, so that a precomposed ``é`` reads ``é`` and a decomposed one
    ``e\\u0301``."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in "\\":
            out.append("\\\\")
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        elif (
            unicodedata.category(char)[0] in "LNPS"
            and unicodedata.category(char) != "Mn"
            and char.isprintable()
        ):
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    data = text_bytes(value)
    if data is None:
        return None
    return data.decode("utf-8", "surrogateescape")


def shown_json(value: Any) -> str:
    """A JSON value on one line, each text escaped once, by ``visible`` (``"x\\n"``,
    never ``"x\\\\n"``), its quotes as JSON writes them."""
    text = _as_text(value)
    if text is not None:
        return '"' + visible(text).replace('"', '\\"') + '"'
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: str(item[0]))
        return "{" + ", ".join(f"{shown_json(str(k))}: {shown_json(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown_json(item) for item in value) + "]"
    return json.dumps(value)


_PART = 24
"""The fewest characters an item or member of a long value is cut to."""


def abridge(value: Any, limit: int = _SHORT) -> str:
    """A one-line rendering of a JSON value, cut when long: an object or array inside its
    members or items, each cut to its share of ``limit`` (so that no cut runs across two
    items and reads as one), a text in its middle."""
    shown = shown_json(value)
    if len(shown) <= limit:
        return shown
    if isinstance(value, dict) and value and _as_text(value) is None:
        items = sorted(value.items(), key=lambda item: str(item[0]))
        keys = [f"{shown_json(str(k))}: " for k, _ in items]
        room = limit - sum(len(key) + 2 for key in keys)
        shares = _shares([len(shown_json(v)) for _, v in items], room)
        parts = [key + abridge(v, n) for key, (_, v), n in zip(keys, items, shares, strict=True)]
        return "{" + ", ".join(_at_most(parts, limit)) + "}"
    if isinstance(value, (list, tuple)) and value:
        shares = _shares([len(shown_json(v)) for v in value], limit - 2 * len(value))
        parts = [abridge(v, n) for v, n in zip(value, shares, strict=True)]
        return "[" + ", ".join(_at_most(parts, limit)) + "]"
    half = (limit - 5) // 2
    return f"{shown[:half]} … {shown[-half:]}"


def _shares(sizes: list[int], room: int) -> list[int]:
    """How many characters each part may take of ``room``: a part smaller than an even
    share keeps its size, and the rest share what is left (never less than _PART)."""
    shares = [0] * len(sizes)
    waiting = sorted(range(len(sizes)), key=lambda i: sizes[i])
    while waiting:
        even = max(_PART, room // len(waiting))
        index = waiting.pop(0)
        shares[index] = min(sizes[index], even)
        room -= shares[index]
    return shares


def _at_most(parts: list[str], limit: int) -> list[str]:
    """``parts``, or as many first ones as fit in ``limit`` with the last, and a count of
    those left out between them."""
    if sum(len(part) + 2 for part in parts) <= limit or len(parts) <= 2:
        return parts
    kept: list[str] = []
    room = limit - len(parts[-1]) - 24
    for part in parts[:-1]:
        if room < len(part) + 2:
            break
        kept.append(part)
        room -= len(part) + 2
    left_out = len(parts) - len(kept) - 1
    return [*kept, f"… {left_out} more …", parts[-1]]


def describe_difference(expected: Any, actual: Any) -> list[str]:
    """Lines saying how ``actual`` differs from ``expected``.

    Short values are shown whole. Long or multi-line texts (and long JSON) are shown as
    the first differing offset with context on both sides. Where ``expected`` holds a
    ``text_pattern``, the member that differs is named, and a text that misses its
    pattern is shown by the first line of it that misses the same line of the pattern.
    """
    embedded = _json_text_difference(expected, actual)
    return (
        embedded or _structured_difference(expected, actual) or _plain_difference(expected, actual)
    )


def _structured_difference(expected: Any, actual: Any) -> list[str]:
    """For long objects and arrays (not texts): the member or item where they first
    differ, named by its pointer and its place in its list, then how it differs there;
    empty otherwise."""
    if _as_text(expected) is not None or _as_text(actual) is not None:
        return []
    if not isinstance(expected, (dict, list)) or not isinstance(actual, (dict, list)):
        return []
    if max(len(shown_json(expected)), len(shown_json(actual))) <= _SHORT:
        return []
    where, expected_leaf, actual_leaf = first_mismatch(expected, actual, "")
    if isinstance(expected_leaf, list) and isinstance(actual_leaf, list):
        agree = 0
        while agree < min(len(expected_leaf), len(actual_leaf)) and json_equal(
            expected_leaf[agree], actual_leaf[agree]
        ):
            agree += 1
        inner = [
            f"  expected {len(expected_leaf)} items, actual {len(actual_leaf)}; the first "
            f"{agree} agree",
            f"  expected item {agree + 1}: {_nth(expected_leaf, agree)}",
            f"  actual item {agree + 1}:   {_nth(actual_leaf, agree)}",
        ]
        return [f"  at {named(where, expected) or '/'}:", *inner] if where else inner
    if not where:
        return []
    inner = describe_difference(expected_leaf, actual_leaf)
    return [f"  at {named(where, expected)}:", *("  " + line for line in inner)]


def _nth(items: list[Any], index: int) -> str:
    return abridge(items[index]) if index < len(items) else "(none: the list ends)"


def named(where: str, value: Any) -> str:
    """A JSON Pointer into ``value`` with the place of each item it passes in its list:
    ``/events/5 (item 6 of 8)``."""
    places = []
    for part in where.split("/")[1:]:
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            places.append(f"item {int(part) + 1} of {len(value)}")
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            break
    return f"{where} ({', '.join(places)})" if places else where


def _plain_difference(expected: Any, actual: Any) -> list[str]:
    """describe_difference, without looking for JSON inside a text."""
    if _holds_pattern(expected):
        where, expected_leaf, actual_leaf = first_mismatch(expected, actual, "")
        lines = [f"  at {named(where, expected)}:"] if where else []
        if is_text_pattern(expected_leaf):
            return lines + _pattern_difference(expected_leaf["text_pattern"], actual_leaf)
        if where:
            return lines + ["  " + line for line in describe_difference(expected_leaf, actual_leaf)]
    expected_text, actual_text = _as_text(expected), _as_text(actual)
    if expected_text is None or actual_text is None:
        expected_text = json.dumps(expected, ensure_ascii=False, sort_keys=True)
        actual_text = json.dumps(actual, ensure_ascii=False, sort_keys=True)
        short = len(expected_text) <= _SHORT and len(actual_text) <= _SHORT
        if short:
            return [f"  expected: {abridge(expected)}", f"  actual:   {abridge(actual)}"]
    elif (
        len(expected_text) <= _SHORT
        and len(actual_text) <= _SHORT
        and "\n" not in expected_text + actual_text
    ):
        return [f"  expected: {abridge(expected)}", f"  actual:   {abridge(actual)}"]
    offset = _first_difference(expected_text, actual_text)
    line = expected_text.count("\n", 0, offset) + 1
    start = max(0, offset - _CONTEXT)
    lines = [
        f"  expected {len(expected_text)} chars, actual {len(actual_text)} chars; first "
        f"difference at offset {offset} (line {line}):",
        f"  expected: …{visible(expected_text[start : offset + _CONTEXT])}…",
        f"  actual:   …{visible(actual_text[start : offset + _CONTEXT])}…",
    ]
    return lines


def json_text(value: Any) -> Any:
    """The object or array a text holds whole (a reply that is a JSON text), or None."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return None
    try:
        decoded = json.loads(value)
    except ValueError:
        return None
    return decoded if isinstance(decoded, (dict, list)) else None


def _json_text_difference(expected: Any, actual: Any) -> list[str]:
    """Where the first difference lies in a text that holds JSON on both sides: that
    JSON decoded, member by member, so that nothing is escaped twice; empty otherwise."""
    where, expected_leaf, actual_leaf = first_mismatch(expected, actual, "")
    expected_json, actual_json = json_text(expected_leaf), json_text(actual_leaf)
    if expected_json is None or actual_json is None:
        return []
    lines = [f"  at {named(where, expected) or '/'}: a JSON text, shown decoded"]
    if json_equal(expected_json, actual_json):
        # The same JSON written otherwise (member order, spacing): the text shows how.
        offset = _first_difference(expected_leaf, actual_leaf)
        start = max(0, offset - _CONTEXT)
        return [
            *lines,
            "  the same JSON, written differently (member order, spacing or escapes); "
            f"the texts first differ at offset {offset}:",
            f"  expected: …{visible(expected_leaf[start : offset + _CONTEXT])}…",
            f"  actual:   …{visible(actual_leaf[start : offset + _CONTEXT])}…",
        ]
    return lines + _members_differing(expected_json, actual_json, "")


def _members_differing(expected: Any, actual: Any, where: str) -> list[str]:
    """Each member (or item) of two decoded JSON values that differs, by its pointer."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        lines = []
        for key, value in expected.items():
            if key not in actual:
                lines.append(f"  {where}/{key}: missing; expected {abridge(value)}")
            elif not json_equal(value, actual[key]):
                lines += _members_differing(value, actual[key], f"{where}/{key}")
        lines += [
            f"  {where}/{key}: not expected; actual {abridge(value)}"
            for key, value in actual.items()
            if key not in expected
        ]
        return lines
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        lines = []
        for index, (item, other) in enumerate(zip(expected, actual, strict=True)):
            if not json_equal(item, other):
                lines += _members_differing(item, other, f"{where}/{index}")
        return lines
    if isinstance(expected, list) and isinstance(actual, list):
        return [
            f"  {where or '/'}: expected {len(expected)} items, actual {len(actual)}",
            f"    expected: {abridge(expected, 300)}",
            f"    actual:   {abridge(actual, 300)}",
        ]
    return [f"  {where or '/'}:"] + ["  " + line for line in describe_difference(expected, actual)]


def _first_difference(left: str, right: str) -> int:
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return index
    return min(len(left), len(right))


def _holds_pattern(value: Any) -> bool:
    if is_text_pattern(value):
        return True
    if isinstance(value, dict):
        return any(_holds_pattern(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_pattern(item) for item in value)
    return False


def first_mismatch(expected: Any, actual: Any, where: str = "") -> tuple[str, Any, Any]:
    """The JSON Pointer of the innermost member where ``actual`` first departs from
    ``expected`` (a text pattern is a value, not an object), and both values there."""
    if (
        isinstance(expected, dict)
        and not is_text_pattern(expected)
        and isinstance(actual, dict)
        and expected.keys() == actual.keys()
    ):
        for key in expected:
            if not json_equal(expected[key], actual[key]):
                return first_mismatch(expected[key], actual[key], f"{where}/{key}")
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (item, other) in enumerate(zip(expected, actual, strict=True)):
            if not json_equal(item, other):
                return first_mismatch(item, other, f"{where}/{index}")
    return where, expected, actual


def _pattern_difference(pattern: str, actual: Any) -> list[str]:
    """Which line of the text misses which line of the pattern, when both have lines;
    both whole otherwise."""
    text = _as_text(actual)
    if text is None:
        return [
            f"  expected: a text matching {abridge(pattern, 300)}",
            f"  actual:   {abridge(actual)}",
        ]
    parts, lines = pattern.split("\n"), text.split("\n")
    try:
        compiled = [re.compile(part) for part in parts]
    except re.error:
        compiled = []
    if compiled:
        for number, (part, line) in enumerate(zip(compiled, lines, strict=False), 1):
            if part.fullmatch(line) is None:
                return [
                    f"  line {number} of the text does not match line {number} of the pattern:",
                    f"  pattern:  {abridge(parts[number - 1], 300)}",
                    f"  text:     {abridge(line, 300)}",
                ]
        if len(parts) != len(lines):
            return [
                f"  the pattern has {len(parts)} lines, the text {len(lines)}; the first "
                f"{min(len(parts), len(lines))} match",
                f"  pattern:  {abridge(pattern, 300)}",
                f"  text:     {abridge(text, 300)}",
            ]
    return [
        "  the text does not match the pattern:",
        f"  pattern:  {abridge(pattern, 300)}",
        f"  text:     {abridge(text, 300)}",
    ]

"""Failure messages a person can read: values shown escaped, long ones as a diff."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from memspec.corpus.compare import text_bytes

__all__ = ["abridge", "describe_difference", "visible"]

_SHORT = 160
_CONTEXT = 40


def visible(text: str) -> str:
    """``text`` with every invisible, combining or non-ASCII look-alike character escaped."""
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
            and _not_confusable(char)
        ):
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def _not_confusable(char: str) -> bool:
    # Letters that decompose to ASCII (i̇, é) look like ASCII text: show them escaped.
    decomposed = unicodedata.normalize("NFKD", char)
    return not any(ord(c) < 0x80 for c in decomposed)


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    data = text_bytes(value)
    if data is None:
        return None
    return data.decode("utf-8", "surrogateescape")


def abridge(value: Any, limit: int = _SHORT) -> str:
    """A one-line rendering of a JSON value, cut in the middle when long."""
    text = _as_text(value)
    shown = (
        ('"' + visible(text) + '"')
        if text is not None
        else visible(json.dumps(value, ensure_ascii=False, sort_keys=True))
    )
    if len(shown) <= limit:
        return shown
    half = (limit - 5) // 2
    return f"{shown[:half]} … {shown[-half:]}"


def describe_difference(expected: Any, actual: Any) -> list[str]:
    """Lines saying how ``actual`` differs from ``expected``.

    Short values are shown whole. Long or multi-line texts (and long JSON) are shown as
    the first differing offset with context on both sides.
    """
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


def _first_difference(left: str, right: str) -> int:
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return index
    return min(len(left), len(right))

"""JSON as Go's encoding/json writes and reads it, for the migration record and ledger."""

from __future__ import annotations

import json
from typing import Any

from memref._gostr import encode

__all__ = ["decode_go", "marshal_indent"]


_PLAIN = frozenset(
    " !#$%'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~"
)


def _string(text: str) -> str:
    if _PLAIN.issuperset(text):
        return '"' + text + '"'
    data = encode(text)
    out = ['"']
    i = 0
    while i < len(data):
        byte = data[i]
        if byte < 0x80:
            char = chr(byte)
            if char in '"\\':
                out.append("\\" + char)
            elif char == "\n":
                out.append("\\n")
            elif char == "\r":
                out.append("\\r")
            elif char == "\t":
                out.append("\\t")
            elif byte < 0x20 or char in "<>&":
                out.append(f"\\u{byte:04x}")
            else:
                out.append(char)
            i += 1
            continue
        for width in (2, 3, 4):
            try:
                rune = data[i : i + width].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(rune) == 1:
                break
        else:
            out.append("\\ufffd")
            i += 1
            continue
        out.append("\\u2028" if rune == "\u2028" else "\\u2029" if rune == "\u2029" else rune)
        i += width
    out.append('"')
    return "".join(out)


def _value(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = ",\n".join(inner + _value(item, inner) for item in value)
        return "[\n" + items + "\n" + indent + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = ",\n".join(f"{inner}{_string(k)}: {_value(v, inner)}" for k, v in value.items())
        return "{\n" + items + "\n" + indent + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


def marshal_indent(value: Any) -> bytes:
    """json.MarshalIndent(value, "", "  ") followed by a newline."""
    return encode(_value(value, "") + "\n")


def decode_go(data: bytes) -> Any:
    """Parse JSON; invalid UTF-8 becomes U+FFFD byte by byte, as Go's decoder does."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _replace_invalid(data)
    return json.loads(text)


def _replace_invalid(data: bytes) -> str:
    out: list[str] = []
    i = 0
    while i < len(data):
        if data[i] < 0x80:
            out.append(chr(data[i]))
            i += 1
            continue
        for width in (2, 3, 4):
            try:
                rune = data[i : i + width].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(rune) == 1:
                out.append(rune)
                i += width
                break
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)

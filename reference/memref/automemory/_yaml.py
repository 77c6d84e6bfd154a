"""The YAML that memory files use, with YAML 1.2 core-schema typing, in the standard
library: block mappings (nested by indentation), block sequences of scalars (also at
their parent key's indentation, as YAML 1.2 allows), flow
sequences of scalars, plain, single- and double-quoted one-line scalars, comments.

Anything else (anchors, tags, block scalars, flow mappings, multi-line scalars, tabs in
indentation) is refused with ``YamlError``; the spec leaves those documents unspecified.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["YamlError", "parse_yaml", "quote_awkward_values"]


class YamlError(ValueError):
    """The document is outside what this parser reads, or not YAML."""


_NULL = re.compile(r"null|Null|NULL|~")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_COMMENT = re.compile(r"(?:^|[ \t])#.*\Z")
_ESCAPES = {
    "\\": "\\",
    '"': '"',
    "/": "/",
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "b": "\b",
    "f": "\f",
    " ": " ",
}
_INDICATORS = set("&*!|>%@`{}")


def typed_plain(text: str) -> Any:
    """A plain scalar under the YAML 1.2 core schema."""
    if text == "" or _NULL.fullmatch(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.fullmatch(text):
        # The seed's numbers are doubles: '-0' is negative zero.
        return -0.0 if text.startswith("-") and int(text) == 0 else int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


def _double_quoted(text: str) -> tuple[str, str]:
    """The scalar opening ``text`` (at a ``"``) and what follows it."""
    out: list[str] = []
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(out), text[index + 1 :]
        if char == "\\":
            code = text[index + 1 : index + 2]
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                index += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(code)
            digits = text[index + 2 : index + 2 + width] if width else ""
            if not width or not re.fullmatch("[0-9a-fA-F]+", digits) or len(digits) != width:
                raise YamlError("bad escape in a double-quoted scalar")
            out.append(chr(int(digits, 16)))
            index += 2 + width
            continue
        out.append(char)
        index += 1
    raise YamlError("unterminated double-quoted scalar")


def _single_quoted(text: str) -> tuple[str, str]:
    out: list[str] = []
    index = 1
    while index < len(text):
        char = text[index]
        if char == "'":
            if text[index + 1 : index + 2] == "'":
                out.append("'")
                index += 2
                continue
            return "".join(out), text[index + 1 :]
        out.append(char)
        index += 1
    raise YamlError("unterminated single-quoted scalar")


def _after_scalar(rest: str) -> None:
    if rest.strip(" \t") and not rest.lstrip(" \t").startswith("#"):
        raise YamlError("text after a quoted scalar")
    if rest and rest[0] not in " \t" and rest.strip(" \t"):
        raise YamlError("text after a quoted scalar")


def _flow_sequence(text: str) -> list[Any]:
    close = text.find("]")
    if close < 0:
        raise YamlError("unterminated flow sequence")
    _after_scalar(text[close + 1 :])
    inner = text[1:close]
    if "[" in inner or "{" in inner:
        raise YamlError("nested flow collections")
    items: list[Any] = []
    if not inner.strip(" \t"):
        return items
    parts = inner.split(",")
    if parts and not parts[-1].strip(" \t"):
        parts.pop()
    for part in parts:
        item = part.strip(" \t")
        if not item:
            raise YamlError("empty flow sequence entry")
        items.append(_scalar(item))
    return items


def _scalar(text: str) -> Any:
    """One scalar value (a whole value after ``key: `` or ``- ``)."""
    if text.startswith('"'):
        value, rest = _double_quoted(text)
        _after_scalar(rest)
        return value
    if text.startswith("'"):
        value, rest = _single_quoted(text)
        _after_scalar(rest)
        return value
    if text.startswith("["):
        return _flow_sequence(text)
    plain = _COMMENT.sub("", text).rstrip(" \t")
    if plain[:1] in _INDICATORS or plain.startswith("- ") or plain in ("-", "?"):
        raise YamlError("unsupported node")
    if ": " in plain or plain.endswith(":") or " #" in plain:
        raise YamlError("mapping values are not allowed here")
    return typed_plain(plain)


@dataclass
class _Line:
    indent: int
    text: str


def _lines(document: str) -> list[_Line]:
    lines = []
    for raw in document.split("\n"):
        raw = raw.removesuffix("\r")
        body = raw.lstrip(" ")
        if body.startswith("\t") or (not body.strip(" \t")):
            if body.strip(" \t"):
                raise YamlError("tab in indentation")
            continue
        if body.startswith("#"):
            continue
        lines.append(_Line(len(raw) - len(body), body.rstrip(" \t")))
    return lines


def _split_key(text: str) -> tuple[str, str] | None:
    if text[:1] in "\"'[]{},&*!|>%@`#" or text.startswith("- ") or text == "-":
        return None
    colon = text.find(": ")
    if colon < 0:
        if not text.endswith(":"):
            return None
        colon = len(text) - 1
    key = text[:colon].rstrip(" \t")
    return (key, text[colon + 1 :].strip(" \t")) if key else None


def _block(lines: list[_Line], start: int, indent: int, compact: bool = False) -> tuple[Any, int]:
    """The block node whose lines start at ``start`` with this indentation; a
    ``compact`` sequence stands at its parent key's indentation (``tags:\n- a``) and
    ends at the first line there that is not an entry of it."""
    if lines[start].text.startswith("- ") or lines[start].text == "-":
        items: list[Any] = []
        index = start
        while index < len(lines) and lines[index].indent == indent:
            text = lines[index].text
            if not (text.startswith("- ") or text == "-"):
                if compact:
                    break
                raise YamlError("a mapping entry among sequence entries")
            item = text[2:].strip(" \t")
            if not item or _split_key(item) is not None:
                raise YamlError("unsupported sequence entry")
            items.append(_scalar(item))
            index += 1
        if index < len(lines) and lines[index].indent > indent:
            raise YamlError("bad indentation")
        return items, index
    mapping: dict[str, Any] = {}
    index = start
    while index < len(lines) and lines[index].indent == indent:
        entry = _split_key(lines[index].text)
        if entry is None:
            raise YamlError("expected a mapping entry")
        key, value = entry
        index += 1
        if value and not value.startswith("#"):
            mapping[key] = _scalar(value)
            if index < len(lines) and lines[index].indent > indent:
                raise YamlError("bad indentation of a mapping entry")
            continue
        child_indent = lines[index].indent if index < len(lines) else -1
        nested_sequence = (
            child_indent == indent
            and index < len(lines)
            and (lines[index].text.startswith("- ") or lines[index].text == "-")
        )
        if child_indent > indent or nested_sequence:
            mapping[key], index = _block(lines, index, child_indent, nested_sequence)
        else:
            mapping[key] = None
    if index < len(lines) and lines[index].indent > indent:
        raise YamlError("bad indentation")
    return mapping, index


def parse_yaml(document: str) -> Any:
    """The value of a one-document YAML text in the supported subset."""
    lines = _lines(document)
    if not lines:
        return None
    if lines[0].indent != 0 and any(line.indent < lines[0].indent for line in lines):
        raise YamlError("bad indentation")
    if _split_key(lines[0].text) is None and not lines[0].text.startswith("- "):
        if len(lines) > 1:
            raise YamlError("unexpected text")
        return _scalar(lines[0].text)
    value, index = _block(lines, 0, lines[0].indent)
    if index != len(lines):
        raise YamlError("unexpected text after the document")
    return value


_RETRY_LINE = re.compile(r"([ ]*)([a-zA-Z_-]+):[ \t]+(.+)")
_AWKWARD = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


def quote_awkward_values(document: str) -> str:
    """The seed's rewrite before its second parse: leading tabs become two spaces each,
    and a ``key: value`` line whose value holds a YAML indicator or ``": "`` gets the
    value double-quoted, unless it is quoted already or a flow sequence."""
    out = []
    for line in document.split("\n"):
        stripped = line.lstrip("\t")
        line = "  " * (len(line) - len(stripped)) + stripped
        match = _RETRY_LINE.fullmatch(line)
        if match:
            indent, key, value = match.groups()
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
            flow = value.startswith("[") and value.endswith("]")
            if _AWKWARD.search(value) and not quoted and not flow:
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{indent}{key}: "{escaped}"'
        out.append(line)
    return "\n".join(out)

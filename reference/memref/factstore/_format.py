"""The fact file: serialising a Memory, parsing one back, renaming its header.

Text is ``str`` with bytes that are not UTF-8 carried as lone surrogates
(``surrogateescape``), so Go strings round-trip; Go's ``strconv.Quote`` and
``strconv.Unquote`` are ported on the underlying bytes.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from memref._gostr import decode, encode, trim_space
from memref.factstore._constants import FACT_TYPES

__all__ = [
    "FactFormatError",
    "Memory",
    "go_quote",
    "go_quote_rune",
    "go_unquote",
    "parse_fact",
    "rename_fact_header",
    "serialize",
    "split_kv",
]

_HEX = "0123456789abcdef"
_SHORT_ESCAPES = {
    0x07: "\\a",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x0B: "\\v",
}
_UNESCAPE = {
    ord("a"): 0x07,
    ord("b"): 0x08,
    ord("f"): 0x0C,
    ord("n"): 0x0A,
    ord("r"): 0x0D,
    ord("t"): 0x09,
    ord("v"): 0x0B,
    ord("\\"): 0x5C,
}


class FactFormatError(ValueError):
    """A fact file the parser refuses (``missing frontmatter``, ``unterminated frontmatter``)."""


@dataclass
class Memory:
    name: str = ""
    description: str = ""
    type: str = ""
    invalidate_when: str = ""
    durable: bool = False
    body: str = ""
    scope: str = "project"
    path: str = ""

    @property
    def id(self) -> str:
        return f"{self.scope}/{self.name}"


def _decode_rune(data: bytes, i: int) -> tuple[int, int]:
    """Go's utf8.DecodeRune at ``i``: (rune, width); (0xFFFD, 1) for an invalid byte."""
    first = data[i]
    if first < 0x80:
        return first, 1
    for width in (2, 3, 4):
        chunk = data[i : i + width]
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) == 1:
            return ord(text), width
    return 0xFFFD, 1


def _is_print(rune: int) -> bool:
    """Go's strconv.IsPrint: categories L, M, N, P, S, or the ASCII space."""
    if rune == 0x20:
        return True
    return unicodedata.category(chr(rune))[0] in "LMNPS"


def _escape_rune(rune: int, quote: int) -> str:
    if rune in (quote, 0x5C):
        return "\\" + chr(rune)
    if _is_print(rune):
        return chr(rune)
    if rune in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[rune]
    if rune < 0x20 or rune == 0x7F:
        return "\\x" + _HEX[rune >> 4] + _HEX[rune & 0xF]
    if 0xD800 <= rune <= 0xDFFF or rune > 0x10FFFF:
        rune = 0xFFFD
    if rune < 0x10000:
        return f"\\u{rune:04x}"
    return f"\\U{rune:08x}"


def go_quote(text: str) -> str:
    """strconv.Quote: a double-quoted Go string literal for the bytes of ``text``."""
    data = encode(text)
    out = ['"']
    i = 0
    while i < len(data):
        rune, width = _decode_rune(data, i)
        if width == 1 and rune == 0xFFFD and data[i] >= 0x80:
            out.append("\\x" + _HEX[data[i] >> 4] + _HEX[data[i] & 0xF])
        else:
            out.append(_escape_rune(rune, 0x22))
        i += width
    out.append('"')
    return "".join(out)


def go_quote_rune(char: str) -> str:
    """strconv.QuoteRune of one character."""
    return "'" + _escape_rune(ord(char), 0x27) + "'"


def _unquote_char(data: bytes, i: int, quote: int) -> tuple[bytes, int] | None:
    """Go's UnquoteChar at ``i``: the bytes it stands for and the next index, or None."""
    c = data[i]
    if c == quote and quote in (0x27, 0x22):
        return None
    if c >= 0x80:
        rune, width = _decode_rune(data, i)
        return chr(rune).encode("utf-8"), i + width
    if c != 0x5C:
        return bytes([c]), i + 1
    if i + 1 >= len(data):
        return None
    c = data[i + 1]
    i += 2
    if c in _UNESCAPE:
        return bytes([_UNESCAPE[c]]), i
    if c in (ord("x"), ord("u"), ord("U")):
        n = {ord("x"): 2, ord("u"): 4, ord("U"): 8}[c]
        digits = data[i : i + n]
        if len(digits) < n or any(chr(d) not in "0123456789abcdefABCDEF" for d in digits):
            return None
        value = int(digits.decode("ascii"), 16)
        i += n
        if c == ord("x"):
            return bytes([value]), i
        if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
            return None
        return chr(value).encode("utf-8"), i
    if ord("0") <= c <= ord("7"):
        digits = data[i : i + 2]
        if len(digits) < 2 or any(not ord("0") <= d <= ord("7") for d in digits):
            return None
        value = ((c - 48) << 6) | ((digits[0] - 48) << 3) | (digits[1] - 48)
        if value > 255:
            return None
        return bytes([value]), i + 2
    if c in (0x27, 0x22):
        if c != quote:
            return None
        return bytes([c]), i
    return None


def go_unquote(text: str) -> str | None:
    """strconv.Unquote; None where Go returns ErrSyntax."""
    data = encode(text)
    if len(data) < 2:
        return None
    quote = data[0]
    end = data.find(bytes([quote]), 1)
    if end < 0:
        return None
    end += 1
    if quote == 0x60:
        if end != len(data):
            return None
        return decode(data[1 : end - 1].replace(b"\r", b""))
    if quote not in (0x22, 0x27):
        return None
    inner = data[1 : end - 1]
    if b"\\" not in inner and b"\n" not in inner:
        valid = False
        if quote == 0x22:
            try:
                inner.decode("utf-8")
                valid = True
            except UnicodeDecodeError:
                valid = False
        else:
            if inner:
                rune, width = _decode_rune(inner, 0)
                valid = width == len(inner) and not (rune == 0xFFFD and width == 1)
        if valid:
            return decode(inner) if end == len(data) else None
    out = bytearray()
    i = 1
    while i < len(data) and data[i] != quote:
        if data[i] == 0x0A:
            return None
        step = _unquote_char(data, i, quote)
        if step is None:
            return None
        chunk, i = step
        out += chunk
        if quote == 0x27:
            break
    if not (i < len(data) and data[i] == quote):
        return None
    if i + 1 != len(data):
        return None
    return decode(bytes(out))


def serialize(memory: Memory) -> str:
    """The exact text Write stores for ``memory``."""
    lines = [
        "---",
        f"name: {memory.name}",
        f"description: {memory.description}",
        f"type: {memory.type}",
    ]
    if memory.invalidate_when != "":
        lines.append(f"invalidate_when: {go_quote(memory.invalidate_when)}")
    lines.append("---")
    return "\n".join(lines) + "\n\n" + memory.body.rstrip("\n") + "\n"


def split_kv(line: str) -> tuple[str, str] | None:
    """One header line as (key, value): split at the first colon, trimmed, one layer of
    matching quotes removed; None for a line without a colon or with an empty key."""
    key, colon, value = line.partition(":")
    if not colon:
        return None
    key = trim_space(key)
    if key == "":
        return None
    value = trim_space(value)
    raw = encode(value)
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in (0x22, 0x27):
        value = decode(raw[1:-1])
    return key, value


def _lines(content: str) -> list[str]:
    return content.replace("\r\n", "\n").split("\n")


def _closing(lines: list[str]) -> int:
    if trim_space(lines[0]) != "---":
        raise FactFormatError("missing frontmatter")
    for index in range(1, len(lines)):
        if trim_space(lines[index]) == "---":
            return index
    raise FactFormatError("unterminated frontmatter")


def parse_fact(content: str) -> Memory:
    """Parse a fact file; raises FactFormatError. Scope follows the parsed type."""
    lines = _lines(content)
    end = _closing(lines)
    values: dict[str, str] = {}
    raw_when: str | None = None
    for line in lines[1:end]:
        pair = split_kv(line)
        if pair is None:
            continue
        key, value = pair
        values[key] = value
        if key == "invalidate_when":
            raw_when = trim_space(line.partition(":")[2])
    fact_type = values.get("type", "")
    if fact_type not in FACT_TYPES:
        fact_type = "project"
    when = values.get("invalidate_when", "")
    if raw_when is not None:
        unquoted = go_unquote(raw_when)
        if unquoted is not None and "\r" not in unquoted and "\n" not in unquoted:
            when = unquoted
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return Memory(
        name=values.get("name", ""),
        description=values.get("description", ""),
        type=fact_type,
        invalidate_when=when,
        durable=when == "",
        body=body,
        scope="global" if fact_type in ("user", "feedback") else "project",
    )


def rename_fact_header(data: bytes, name: str) -> bytes:
    """moa's renameFactHeader: the first ``name`` line of the frontmatter becomes
    ``name: <name>``; unchanged without a ``---\n`` or ``---\r\n`` opening, without a
    closing ``---`` line, or without a ``name`` key.

    The lines are split on the opening's own line ending. In a file opening ``---\r\n``
    one such line may hold bare ``\n`` line breaks; only the ``\n`` line holding the
    key's colon is replaced, where moa would replace them all."""
    if data.startswith(b"---\r\n"):
        separator = b"\r\n"
    elif data.startswith(b"---\n"):
        separator = b"\n"
    else:
        return data
    lines = data.split(separator)
    closing = next((i for i in range(1, len(lines)) if trim_space(decode(lines[i])) == "---"), None)
    for index in range(1, closing or 0):
        key, colon, _ = lines[index].partition(b":")
        if colon and trim_space(decode(key)) == "name":
            lines[index] = _renamed_line(lines[index], encode(name))
            return separator.join(lines)
    return data


def _renamed_line(line: bytes, name: bytes) -> bytes:
    colon = line.index(b":")
    start = line.rfind(b"\n", 0, colon) + 1
    stop = line.find(b"\n", colon)
    return line[:start] + b"name: " + name + (line[stop:] if stop >= 0 else b"")

"""Splitting a memory file into its frontmatter and body, and reading the fields."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memref.automemory._constants import MEMORY_TYPES
from memref.automemory._units import JS_SPACE
from memref.automemory._yaml import YamlError, parse_yaml, quote_awkward_values

__all__ = ["Frontmatter", "body_offset", "parse_memory_file", "split_frontmatter"]

_S = "[" + re.escape(JS_SPACE) + "]"
_BLOCK = re.compile(f"---{_S}*\n([\\s\\S]*?)---{_S}*\n?")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """``(block, body)``: the frontmatter block's YAML text, or None and the whole text."""
    unmarked = text[1:] if text.startswith("\ufeff") else text
    if unmarked.find("---", 3) < 0:
        return None, text
    match = _BLOCK.match(unmarked)
    if match is None:
        return None, text
    return match.group(1), unmarked[match.end() :]


def body_offset(chunks: Iterable[str]) -> int:
    """How many code points of the text (given in chunks) precede the body; 0 without a
    frontmatter block. Only the characters up to the closing ``---`` are looked at, and
    none are kept."""
    stream = _Chars(chunks)
    offset = 1 if stream.peek(1) == "\ufeff" else 0
    stream.skip(offset)
    if stream.peek(3) != "---":
        return 0
    stream.skip(3)
    saw_newline = False
    while True:
        char = stream.peek(1)
        if not char or char not in JS_SPACE:
            break
        saw_newline |= char == "\n"
        stream.skip(1)
    if not saw_newline or not stream.find("---"):
        return 0
    stream.skip(3)
    while (char := stream.peek(1)) and char in JS_SPACE:
        stream.skip(1)
    return stream.position


class _Chars:
    """A cursor over chunks of text that keeps only a few characters ahead."""

    def __init__(self, chunks: Iterable[str]) -> None:
        self._chunks = iter(chunks)
        self._buffer = ""
        self.position = 0

    def peek(self, count: int) -> str:
        while len(self._buffer) < count:
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            self._buffer += chunk
        return self._buffer[:count]

    def skip(self, count: int) -> None:
        self.peek(count)
        self._buffer = self._buffer[count:]
        self.position += count

    def find(self, needle: str) -> bool:
        """Move to the next occurrence of ``needle``; False at the end of the text."""
        while True:
            found = self._buffer.find(needle)
            if found >= 0:
                self.skip(found)
                return True
            keep = len(needle) - 1
            drop = max(len(self._buffer) - keep, 0)
            self.skip(drop)
            chunk = next(self._chunks, None)
            if chunk is None:
                return False
            self._buffer += chunk


@dataclass(frozen=True)
class Frontmatter:
    """A memory file read as the seed reads it."""

    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    parse_failed: bool = False
    name: str | None = None
    description: str | None = None
    type: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _parse_block(block: str) -> tuple[dict[str, Any], bool]:
    for attempt in (block, None):
        try:
            value = parse_yaml(block if attempt is not None else quote_awkward_values(block))
        except YamlError:
            continue
        return (value if isinstance(value, dict) else {}), False
    return {}, True


def _non_empty_string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_memory_file(text: str) -> Frontmatter:
    """Split, parse the block as YAML (with the one retry), and read the fields."""
    block, body = split_frontmatter(text)
    if block is None:
        return Frontmatter(body=body)
    data, failed = _parse_block(block)
    metadata = {
        key: value
        for key, value in data.items()
        if key not in ("name", "description", "metadata") and value is not None
    }
    nested = data.get("metadata")
    if isinstance(nested, dict):
        metadata.update(nested)
    memory_type = metadata.get("type")
    return Frontmatter(
        data=data,
        body=body,
        parse_failed=failed,
        name=_non_empty_string(data.get("name")),
        description=_non_empty_string(data.get("description")),
        type=memory_type if memory_type in MEMORY_TYPES else None,
        metadata=metadata,
    )

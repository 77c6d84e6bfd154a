"""JSON Pointers (RFC 6901) into replies, with ``*`` for every member of an array."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["values_at"]


def values_at(value: Any, pointer: str) -> Iterator[Any]:
    """Every value ``pointer`` reaches in ``value`` (none where it does not fit). ``""``
    is the whole value; a token ``*`` stands for each member of an array."""
    yield from _walk(value, _tokens(pointer))


def _tokens(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def _walk(value: Any, tokens: list[str]) -> Iterator[Any]:
    if not tokens:
        yield value
        return
    head, rest = tokens[0], tokens[1:]
    if head == "*" and isinstance(value, list):
        for item in value:
            yield from _walk(item, rest)
    elif isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest)
    elif isinstance(value, list) and head.isdigit() and int(head) < len(value):
        yield from _walk(value[int(head)], rest)

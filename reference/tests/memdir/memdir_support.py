"""Values shared by the memdir tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memref._time import parse_rfc3339

# The ``write`` fixture: (relative path, content, mtime) -> the created path.
Writer = Callable[..., Path]

T0 = parse_rfc3339("2026-05-01T12:00:00Z")


def at(text: str) -> int:
    """An RFC 3339 instant as epoch nanoseconds."""
    return parse_rfc3339(text)

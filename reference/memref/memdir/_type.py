"""The closed set of memory types a file declares in its ``type:`` frontmatter."""

from __future__ import annotations

from memref.memdir._constants import MEMORY_TYPES

__all__ = ["parse_memory_type"]


def parse_memory_type(raw: str) -> tuple[str, bool]:
    """``(raw, True)`` for one of the four types (exact, case-sensitive), else ``("", False)``."""
    if raw in MEMORY_TYPES:
        return raw, True
    return "", False

"""The one-line-per-file manifest the recall model chooses from."""

from __future__ import annotations

from collections.abc import Iterable

from memref._time import format_rfc3339
from memref.memdir._scan import MemoryHeader

__all__ = ["format_manifest"]


def format_manifest(headers: Iterable[MemoryHeader]) -> str:
    """``- [type] filename (2026-05-01T12:00:00Z): description`` per header, joined by newlines.

    The ``[type] `` tag and the ``: description`` suffix are left out when empty;
    there is no trailing newline.
    """
    lines = []
    for header in headers:
        tag = f"[{header.type}] " if header.type else ""
        line = f"- {tag}{header.filename} ({format_rfc3339(header.mtime)})"
        if header.description:
            line += ": " + header.description
        lines.append(line)
    return "\n".join(lines)

"""Store.FormatIndex: one line per fact within a byte budget, a share kept for global."""

from __future__ import annotations

from memref._gostr import encode
from memref.factstore._constants import GLOBAL_INDEX_RESERVE, MAX_INDEX_BYTES
from memref.factstore._format import Memory

__all__ = ["format_index", "index_line"]


def index_line(memory: Memory) -> bytes:
    return encode(f"- {memory.id} \u2014 {memory.description}\n")


def _render(lines: list[bytes], budget: int) -> tuple[bytes, int]:
    out = bytearray()
    for index, line in enumerate(lines):
        if len(out) + len(line) > budget:
            return bytes(out), len(lines) - index
        out += line
    return bytes(out), 0


def format_index(memories: list[Memory]) -> bytes:
    """Project lines then global lines, input order kept; a note when any are dropped."""
    if not memories:
        return b""
    projects = [index_line(m) for m in memories if m.scope != "global"]
    globals_ = [index_line(m) for m in memories if m.scope == "global"]
    first, _ = _render(projects, MAX_INDEX_BYTES - GLOBAL_INDEX_RESERVE)
    global_text, global_dropped = _render(globals_, MAX_INDEX_BYTES - len(first))
    project_text, project_dropped = _render(projects, MAX_INDEX_BYTES - len(global_text))
    out = project_text + global_text
    dropped = global_dropped + project_dropped
    if dropped > 0:
        out += encode(
            f"- \u2026 ({dropped} more facts not shown; use the memory tool's list "
            "action to see all)\n"
        )
    return out

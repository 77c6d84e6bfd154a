"""The ``hermes`` profile: Hermes Agent's memory tool (MEMORY.md and USER.md of ``§``-joined
entries, a code-point budget, a frozen snapshot).

A store is one agent session on a home directory; every tool result is the JSON text the
model receives.
"""

from __future__ import annotations

from memref.hermes._budget import percent, size, usage
from memref.hermes._constants import (
    ACTIONS,
    BLOCK_HEADERS,
    BLOCK_RULE,
    ENTRY_DELIMITER,
    FILES,
    MEMORY_CHAR_LIMIT,
    TARGETS,
    TOOL_NAME,
    USER_CHAR_LIMIT,
    as_dict,
)
from memref.hermes._scan import findings, first_message
from memref.hermes._snapshot import render_block, session_script, snapshot
from memref.hermes._storage import parse, read_text, serialise
from memref.hermes._tool import Store

__all__ = [
    "ACTIONS",
    "BLOCK_HEADERS",
    "BLOCK_RULE",
    "ENTRY_DELIMITER",
    "FILES",
    "MEMORY_CHAR_LIMIT",
    "TARGETS",
    "TOOL_NAME",
    "USER_CHAR_LIMIT",
    "Store",
    "as_dict",
    "findings",
    "first_message",
    "parse",
    "percent",
    "read_text",
    "render_block",
    "serialise",
    "session_script",
    "size",
    "snapshot",
    "usage",
]

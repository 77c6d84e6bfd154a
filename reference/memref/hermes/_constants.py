"""The fixed names and limits of the hermes profile (spec/hermes.md, "Constants")."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACTIONS",
    "BLOCK_HEADERS",
    "BLOCK_RULE",
    "ENTRY_DELIMITER",
    "FILES",
    "LOCK_SUFFIX",
    "MAX_FAILURES_PER_TURN",
    "MAX_SCAN_CHARS",
    "MEMORY_CHAR_LIMIT",
    "MEMORY_DIR",
    "PREVIEW_WIDTH",
    "TARGETS",
    "TOOL_NAME",
    "USER_CHAR_LIMIT",
    "as_dict",
]

TOOL_NAME = "memory"
MEMORY_DIR = "memories"
TARGETS = ("memory", "user")
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
ACTIONS = ("add", "replace", "remove")
PARAMETERS = ("action", "target", "content", "old_text", "operations")
REQUIRED = ("target",)
OPERATION_MEMBERS = ("action", "content", "old_text")
ENTRY_DELIMITER = "\n\u00a7\n"
MEMORY_CHAR_LIMIT = 2200
USER_CHAR_LIMIT = 1375
MAX_FAILURES_PER_TURN = 3
PREVIEW_WIDTH = 80
BLOCK_RULE = "\u2550" * 46
BLOCK_HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
LOCK_SUFFIX = ".lock"
MAX_SCAN_CHARS = 65_536


def as_dict() -> dict[str, Any]:
    """The constants as ``hermes.constants`` answers them."""
    return {
        "tool_name": TOOL_NAME,
        "memory_dir": MEMORY_DIR,
        "memory_file": FILES["memory"],
        "user_file": FILES["user"],
        "targets": list(TARGETS),
        "actions": list(ACTIONS),
        "parameters": list(PARAMETERS),
        "required": list(REQUIRED),
        "operation_members": list(OPERATION_MEMBERS),
        "entry_delimiter": ENTRY_DELIMITER,
        "memory_char_limit": MEMORY_CHAR_LIMIT,
        "user_char_limit": USER_CHAR_LIMIT,
        "max_failures_per_turn": MAX_FAILURES_PER_TURN,
        "preview_width": PREVIEW_WIDTH,
        "block_rule": BLOCK_RULE,
        "block_headers": dict(BLOCK_HEADERS),
        "lock_suffix": LOCK_SUFFIX,
        "max_scan_chars": MAX_SCAN_CHARS,
    }

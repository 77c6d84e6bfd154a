"""The names and limits of toolnexus §7E (the Go port, golang/agents/home.go)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACTIONS",
    "BOOTSTRAP_ORDER",
    "MAX_FILE_BYTES",
    "MEMORY_FILE",
    "TARGETS",
    "TOOL_NAME",
    "TRUNCATION_NOTICE",
    "USER_FILE",
    "as_dict",
]

TOOL_NAME = "memory"
MEMORY_FILE = "MEMORY.md"
USER_FILE = "USER.md"
BOOTSTRAP_ORDER: tuple[str, ...] = (
    "AGENTS.md",
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "MEMORY.md",
)
MAX_FILE_BYTES = 2 * 1024 * 1024
TRUNCATION_NOTICE = "\n[truncated: exceeds 2 MB bootstrap cap]"
ACTIONS: tuple[str, ...] = ("add", "replace", "remove")
TARGETS: tuple[str, ...] = ("self", "user")


def as_dict() -> dict[str, Any]:
    return {
        "tool_name": TOOL_NAME,
        "memory_file": MEMORY_FILE,
        "user_file": USER_FILE,
        "bootstrap_order": list(BOOTSTRAP_ORDER),
        "max_file_bytes": MAX_FILE_BYTES,
        "truncation_notice": TRUNCATION_NOTICE,
        "actions": list(ACTIONS),
        "targets": list(TARGETS),
    }

"""The constants of the automemory profile (Claude Code 2.1.332)."""

from __future__ import annotations

from typing import Final

__all__ = [
    "DENY_COMPONENTS",
    "INDEX_FILE",
    "INDEX_LINE_MAX_UNITS",
    "KEY_MAX_UNITS",
    "MAX_INDEX_LINES",
    "MAX_INDEX_UNITS",
    "MEMORY_TYPES",
    "QUOTE_MAX_UNITS",
    "REBUILD_MAX_LINES",
    "REBUILD_MAX_UNITS",
    "REMINDER_READ_BYTES",
    "SCAN_HEAD_BYTES",
    "SCAN_HEAD_LINES",
    "SCAN_MAX_FILES",
    "as_dict",
]

INDEX_FILE: Final = "MEMORY.md"
KEY_MAX_UNITS: Final = 200
MAX_INDEX_LINES: Final = 200
MAX_INDEX_UNITS: Final = 25_000
QUOTE_MAX_UNITS: Final = 80
REMINDER_READ_BYTES: Final = 100_000
# The reminder's targets and the rebuild's budget: 70 % of each cap, floored.
REBUILD_MAX_LINES: Final = MAX_INDEX_LINES * 7 // 10
REBUILD_MAX_UNITS: Final = MAX_INDEX_UNITS * 7 // 10
INDEX_LINE_MAX_UNITS: Final = 150
SCAN_MAX_FILES: Final = 200
SCAN_HEAD_LINES: Final = 30
SCAN_HEAD_BYTES: Final = 65_536
MEMORY_TYPES: Final = ("user", "feedback", "project", "reference")
DENY_COMPONENTS: Final = (
    ".git",
    "hooks",
    ".husky",
    ".githooks",
    "node_modules",
    ".vscode",
    ".idea",
    "head",
    "config",
    "objects",
    "refs",
    ".claude",
    "skills",
    "commands",
    "agents",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
)


def as_dict() -> dict[str, object]:
    """The constants under their protocol names (the ``automemory.constants`` result)."""
    return {
        "index_file": INDEX_FILE,
        "key_max_units": KEY_MAX_UNITS,
        "max_index_lines": MAX_INDEX_LINES,
        "max_index_units": MAX_INDEX_UNITS,
        "quote_max_units": QUOTE_MAX_UNITS,
        "reminder_read_bytes": REMINDER_READ_BYTES,
        "reminder_target_lines": REBUILD_MAX_LINES,
        "reminder_target_units": REBUILD_MAX_UNITS,
        "index_line_max_units": INDEX_LINE_MAX_UNITS,
        "scan_max_files": SCAN_MAX_FILES,
        "scan_head_lines": SCAN_HEAD_LINES,
        "scan_head_bytes": SCAN_HEAD_BYTES,
        "memory_types": list(MEMORY_TYPES),
        "deny_components": list(DENY_COMPONENTS),
    }

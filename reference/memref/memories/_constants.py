"""The fixed names, limits and texts of the memory tool (``memory_20250818``)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "COMMANDS",
    "DIR_MODE",
    "FILE_MODE",
    "LINE_NUMBER_WIDTH",
    "LISTING_DEPTH",
    "MAX_LINES",
    "ROOT_DIR",
    "SIZE_UNITS",
    "TOOL_NAME",
    "TOOL_TYPE",
    "VIRTUAL_ROOT",
    "as_dict",
]

TOOL_TYPE = "memory_20250818"
TOOL_NAME = "memory"
VIRTUAL_ROOT = "/memories"
ROOT_DIR = "memories"
"""The memory root is this directory of the base."""
COMMANDS: tuple[str, ...] = ("view", "create", "str_replace", "insert", "delete", "rename")
MAX_LINES = 999_999
LINE_NUMBER_WIDTH = 6
LISTING_DEPTH = 2
SIZE_UNITS: tuple[str, ...] = ("B", "K", "M", "G")
FILE_MODE = 0o600
DIR_MODE = 0o700


def as_dict() -> dict[str, Any]:
    return {
        "tool_type": TOOL_TYPE,
        "tool_name": TOOL_NAME,
        "virtual_root": VIRTUAL_ROOT,
        "root_dir": ROOT_DIR,
        "commands": list(COMMANDS),
        "max_lines": MAX_LINES,
        "line_number_width": LINE_NUMBER_WIDTH,
        "listing_depth": LISTING_DEPTH,
        "size_units": list(SIZE_UNITS),
        "file_mode": f"{FILE_MODE:04o}",
        "dir_mode": f"{DIR_MODE:04o}",
    }

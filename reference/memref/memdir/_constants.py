"""The constants of the memdir profile (evva ``internal/memdir``, commit c52d1f7)."""

from __future__ import annotations

from typing import Final

from memref._time import NS_PER_HOUR, NS_PER_SECOND

__all__ = [
    "DREAM_DEFAULT_MIN_HOURS",
    "DREAM_DEFAULT_MIN_SESSIONS",
    "DREAM_LOCK_FILE",
    "DREAM_SCAN_THROTTLE_NS",
    "DREAM_STALE_AFTER_NS",
    "FRONTMATTER_MAX_LINES",
    "FRONTMATTER_SCAN_BYTES",
    "MAX_FILE_BYTES",
    "MAX_INDEX_BYTES",
    "MAX_INDEX_LINES",
    "MAX_MEMORY_FILES",
    "MEMORY_DIR_NAME",
    "MEMORY_INDEX_FILE",
    "MEMORY_TYPES",
    "PROJECT_MEMORY_FILE",
    "RECALL_MAX_SELECTED",
    "RECALL_MAX_TOKENS",
    "as_dict",
]

PROJECT_MEMORY_FILE: Final = "EVVA.md"
MAX_FILE_BYTES: Final = 64 * 1024
MEMORY_DIR_NAME: Final = "memory"
MEMORY_INDEX_FILE: Final = "MEMORY.md"
MAX_INDEX_LINES: Final = 200
MAX_INDEX_BYTES: Final = 25_000
MAX_MEMORY_FILES: Final = 200
FRONTMATTER_MAX_LINES: Final = 30
FRONTMATTER_SCAN_BYTES: Final = 4 * 1024
MEMORY_TYPES: Final = ("user", "feedback", "project", "reference")
RECALL_MAX_SELECTED: Final = 5
RECALL_MAX_TOKENS: Final = 256
DREAM_LOCK_FILE: Final = ".consolidate-lock"
DREAM_STALE_AFTER_NS: Final = NS_PER_HOUR
DREAM_SCAN_THROTTLE_NS: Final = 10 * 60 * NS_PER_SECOND
DREAM_DEFAULT_MIN_HOURS: Final = 24
DREAM_DEFAULT_MIN_SESSIONS: Final = 5


def as_dict() -> dict[str, object]:
    """The constants under their protocol names (the ``memdir.constants`` result)."""
    return {
        "project_memory_file": PROJECT_MEMORY_FILE,
        "max_file_bytes": MAX_FILE_BYTES,
        "memory_dir_name": MEMORY_DIR_NAME,
        "memory_index_file": MEMORY_INDEX_FILE,
        "max_index_lines": MAX_INDEX_LINES,
        "max_index_bytes": MAX_INDEX_BYTES,
        "max_memory_files": MAX_MEMORY_FILES,
        "frontmatter_max_lines": FRONTMATTER_MAX_LINES,
        "frontmatter_scan_bytes": FRONTMATTER_SCAN_BYTES,
        "memory_types": list(MEMORY_TYPES),
        "recall_max_selected": RECALL_MAX_SELECTED,
        "recall_max_tokens": RECALL_MAX_TOKENS,
        "dream_lock_file": DREAM_LOCK_FILE,
        "dream_stale_after_s": DREAM_STALE_AFTER_NS // NS_PER_SECOND,
        "dream_scan_throttle_s": DREAM_SCAN_THROTTLE_NS // NS_PER_SECOND,
        "dream_default_min_hours": DREAM_DEFAULT_MIN_HOURS,
        "dream_default_min_sessions": DREAM_DEFAULT_MIN_SESSIONS,
    }

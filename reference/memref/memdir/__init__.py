"""The ``memdir`` profile: the typed memory directory of evva's ``internal/memdir``.

Text is ``str`` (bytes that are not UTF-8 travel as lone surrogates, the
``surrogateescape`` convention), instants are integer nanoseconds since the Unix
epoch, and every ``now`` defaults to the real clock. Documented failures raise
``memref.errors.OpError``.
"""

from __future__ import annotations

from memref.memdir._age import age, age_days, freshness_note, freshness_text
from memref.memdir._constants import (
    DREAM_DEFAULT_MIN_HOURS,
    DREAM_DEFAULT_MIN_SESSIONS,
    DREAM_LOCK_FILE,
    DREAM_SCAN_THROTTLE_NS,
    DREAM_STALE_AFTER_NS,
    FRONTMATTER_MAX_LINES,
    FRONTMATTER_SCAN_BYTES,
    MAX_FILE_BYTES,
    MAX_INDEX_BYTES,
    MAX_INDEX_LINES,
    MAX_MEMORY_FILES,
    MEMORY_DIR_NAME,
    MEMORY_INDEX_FILE,
    MEMORY_TYPES,
    PROJECT_MEMORY_FILE,
    RECALL_MAX_SELECTED,
    RECALL_MAX_TOKENS,
)
from memref.memdir._containment import WriteCheck, check_write_path, is_in_memory_dir
from memref.memdir._dream import (
    Acquired,
    GateDecision,
    count_touched_since,
    gate_open,
    read_last_consolidated_at,
    rollback,
    try_acquire,
)
from memref.memdir._frontmatter import parse_frontmatter
from memref.memdir._index import read_index, truncate_index
from memref.memdir._load import Snapshot, load
from memref.memdir._manifest import format_manifest
from memref.memdir._paths import ensure_memory_dir, memory_dir, memory_index_path
from memref.memdir._project_key import project_key
from memref.memdir._recall import Model, build_query, find_relevant, parse_selected
from memref.memdir._scan import MemoryHeader, scan_memory_files
from memref.memdir._type import parse_memory_type

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
    "Acquired",
    "GateDecision",
    "MemoryHeader",
    "Model",
    "Snapshot",
    "WriteCheck",
    "age",
    "age_days",
    "build_query",
    "check_write_path",
    "count_touched_since",
    "ensure_memory_dir",
    "find_relevant",
    "format_manifest",
    "freshness_note",
    "freshness_text",
    "gate_open",
    "is_in_memory_dir",
    "load",
    "memory_dir",
    "memory_index_path",
    "parse_frontmatter",
    "parse_memory_type",
    "parse_selected",
    "project_key",
    "read_index",
    "read_last_consolidated_at",
    "rollback",
    "scan_memory_files",
    "truncate_index",
    "try_acquire",
]


def __dir__() -> list[str]:
    return list(__all__)

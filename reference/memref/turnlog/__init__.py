"""Profile ``turnlog``: per-turn summary files, their heading outline and SQLite index.

The seed is ogcode's Go package ``internal/memfile`` (v1, commit 08bd0ba).
"""

from memref.turnlog._enabled import turn_memory_enabled
from memref.turnlog._filename import filename, session_tag, slugify
from memref.turnlog._manager import Manager
from memref.turnlog._outline import outline, outline_of_text
from memref.turnlog._prompt import SUMMARY_SYSTEM_PROMPT
from memref.turnlog._store import Entry, Store, unix_milli
from memref.turnlog._write import ZERO_NS, Meta, memory_dir, write

__all__ = [
    "SUMMARY_SYSTEM_PROMPT",
    "ZERO_NS",
    "Entry",
    "Manager",
    "Meta",
    "Store",
    "filename",
    "memory_dir",
    "outline",
    "outline_of_text",
    "session_tag",
    "slugify",
    "turn_memory_enabled",
    "unix_milli",
    "write",
]

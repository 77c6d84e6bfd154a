"""The fixed limits and names of the factstore profile (moa ``pkg/memory`` at bb338cf)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "FACT_TYPES",
    "GIT_TIMEOUT_S",
    "GLOBAL_INDEX_RESERVE",
    "KEY_HEX_CHARS",
    "LEDGER_FILE",
    "LEDGER_LOCK_FILE",
    "MAX_FACT_SIZE",
    "MAX_INDEX_BYTES",
    "MIGRATION_LOCK_FILE",
    "NAME_PATTERN",
    "ORPHAN_LEDGER_NOTE",
    "RECORD_FILE",
    "SCOPES",
    "V1_BACKUP_FILE",
    "V1_DESCRIPTION",
    "V1_FACT_NAME",
    "V1_FLAT_FILE",
    "as_dict",
]

MAX_FACT_SIZE = 16 * 1024
MAX_INDEX_BYTES = 8 * 1024
GLOBAL_INDEX_RESERVE = MAX_INDEX_BYTES * 1 // 3
FACT_TYPES = ("user", "feedback", "project", "reference")
SCOPES = ("project", "global")
NAME_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"
KEY_HEX_CHARS = 16
GIT_TIMEOUT_S = 2
V1_FLAT_FILE = "MEMORY.md"
V1_BACKUP_FILE = "MEMORY.md.v1.bak"
V1_FACT_NAME = "notas-legado-v1"
V1_DESCRIPTION = "notas migradas de la memoria v1, pendientes de curar"
RECORD_FILE = "memory-migration.json"
MIGRATION_LOCK_FILE = ".memory-migration.lock"
LEDGER_FILE = "orphaned-memory.json"
LEDGER_LOCK_FILE = ".orphaned-memory.lock"
ORPHAN_LEDGER_NOTE = (
    "Project memory written by an older moa that could not be attributed to a repository. "
    "Nothing was deleted: the facts are still under projects/<hash>/memory. moa copies a "
    "store in by itself if the directory in last_known_cwd exists again, or if a session "
    "is started in it."
)


def as_dict() -> dict[str, Any]:
    return {
        "max_fact_size": MAX_FACT_SIZE,
        "max_index_bytes": MAX_INDEX_BYTES,
        "global_index_reserve": GLOBAL_INDEX_RESERVE,
        "types": list(FACT_TYPES),
        "scopes": list(SCOPES),
        "name_pattern": NAME_PATTERN,
        "key_hex_chars": KEY_HEX_CHARS,
        "git_timeout_ms": GIT_TIMEOUT_S * 1000,
        "v1_flat_file": V1_FLAT_FILE,
        "v1_backup_file": V1_BACKUP_FILE,
        "v1_fact_name": V1_FACT_NAME,
        "v1_description": V1_DESCRIPTION,
        "record_file": RECORD_FILE,
        "migration_lock_file": MIGRATION_LOCK_FILE,
        "ledger_file": LEDGER_FILE,
        "ledger_lock_file": LEDGER_LOCK_FILE,
        "orphan_ledger_note": ORPHAN_LEDGER_NOTE,
    }

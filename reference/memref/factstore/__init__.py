"""The ``factstore`` profile: moa's scoped single-fact memory (``pkg/memory`` at bb338cf).

Text is ``str`` (bytes that are not UTF-8 travel as lone surrogates); instants are
integer nanoseconds since the Unix epoch. Documented failures raise
``memref.errors.OpError``.
"""

from __future__ import annotations

from memref.factstore._codebase_key import (
    canonicalize_path,
    codebase_identity,
    codebase_key,
    hash_key,
    project_hash,
    repo_codebase_key,
    trim_git_eol,
)
from memref.factstore._constants import GLOBAL_INDEX_RESERVE, MAX_FACT_SIZE, MAX_INDEX_BYTES
from memref.factstore._format import (
    FactFormatError,
    Memory,
    go_quote,
    go_unquote,
    parse_fact,
    rename_fact_header,
    serialize,
)
from memref.factstore._index import format_index
from memref.factstore._migrate_codebase import Outcome, load_record, migrate_codebase
from memref.factstore._migrate_v1 import migrate_v1_if_needed
from memref.factstore._names import StoreDirs, resolve, scope_for_type, valid_name, valid_type
from memref.factstore._read import delete, list_facts, read
from memref.factstore._sessions import ScanResult, scan_cwds
from memref.factstore._store import new_store
from memref.factstore._write import write

__all__ = [
    "GLOBAL_INDEX_RESERVE",
    "MAX_FACT_SIZE",
    "MAX_INDEX_BYTES",
    "FactFormatError",
    "Memory",
    "Outcome",
    "ScanResult",
    "StoreDirs",
    "canonicalize_path",
    "codebase_identity",
    "codebase_key",
    "delete",
    "format_index",
    "go_quote",
    "go_unquote",
    "hash_key",
    "list_facts",
    "load_record",
    "migrate_codebase",
    "migrate_v1_if_needed",
    "new_store",
    "parse_fact",
    "project_hash",
    "read",
    "rename_fact_header",
    "repo_codebase_key",
    "resolve",
    "scan_cwds",
    "scope_for_type",
    "serialize",
    "trim_git_eol",
    "valid_name",
    "valid_type",
    "write",
]

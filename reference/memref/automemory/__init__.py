"""The ``automemory`` profile: Claude Code's auto-memory directory (2.1.332).

Lengths and cuts are in UTF-16 code units, as JavaScript counts them; text in and out
is ``str`` of code points. Everything the seed reads from the process (environment,
home directory, settings, clock) is an argument.
"""

from __future__ import annotations

from memref.automemory._carve_out import carve_out, carve_out_lexical
from memref.automemory._comments import strip_html_comments
from memref.automemory._freshness import Freshness, age_days, freshness
from memref.automemory._frontmatter import Frontmatter, parse_memory_file, split_frontmatter
from memref.automemory._index import IndexLoad, format_size, load_index, quote_cut, read_index
from memref.automemory._index_line import IndexEntry, Rebuilt, index_line, rebuild_index
from memref.automemory._memory_dir import KeyBase, key_base, memory_dir, validate_memory_path
from memref.automemory._project_key import path_hash, project_dir_name, project_key
from memref.automemory._reminder import Reminder, size_reminder
from memref.automemory._sanitize import sanitize
from memref.automemory._scan import ScanHeader, format_manifest, scan_memory_files
from memref.automemory._writer import format_memory_file, slug_name, write_memory_file

__all__ = [
    "Freshness",
    "Frontmatter",
    "IndexEntry",
    "IndexLoad",
    "KeyBase",
    "Rebuilt",
    "Reminder",
    "ScanHeader",
    "age_days",
    "carve_out",
    "carve_out_lexical",
    "format_manifest",
    "format_memory_file",
    "format_size",
    "freshness",
    "index_line",
    "key_base",
    "load_index",
    "memory_dir",
    "parse_memory_file",
    "path_hash",
    "project_dir_name",
    "project_key",
    "quote_cut",
    "read_index",
    "rebuild_index",
    "sanitize",
    "scan_memory_files",
    "size_reminder",
    "slug_name",
    "split_frontmatter",
    "strip_html_comments",
    "validate_memory_path",
    "write_memory_file",
]


def __dir__() -> list[str]:
    return list(__all__)

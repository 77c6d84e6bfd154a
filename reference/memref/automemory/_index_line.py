"""One ``MEMORY.md`` line per memory file, and an index rebuilt from them within budget."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memref.automemory._constants import INDEX_LINE_MAX_UNITS, REBUILD_MAX_LINES, REBUILD_MAX_UNITS
from memref.automemory._index import quote_cut
from memref.automemory._sanitize import sanitize, sanitize_path_text
from memref.automemory._units import JS_SPACE, js_trim, to_units

__all__ = ["IndexEntry", "Rebuilt", "index_line", "rebuild_index"]

_LINK_BREAKING = re.compile("[\\[\\]()\n\r\u2028\u2029]")
_SPACE_RUN = re.compile("[" + re.escape(JS_SPACE) + "]+")


@dataclass(frozen=True)
class IndexEntry:
    filename: str
    description: str | None = None


@dataclass(frozen=True)
class Rebuilt:
    content: str
    skipped_count: int


def _stem(path: str) -> str:
    """The base name without ``.md``: empty for the name ``.md`` itself; a base name
    ``.md`` below a directory is kept whole (as Node's ``path.basename`` does)."""
    base = path.rsplit("/", 1)[-1]
    if base == ".md" and "/" in path:
        return base
    return base.removesuffix(".md")


def index_line(entry: IndexEntry) -> str | None:
    """``- [stem](path)`` with `` — description`` cut to fit 150 units; None when the
    path would break the link or is changed by the sanitiser."""
    path = entry.filename
    if _LINK_BREAKING.search(path) or sanitize_path_text(to_units(path)) != path:
        return None
    link = f"- [{_stem(path)}]({path})"
    description = js_trim(
        _SPACE_RUN.sub(" ", to_units(sanitize(to_units(entry.description or ""))))
    )
    budget = INDEX_LINE_MAX_UNITS - len(to_units(link)) - 3
    if not description or budget <= 1:
        return link
    return f"{link} \u2014 {sanitize(quote_cut(description, budget))}"


def rebuild_index(entries: Iterable[IndexEntry]) -> Rebuilt:
    """Lines for the entries in order until the next would pass 140 lines or 17,500
    units; ``skipped_count`` counts the entries without a line."""
    content, lines, full, skipped = "", 0, False, 0
    size = 0
    for entry in entries:
        line = index_line(entry)
        if line is None:
            skipped += 1
            continue
        width = len(to_units(line))
        full = full or lines + 1 > REBUILD_MAX_LINES or size + width + 1 > REBUILD_MAX_UNITS
        if not full:
            content += line + "\n"
            size += width + 1
            lines += 1
    return Rebuilt(content, skipped)

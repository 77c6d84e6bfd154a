"""The reminder after a write to ``MEMORY.md`` that nears or passes a cap."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from memref.automemory._comments import strip_html_comments
from memref.automemory._constants import (
    INDEX_FILE,
    MAX_INDEX_LINES,
    MAX_INDEX_UNITS,
    REBUILD_MAX_LINES,
    REBUILD_MAX_UNITS,
)
from memref.automemory._frontmatter import split_frontmatter
from memref.automemory._index import format_size
from memref.automemory._units import js_trim, to_units

__all__ = ["Reminder", "size_reminder"]

_THRESHOLD = Fraction(4, 5)


@dataclass(frozen=True)
class Reminder:
    text: str | None
    over_cap: bool


def size_reminder(content: str) -> Reminder:
    """The reminder for an index whose whole content is ``content``."""
    _, body = split_frontmatter(content)
    measured = js_trim(to_units(strip_html_comments(body)[0]))
    units, lines = len(measured), measured.count("\n") + 1
    by_units = Fraction(units, MAX_INDEX_UNITS)
    by_lines = Fraction(lines, MAX_INDEX_LINES)
    if by_lines > by_units:
        fraction, over = by_lines, lines > MAX_INDEX_LINES
        size, cap, target = (
            f"{lines} lines",
            f"{MAX_INDEX_LINES}-line",
            f"{REBUILD_MAX_LINES} lines",
        )
    else:
        fraction, over = by_units, units > MAX_INDEX_UNITS
        size, cap = format_size(units), format_size(MAX_INDEX_UNITS)
        target = format_size(REBUILD_MAX_UNITS)
    if fraction < _THRESHOLD:
        return Reminder(None, False)
    advice = (
        "now: keep one line per entry, move detail into topic files, and merge or drop"
        " stale entries."
    )
    if over:
        text = (
            f"Error: this write left the memory index at {INDEX_FILE} at {size}, over its {cap}"
            " read limit. The write succeeded, but everything past the limit is silently dropped"
            " each time the index is loaded \u2014 entries at the end are already invisible to"
            f" readers. Rewrite it to under {target} {advice}"
        )
    else:
        text = (
            f"The memory index at {INDEX_FILE} is {size}, approaching the {cap} read limit."
            f" Compact it to under {target} {advice}"
        )
    return Reminder(text, over)

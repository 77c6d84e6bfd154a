"""Loading ``MEMORY.md``: frontmatter and block comments stripped, then the line and unit
caps with their warning, then the sanitiser. The text streams through in passes, so a
file of any size is loaded in bounded memory (a frontmatter block or a comment line is
held whole)."""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from memref.automemory._comments import line_pieces, normalised, plan
from memref.automemory._constants import INDEX_FILE, MAX_INDEX_LINES, MAX_INDEX_UNITS
from memref.automemory._constants import QUOTE_MAX_UNITS as QUOTE
from memref.automemory._frontmatter import body_offset
from memref.automemory._sanitize import sanitize
from memref.automemory._units import JS_SPACE, js_trim_end, to_units, unit_length

__all__ = ["IndexLoad", "format_size", "load_index", "quote_cut", "read_index"]

Source = Callable[[], Iterator[str]]

_CHUNK = 1 << 16


def format_size(units: int) -> str:
    """``{n} bytes`` below 1024, else KB, MB or GB (powers of 1024) with one decimal,
    rounded half up, a trailing ``.0`` dropped."""
    if units < 1024:
        return f"{units} bytes"
    value = units / 1024
    for suffix in ("KB", "MB"):
        if value < 1024:
            return _one_decimal(value) + suffix
        value /= 1024
    return _one_decimal(value) + "GB"


def _one_decimal(value: float) -> str:
    text = str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return text.removesuffix(".0")


def quote_cut(units: str, limit: int) -> str:
    """The seed's quote of a line: whole when short, else cut back to a word and ``…``."""
    if len(units) <= limit:
        return units
    head = units[: limit - 1] if limit > 1 else ""
    if head and "\ud800" <= head[-1] <= "\udbff":
        head = head[:-1]
    last_space = max(head.rfind(char) for char in JS_SPACE) if head else -1
    word_cut = js_trim_end(head[:last_space]) if last_space >= 0 else ""
    return (word_cut if len(word_cut) > limit / 2 else js_trim_end(head)) + "\u2026"


@dataclass(frozen=True)
class IndexLoad:
    """What loading the index gives: the prompt text and the measures of the stripped,
    trimmed text."""

    content: str
    line_count: int
    unit_count: int
    line_truncated: bool
    unit_truncated: bool


@dataclass
class _Extent:
    start: int = -1
    end: int = 0
    lines: int = 1


def _measure(chunks: Iterable[str]) -> _Extent:
    """Where the trimmed text lies in the stream (units), and its line count."""
    extent = _Extent()
    position = newlines = 0
    newlines_at_start = newlines_at_end = 0
    for chunk in chunks:
        kept = chunk.rstrip(JS_SPACE)
        if kept:
            if extent.start < 0:
                lead = len(chunk) - len(chunk.lstrip(JS_SPACE))
                extent.start = position + lead
                newlines_at_start = newlines + chunk.count("\n", 0, lead)
            extent.end = position + unit_length(kept)
            newlines_at_end = newlines + kept.count("\n")
        newlines += chunk.count("\n")
        position += unit_length(chunk)
    extent.lines = newlines_at_end - newlines_at_start + 1
    return extent


def _trimmed_units(chunks: Iterable[str], extent: _Extent) -> Iterator[str]:
    """The unit strings of the trimmed text, in pieces."""
    position = 0
    for chunk in chunks:
        units = to_units(chunk)
        low, high = max(extent.start - position, 0), min(extent.end - position, len(units))
        position += len(units)
        if low < high:
            yield units[low:high]
        if position >= extent.end:
            return


def _take(pieces: Iterator[str], count: int) -> str:
    taken: list[str] = []
    size = 0
    for piece in pieces:
        taken.append(piece)
        size += len(piece)
        if size >= count:
            break
    head = "".join(taken)
    return head


def _next_line(first: str, pieces: Iterator[str]) -> str:
    """The line that starts the text ``first`` + ``pieces``, trimmed; of a line longer
    than ``QUOTE`` units only the first ``QUOTE + 1``, all that its quote needs."""
    kept = ""
    started = False
    for piece in itertools.chain([first], pieces):
        cut = piece.find("\n")
        part = piece if cut < 0 else piece[:cut]
        if not started:
            part = part.lstrip(JS_SPACE)
            started = bool(part)
        room = QUOTE + 1 - len(kept)
        if room > 0:
            kept, part = kept + part[:room], part[room:]
        if part.strip(JS_SPACE):
            return kept
        if cut >= 0:
            break
    return js_trim_end(kept)


def _warning(extent: _Extent, units: int, kept: str, text_after: str, line: str) -> str:
    lines = extent.lines
    over_lines, over_units = lines > MAX_INDEX_LINES, units > MAX_INDEX_UNITS
    kept_lines = kept.count("\n") + 1 if text_after.startswith("\n") else 0
    if kept_lines == 0:
        cut = f"everything after the first {len(kept)} characters of line 1 was cut off"
    else:
        cut = (
            f"{lines - kept_lines} of {lines} lines were cut off, starting at line {kept_lines + 1}"
        )
        if line:
            cut += f' ("{quote_cut(line, QUOTE)}")'
    if over_units and not over_lines:
        size = (
            f"{format_size(units)} (limit: {format_size(MAX_INDEX_UNITS)})"
            " \u2014 index entries are too long"
        )
    elif over_lines and not over_units:
        size = f"{lines} lines (limit: {MAX_INDEX_LINES})"
    else:
        size = f"{lines} lines and {format_size(units)}"
    return (
        f"{INDEX_FILE} is {size}. Only part of it was loaded: {cut}. Keep index entries to "
        "one line under ~200 chars; move detail into topic files."
    )


def _truncate(body: Source) -> IndexLoad:
    extent = _measure(body())
    if extent.start < 0:
        return IndexLoad("", 1, 0, False, False)
    units = extent.end - extent.start
    over_lines, over_units = extent.lines > MAX_INDEX_LINES, units > MAX_INDEX_UNITS
    pieces = _trimmed_units(body(), extent)
    head = _take(pieces, MAX_INDEX_UNITS + 1)
    if not over_lines and not over_units:
        return IndexLoad(sanitize(head), extent.lines, units, False, False)
    kept = head
    if over_lines:
        position = -1
        for _ in range(MAX_INDEX_LINES):
            position = head.find("\n", position + 1)
            if position < 0:
                break
        if position >= 0:
            kept = head[:position]
    if len(kept) > MAX_INDEX_UNITS:
        newline = kept.rfind("\n", 0, MAX_INDEX_UNITS + 1)
        kept = kept[: newline if newline > 0 else MAX_INDEX_UNITS]
    after = head[len(kept) :]
    line = _next_line(after[1:], pieces) if after.startswith("\n") else ""
    warning = _warning(extent, units, kept, after, line)
    content = sanitize(kept + "\n\n> WARNING: " + to_units(warning))
    return IndexLoad(content, extent.lines, units, over_lines, over_units)


def _skip(chunks: Iterator[str], count: int) -> Iterator[str]:
    for chunk in chunks:
        if count >= len(chunk):
            count -= len(chunk)
            continue
        yield chunk[count:] if count else chunk
        count = 0


def _load(raw: Source) -> IndexLoad:
    offset = body_offset(raw())

    def body() -> Iterator[str]:
        return _skip(raw(), offset)

    if not _contains(body(), "<!--"):
        return _truncate(body)

    def pieces() -> Iterator[str]:
        return line_pieces(normalised(body()))

    make = plan(pieces)
    if make is None:
        return _truncate(body)

    def stripped_body() -> Iterator[str]:
        return make().run(pieces())

    return _truncate(stripped_body)


def _contains(chunks: Iterable[str], needle: str) -> bool:
    tail = ""
    for chunk in chunks:
        if needle in tail + chunk[: len(needle) - 1] or needle in chunk:
            return True
        tail = (tail + chunk)[-(len(needle) - 1) :]
    return False


def load_index(text: str) -> IndexLoad:
    """Load an index given as text (code points)."""
    return _load(lambda: iter([text]))


def _file_chunks(path: str) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    with open(path, "rb") as handle:
        while True:
            data = handle.read(_CHUNK)
            if not data:
                break
            text = decoder.decode(data)
            if text:
                yield text
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail


def read_index(path: str) -> IndexLoad:
    """Load the index file at ``path``, streaming it. Raises ``OSError``."""
    with open(path, "rb"):
        pass
    return _load(lambda: _file_chunks(path))

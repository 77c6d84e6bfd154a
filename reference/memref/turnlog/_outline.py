"""The heading outline of a summary file: ATX headings with flat line ranges.

A port of ogcode's markdown fallback scanner (``internal/codemap``) and memfile's
``renderOutline``, with the heading and fence rules of TURNLOG-OUT-005 and -006.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from memref._gostr import decode, to_lower, trim_space
from memref._wire import text_out
from memref.turnlog._constants import MAX_FILE_SIZE, MAX_SYMBOLS

__all__ = ["Heading", "headings", "is_markdown", "outline", "outline_of_text", "render"]

# RE2's \s is exactly these five; Python's \s is far wider.
_WS = "[\t\n\f\r ]"
# A closing run of '#' counts only after whitespace (CommonMark), so "# C#" keeps its '#'.
_HEADING = re.compile(rf"(#{{1,6}}){_WS}+(.+?)(?:{_WS}+#+)?{_WS}*\Z", re.DOTALL)
_FENCES = ("```", "~~~")
_MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdx")


@dataclass(frozen=True)
class Heading:
    level: int
    name: str
    start: int
    end: int


def headings(text: str) -> list[Heading]:
    lines = text.split("\n")
    found: list[tuple[int, str, int]] = []
    fence = ""
    for number, line in enumerate(lines, start=1):
        # Only lines holding a fence character or starting with '#' can matter.
        if "`" in line or "~" in line:
            trimmed = trim_space(line)
            if fence:
                if trimmed.startswith(fence):
                    fence = ""
                continue
            opener = next((mark for mark in _FENCES if trimmed.startswith(mark)), "")
            if opener:
                fence = opener
                continue
        elif fence or not line.startswith("#"):
            continue
        match = _HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2), number))
    result: list[Heading] = []
    for index, (level, name, start) in enumerate(found):
        end = found[index + 1][2] - 1 if index + 1 < len(found) else len(lines)
        result.append(Heading(level, name, start, max(end, start)))
    return result[:MAX_SYMBOLS]


def render(items: list[Heading]) -> str:
    rendered = []
    for item in items:
        span = f"{item.start}" if item.start == item.end else f"{item.start}-{item.end}"
        rendered.append(f"{span}  {'  ' * (item.level - 1)}{item.name}")
    return "\n".join(rendered)


def outline_of_text(text: str) -> str:
    return render(headings(text))


def is_markdown(path: str) -> bool:
    """Whether Go's ``filepath.Ext`` of ``path``, lower-cased, names a markdown file."""
    name = path[path.rfind("/") + 1 :]
    dot = name.rfind(".")
    return dot >= 0 and to_lower(name[dot:]) in _MARKDOWN_EXTENSIONS


def outline(path: str) -> str:
    """The rendered outline of the markdown file at ``path``; "" when it cannot be
    outlined, and for every file that is not named as markdown."""
    if not is_markdown(path):
        return ""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return ""
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_SIZE:
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        chunks: list[bytes] = []
        total = 0
        while total <= MAX_FILE_SIZE:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError:
        return ""
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE_SIZE or b"\x00" in data:
        return ""
    return outline_of_text(decode(data))


def outline_wire(path: str) -> str | dict[str, str]:
    return text_out(outline(path))

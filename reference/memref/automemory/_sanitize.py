"""Making loaded text safe for a prompt: line endings, invisible characters, prompt tags."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from memref.automemory._units import from_units

__all__ = ["NEUTRALISED_TAGS", "is_removed", "sanitize", "sanitize_path_text"]

# The tag names whose neutralisation the spec pins; the seed knows more. ``channel`` is
# defused only when one of its attributes is ``source=``: the seed leaves ``<channel>``
# and ``<channel a="b">`` as they are.
NEUTRALISED_TAGS: Final = ("system-reminder", "system_reminder", "function_results")

_KEPT: Final = frozenset({0x200C, 0x200D, 0xFE0E, 0xFE0F})
# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), as ranges.
_DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_LINE_BREAKS = re.compile("\r\n?|[\u2028\u2029]")
_TAGS = re.compile(
    "<(/?(?:" + "|".join(re.escape(tag) for tag in NEUTRALISED_TAGS) + ")>|/?channel [^>]*>)"
)
# ``source`` as a whole attribute name (no letter, digit, ``_`` or ``-`` before it), then ``=``.
_SOURCE_ATTRIBUTE = re.compile("(?<![A-Za-z0-9_-])source *=")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_PATH_BREAKS = re.compile("[\t\n\r\u2028\u2029]")


def is_removed(char: str) -> bool:
    """Whether the sanitiser drops this code point."""
    code = ord(char)
    if code in _KEPT or code in (0x09, 0x0A, 0x0D):
        return False
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return True
    if unicodedata.category(char) in ("Cf", "Co", "Cn"):
        return True
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


_ASCII_REMOVED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _clean(text: str) -> str:
    if text.isascii():
        return _ASCII_REMOVED.sub("", text)
    return "".join(char for char in text if not is_removed(char))


def sanitize(units: str) -> str:
    """The seed's sanitiser on a unit string, giving a code-point string.

    Line breaks become ``\\n``; controls other than tab and newline, format, private-use,
    unassigned and default-ignorable code points are removed (ZWNJ, ZWJ, VS15 and VS16
    stay), and so is a lone surrogate; the listed prompt tags are defused.
    """
    text = from_units(_LINE_BREAKS.sub("\n", units))
    text = _clean(_LONE_SURROGATE.sub("", text))
    return _TAGS.sub(_defused, text)


def _defused(match: re.Match[str]) -> str:
    tag = match.group(1)
    if tag.lstrip("/").startswith("channel ") and not _SOURCE_ATTRIBUTE.search(tag):
        return match.group(0)
    return "<\\" + tag


def sanitize_path_text(units: str) -> str:
    """A path for a header: tabs and line breaks removed, then sanitised."""
    return sanitize(_PATH_BREAKS.sub("", units))

"""Strings as JavaScript sees them: sequences of UTF-16 code units.

A *unit string* is a Python ``str`` in which every character is one UTF-16 code
unit: a character outside the Basic Multilingual Plane is held as its two
surrogates. Lengths, slices and searches on unit strings are then JavaScript's
``length``, ``slice`` and ``indexOf``. ``to_units`` and ``from_units`` convert at
the edges; a lone surrogate left by a cut stays a lone surrogate.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "JS_SPACE",
    "from_units",
    "js_trim",
    "js_trim_end",
    "js_trim_start",
    "to_units",
    "unit_length",
]

# String.prototype.trim's set, which is also the regular-expression class \s:
# WhiteSpace and LineTerminator of ECMA-262.
JS_SPACE: Final = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(chr(code) for code in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _split(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _join(match: re.Match[str]) -> str:
    pair = match.group()
    return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))


def to_units(text: str) -> str:
    """The unit string of ``text``."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    return _ASTRAL.sub(_split, text)


def from_units(units: str) -> str:
    """Join the surrogate pairs of a unit string; lone surrogates stay."""
    if units.isascii() or max(units) < "\ud800":
        return units
    return _PAIR.sub(_join, units)


def unit_length(text: str) -> int:
    """The number of UTF-16 code units of ``text`` (a code-point string)."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def js_trim(units: str) -> str:
    return units.strip(JS_SPACE)


def js_trim_start(units: str) -> str:
    return units.lstrip(JS_SPACE)


def js_trim_end(units: str) -> str:
    return units.rstrip(JS_SPACE)

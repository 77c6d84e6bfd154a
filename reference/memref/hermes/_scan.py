"""The threat scan of content bound for the system prompt (spec/hermes.md, "Scan").

Only the patterns and invisible characters the profile pins are here.
"""

from __future__ import annotations

import re
import unicodedata

from memref.hermes._constants import MAX_SCAN_CHARS

__all__ = ["INVISIBLE", "findings", "first_message"]

_FILLER = r"(?:\w+\s+){0,8}"
_PATTERNS = (
    (
        re.compile(
            rf"ignore\s+{_FILLER}(?:previous|all|above|prior)\s+{_FILLER}instructions", re.I
        ),
        "prompt_injection",
    ),
    (re.compile(r"system\s+prompt\s+override", re.I), "sys_prompt_override"),
    (re.compile(r"\$HOME/\.ssh|~/\.ssh", re.I), "ssh_access"),
)
INVISIBLE = frozenset("\u200b\u200c\ufeff")


def findings(text: str) -> list[str]:
    """What the scan finds in ``text``: invisible characters first, then pattern ids."""
    head = text[:MAX_SCAN_CHARS]
    found = [f"invisible_unicode_U+{ord(ch):04X}" for ch in sorted(set(head) & INVISIBLE)]
    folded = unicodedata.normalize("NFKC", head)
    found.extend(name for pattern, name in _PATTERNS if pattern.search(folded))
    return found


def first_message(text: str) -> str | None:
    """The refusal text of the first finding, or None when the text is clean."""
    found = findings(text)
    if not found:
        return None
    first = found[0]
    if first.startswith("invisible_unicode_"):
        code = first.removeprefix("invisible_unicode_")
        return f"Blocked: content contains invisible unicode character {code} (possible injection)."
    return (
        f"Blocked: content matches threat pattern '{first}'. Content is injected into the "
        "system prompt and must not contain injection or exfiltration payloads."
    )

"""``Filename``: ``<UTC time>--<session tag>--<slug>.md``."""

from __future__ import annotations

from memref._gostr import to_lower
from memref._time import NS_PER_SECOND, format_rfc3339
from memref.turnlog._constants import DEFAULT_SLUG, DEFAULT_TAG, SLUG_MAX, TAG_LEN

__all__ = ["filename", "session_tag", "slugify", "timestamp"]

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_LOWER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def timestamp(ns: int) -> str:
    """``YYYY-MM-DDTHHMMSSZ`` in UTC, sub-seconds truncated."""
    text = format_rfc3339(ns - ns % NS_PER_SECOND)  # e.g. 2026-09-09T14:30:05Z
    date, time = text[:-1].split("T")
    return f"{date}T{time.replace(':', '')}Z"


def session_tag(session_id: str) -> str:
    kept: list[str] = []
    for char in session_id:
        if char in _ALNUM:
            kept.append(char)
            if len(kept) >= TAG_LEN:
                break
    return "".join(kept) or DEFAULT_TAG


def slugify(title: str) -> str:
    out: list[str] = []
    last_dash = True
    for char in to_lower(title):
        if char in _LOWER_ALNUM:
            out.append(char)
            last_dash = False
        elif not last_dash:
            out.append("-")
            last_dash = True
        if len(out) >= SLUG_MAX:
            break
    return "".join(out).strip("-")


def filename(created_ns: int, session_id: str, title: str) -> str:
    return (
        f"{timestamp(created_ns)}--{session_tag(session_id)}--{slugify(title) or DEFAULT_SLUG}.md"
    )

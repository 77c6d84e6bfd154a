"""How old a memory is, in whole elapsed days, and the staleness caveat."""

from __future__ import annotations

from memref._time import NS_PER_DAY
from memref.memdir._goclock import go_sub, now_or_clock

__all__ = ["age", "age_days", "freshness_note", "freshness_text"]


def age_days(mtime: int, now: int | None = None) -> int:
    """Whole 24-hour periods from ``mtime`` to ``now``, floored; the future clamps to 0.

    The elapsed time is Go's ``Duration``, which saturates near 292 years.
    """
    elapsed = go_sub(now_or_clock(now), mtime)
    return elapsed // NS_PER_DAY if elapsed > 0 else 0


def age(mtime: int, now: int | None = None) -> str:
    """``today``, ``yesterday`` or ``<n> days ago``."""
    days = age_days(mtime, now)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def freshness_text(mtime: int, now: int | None = None) -> str:
    """The staleness caveat for memories more than one day old, else ``""``."""
    days = age_days(mtime, now)
    if days <= 1:
        return ""
    return (
        f"This memory is {days} days old. "
        "Memories are point-in-time observations, not live state — "
        "claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact."
    )


def freshness_note(mtime: int, now: int | None = None) -> str:
    """The caveat wrapped in ``<system-reminder>`` tags with a trailing newline, else ``""``."""
    text = freshness_text(mtime, now)
    if not text:
        return ""
    return "<system-reminder>" + text + "</system-reminder>\n"

"""How old a memory is, and the caveat that goes with an old one."""

from __future__ import annotations

from dataclasses import dataclass

from memref._time import NS_PER_DAY
from memref.automemory._sanitize import sanitize_path_text
from memref.automemory._units import to_units

__all__ = ["Freshness", "age_days", "caveat", "freshness"]


@dataclass(frozen=True)
class Freshness:
    days: int
    caveat: str
    reminder: str
    header: str


def age_days(mtime_ns: int, now_ns: int) -> int:
    """Whole days from ``mtime`` to ``now``, floored; never negative."""
    return max(0, (now_ns - mtime_ns) // NS_PER_DAY)


def caveat(days: int) -> str:
    if days <= 1:
        return ""
    return (
        f"This memory is {days} days old. Memories are point-in-time observations, not live"
        " state \u2014 claims about code behavior or file:line citations may be outdated."
        " Verify against current code before asserting as fact."
    )


def freshness(mtime_ns: int, now_ns: int, path: str) -> Freshness:
    days = age_days(mtime_ns, now_ns)
    text = caveat(days)
    reminder = f"<system-reminder>{text}</system-reminder>\n" if text else ""
    header = f"Memory: {sanitize_path_text(to_units(path))}:"
    return Freshness(days, text, reminder, f"{text}\n\n{header}" if text else header)

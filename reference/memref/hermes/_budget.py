"""Sizes in code points and the usage texts (spec/hermes.md, "Budget")."""

from __future__ import annotations

from collections.abc import Sequence

from memref.hermes._constants import ENTRY_DELIMITER

__all__ = ["percent", "size", "usage", "usage_short"]


def size(entries: Sequence[str]) -> int:
    """Code points of the entries joined by the delimiter (3 each)."""
    return len(ENTRY_DELIMITER.join(entries))


def percent(current: int, limit: int) -> int:
    # Computed through a double on purpose: 638/2200*100 is 28.999999999999996 (BUDGET-007).
    return min(100, int((current / limit) * 100)) if limit > 0 else 0


def usage(current: int, limit: int) -> str:
    return f"{percent(current, limit)}% \u2014 {current:,}/{limit:,} chars"


def usage_short(current: int, limit: int) -> str:
    return f"{current:,}/{limit:,}"

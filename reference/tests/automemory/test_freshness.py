"""Days, the caveat, the reminder and the header."""

from __future__ import annotations

import pytest

from memref.automemory import freshness

MS = 1_000_000
DAY = 86_400_000 * MS


@pytest.mark.parametrize(
    ("age", "days"),
    [(0, 0), (-MS, 0), (DAY - MS, 0), (DAY, 1), (2 * DAY - MS, 1), (2 * DAY, 2), (365 * DAY, 365)],
)
def test_seed_vectors(age: int, days: int) -> None:
    fresh = freshness(10**18, 10**18 + age, "/p/a.md")
    assert fresh.days == days
    assert (fresh.caveat == "") == (days <= 1)


def test_header_and_reminder() -> None:
    fresh = freshness(0, 2 * DAY, "/p/with\ttab.md")
    assert fresh.header == fresh.caveat + "\n\nMemory: /p/withtab.md:"
    assert fresh.reminder == f"<system-reminder>{fresh.caveat}</system-reminder>\n"
    assert freshness(0, 0, "/x").header == "Memory: /x:"

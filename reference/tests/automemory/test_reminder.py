"""The post-write reminder."""

from __future__ import annotations

from memref.automemory import size_reminder


def test_163_lines() -> None:
    reminder = size_reminder("\n".join(["x"] * 163))
    assert reminder.text == (
        "The memory index at MEMORY.md is 163 lines, approaching the 200-line read limit."
        " Compact it to under 140 lines now: keep one line per entry, move detail into topic"
        " files, and merge or drop stale entries."
    )
    assert reminder.over_cap is False


def test_over_units() -> None:
    reminder = size_reminder("x" * 25_001)
    assert reminder.over_cap and reminder.text is not None
    assert reminder.text.startswith(
        "Error: this write left the memory index at MEMORY.md at 24.4KB, over its 24.4KB read"
    )
    assert "Rewrite it to under 17.1KB now" in reminder.text


def test_below_threshold_and_tie() -> None:
    assert size_reminder("x" * 19_999).text is None
    tie = size_reminder("\n".join(["x" * 124] * 159 + ["x" * 125]))
    assert tie.text is not None and "is 19.5KB" in tie.text

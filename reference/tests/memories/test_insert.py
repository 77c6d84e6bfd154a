"""memref.memories: insert (MEMORIES-INS-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref.memories import inserted

from .support import base_with, call


@pytest.mark.parametrize(
    ("content", "line", "text", "after"),
    [
        ("a\nb\n", 0, "X", "X\na\nb\n"),
        ("a\nb\n", 2, "X", "a\nb\nX\n"),
        ("a\nb", 2, "X", "a\nb\nX\n"),
        ("a\nb\n", 1, "X\n\n", "a\nX\nb\n"),
        ("", 0, "X", "X\n"),
        ("a\r\nb\r\n", 1, "X", "a\r\nX\nb\r\n"),
        ("a\n\n", 2, "X", "a\n\nX\n"),
        ("a\nb\n", 3, "X", None),
        ("a\nb\n", -1, "X", None),
    ],
)
def test_the_text_goes_after_the_line(
    content: str, line: int, text: str, after: str | None
) -> None:
    assert inserted(content, line, text) == after


def test_the_range_error_counts_lines_without_the_final_empty_one(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "a\nb\n"})
    reply = call(base, "insert", path="/memories/f.txt", insert_line=3, insert_text="X")
    assert (
        reply.content == "Invalid `insert_line` parameter: 3. It should be within the range [0, 2]."
    )
    for line in (True, "1", 1.0, None):
        assert call(
            base, "insert", path="/memories/f.txt", insert_line=line, insert_text="X"
        ).is_error
    assert (Path(base) / "memories" / "f.txt").read_text() == "a\nb\n"

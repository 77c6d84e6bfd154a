"""memref.memories: str_replace (MEMORIES-SR-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memref.memories import occurrence_lines, snippet

from .support import base_with, call


@pytest.mark.parametrize(
    ("content", "old", "lines"),
    [
        ("a\nfoo\nb\nfoo\n", "foo", [2, 4]),
        ("foo foo", "foo", [1, 1]),
        ("aaaa", "aa", [1, 1, 1]),
        ("ab\ncd\n", "", [1, 1, 1, 2, 2, 2, 3]),
    ],
)
def test_occurrences_are_listed_by_an_overlapping_scan(
    content: str, old: str, lines: list[int]
) -> None:
    assert occurrence_lines(content, old) == lines


def test_the_snippet_is_two_lines_each_side() -> None:
    new = "\n".join(f"l{i}" for i in range(1, 11))
    assert snippet(new, 0) == ["     1\tl1", "     2\tl2", "     3\tl3"]
    assert snippet(new, 9) == ["     8\tl8", "     9\tl9", "    10\tl10"]


def test_a_unique_text_is_replaced_literally_and_the_mode_reset(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "one\ntwo $x\nthree\n"})
    path = Path(base) / "memories" / "f.txt"
    os.chmod(path, 0o644)
    before = os.stat(path).st_ino
    reply = call(base, "str_replace", path="/memories/f.txt", old_str="two $x", new_str="$&\\1")
    assert reply.is_error is False
    assert path.read_text() == "one\n$&\\1\nthree\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and os.stat(path).st_ino != before


def test_refusals_leave_the_file(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "foo foo\n", "d": None})
    assert call(
        base, "str_replace", path="/memories/f.txt", old_str="foo", new_str="x"
    ).content == (
        "No replacement was performed. Multiple occurrences of old_str `foo` in lines: 1, 1. "
        "Please ensure it is unique"
    )
    assert call(base, "str_replace", path="/memories/d", old_str="a", new_str="b").content == (
        "The path /memories/d is not a file."
    )
    assert call(
        base, "str_replace", path="/memories/f.txt", old_str="foo foo", new_str="\ud800"
    ).is_error
    assert (Path(base) / "memories" / "f.txt").read_text() == "foo foo\n"
    assert sorted(os.listdir(Path(base) / "memories")) == ["d", "f.txt"]

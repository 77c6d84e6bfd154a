"""memref.memories: rename (MEMORIES-MV-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .support import base_with, call, tree_of


def test_a_move_keeps_content_and_modes_and_makes_parents(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    os.chmod(Path(base) / "memories" / "a.txt", 0o640)
    reply = call(base, "rename", old_path="/memories/a.txt", new_path="/memories/n/m/a.txt")
    assert reply.content == "Successfully renamed /memories/a.txt to /memories/n/m/a.txt"
    moved = Path(base) / "memories" / "n" / "m" / "a.txt"
    assert moved.read_text() == "a" and stat.S_IMODE(os.stat(moved).st_mode) == 0o640
    assert stat.S_IMODE(os.stat(moved.parent).st_mode) == 0o700


def test_the_checks_come_in_order(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a", "b.txt": "b"})
    assert call(base, "rename", old_path="/x", new_path="/memories/../y").content == (
        "Path must start with /memories, got: /x"
    )
    assert call(base, "rename", old_path="/memories", new_path="/memories/b.txt").content == (
        "Cannot rename the /memories directory itself"
    )
    assert call(base, "rename", old_path="/memories/a.txt", new_path="/memories/b.txt").content == (
        "The destination /memories/b.txt already exists"
    )
    reply = call(base, "rename", old_path="/memories/nope", new_path="/memories/p/q.txt")
    assert reply.content == "The path /memories/nope does not exist"
    assert tree_of(Path(base) / "memories") == {"a.txt": "a", "b.txt": "b", "p": "<dir>"}


def test_a_directory_cannot_move_into_itself(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d/x": "x"})
    reply = call(base, "rename", old_path="/memories/d", new_path="/memories/d/sub")
    assert reply.is_error and str(tmp_path) not in reply.content
    assert tree_of(Path(base) / "memories") == {"d": "<dir>", "d/x": "x"}


def test_links_are_followed_on_both_sides(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a", "b.txt": "b"})
    root = Path(base) / "memories"
    os.symlink("a.txt", root / "to-a")
    os.symlink("landed.txt", root / "dangling")
    assert (
        call(base, "rename", old_path="/memories/to-a", new_path="/memories/c.txt").is_error
        is False
    )
    assert (
        call(base, "rename", old_path="/memories/b.txt", new_path="/memories/dangling").is_error
        is False
    )
    assert tree_of(root) == {
        "c.txt": "a",
        "to-a": "-> a.txt",
        "dangling": "-> landed.txt",
        "landed.txt": "b",
    }

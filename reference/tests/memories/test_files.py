"""memref.memories: the filesystem side: modes, atomic rewrites, the root (MEMORIES-FILE-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memref._faults import counting
from memref.memories._files import make_root

from .support import base_with, call, tree_of


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_the_root_and_missing_ancestors_are_0700(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        make_root(str(tmp_path / "a" / "base"), "memories")
    finally:
        os.umask(old)
    for path in (tmp_path / "a", tmp_path / "a" / "base", tmp_path / "a" / "base" / "memories"):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700


def test_an_existing_root_keeps_its_mode(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    os.chmod(Path(base) / "memories", 0o755)
    call(base, "view", path="/memories")
    assert stat.S_IMODE(os.stat(Path(base) / "memories").st_mode) == 0o755


def test_a_rewrite_failing_at_any_step_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "old\n"})
    with counting() as clean:
        call(base, "str_replace", path="/memories/f.txt", old_str="old", new_str="old")
    for k in range(1, clean.attempted + 1):
        with counting(k):
            reply = call(base, "str_replace", path="/memories/f.txt", old_str="old", new_str="new")
        assert reply.is_error
        assert tree_of(Path(base) / "memories") == {"f.txt": "old\n"}, k


def test_nothing_opens_a_fifo(tmp_path: Path) -> None:
    base = base_with(tmp_path, {})
    os.mkfifo(Path(base) / "memories" / "p")
    for command, members in (
        ("view", {}),
        ("str_replace", {"old_str": "a", "new_str": "b"}),
        ("insert", {"insert_line": 0, "insert_text": "x"}),
        ("create", {"file_text": "x"}),
        ("delete", {}),
    ):
        assert call(base, command, path="/memories/p", **members).is_error

"""memref.memories under hostile trees and inputs: deep directories, files past the read
limit, many occurrences, and the order of the checks (MEMORIES-DEL-006, MEMORIES-FILE-006,
MEMORIES-SR-009, MEMORIES-PATH-010, MEMORIES-MV-002, MEMORIES-INS-005)."""

from __future__ import annotations

import os
import resource
from pathlib import Path

from memref.memories._files import MAX_FILE_BYTES

from .support import base_with, call, tree_of


def _nest(root: Path, depth: int) -> None:
    """``d/d/.../d`` ``depth`` levels below ``root``, with a file every 500 levels, made
    through descriptors (the host path outgrows PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
            if level % 500 == 0:
                os.close(os.open("f.txt", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
    finally:
        os.close(fd)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_directory_2100_levels_deep_is_deleted_with_few_descriptors(tmp_path: Path) -> None:
    base = base_with(tmp_path)
    _nest(Path(base) / "memories", 2100)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    before = _open_descriptors()
    resource.setrlimit(resource.RLIMIT_NOFILE, (before + 16, hard))
    try:
        reply = call(base, "delete", path="/memories/d")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert reply.content == "Successfully deleted /memories/d"
    assert not reply.is_error
    assert tree_of(Path(base) / "memories") == {}
    assert _open_descriptors() == before


def test_a_file_past_the_read_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    base = base_with(tmp_path)
    for name, size in (("over.bin", MAX_FILE_BYTES + 1), ("huge.bin", 1 << 40)):
        with open(Path(base) / "memories" / name, "wb") as handle:
            handle.truncate(size)
        for command, members in (
            ("view", {}),
            ("str_replace", {"old_str": "a", "new_str": "b"}),
            ("insert", {"insert_line": 0, "insert_text": "b"}),
        ):
            reply = call(base, command, path=f"/memories/{name}", **members)
            assert reply.is_error
            assert "larger than 16 MiB" in reply.content
        assert (Path(base) / "memories" / name).stat().st_size == size


def test_a_file_at_the_read_limit_is_read(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"edge.txt": "a" * MAX_FILE_BYTES})
    reply = call(base, "view", path="/memories/edge.txt")
    assert not reply.is_error
    assert reply.content.endswith("\t" + "a" * MAX_FILE_BYTES)


def test_every_occurrence_is_listed_with_its_line(tmp_path: Path) -> None:
    content = "a\n" * 3 + "aa\n" + "b" * 5 + "a"
    base = base_with(tmp_path, {"m.txt": content})
    reply = call(base, "str_replace", path="/memories/m.txt", old_str="a", new_str="x")
    assert reply.content == (
        "No replacement was performed. Multiple occurrences of old_str `a` in lines: "
        "1, 2, 3, 4, 4, 5. Please ensure it is unique"
    )


def test_rename_checks_old_path_whole_before_new_path(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    reply = call(base, "rename", old_path="/etc/x")
    assert reply.content == "Path must start with /memories, got: /etc/x"
    reply = call(base, "rename", old_path="/memories/a.txt")
    assert reply.is_error and "new_path" in reply.content


def test_rename_to_below_a_file_fails_before_the_source_is_looked_for(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "f"})
    for new in ("/memories/f.txt/y.txt", "/memories/f.txt/x/y.txt"):
        reply = call(base, "rename", old_path="/memories/nope.txt", new_path=new)
        assert reply.is_error
        assert "does not exist" not in reply.content
    assert tree_of(Path(base) / "memories") == {"f.txt": "f"}


def test_insert_checks_its_range_before_its_text(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"f.txt": "a\n"})
    reply = call(base, "insert", path="/memories/f.txt", insert_line=5)
    assert reply.content == (
        "Invalid `insert_line` parameter: 5. It should be within the range [0, 1]."
    )
    reply = call(base, "insert", path="/memories/f.txt", insert_line=1)
    assert reply.is_error and "insert_text" in reply.content

"""memref.memories: create, complete or not at all (MEMORIES-CREATE-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memref._faults import counting
from memref.memories import _files

from .support import base_with, call, tree_of


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o000])
def test_a_file_and_its_directories_get_their_modes(tmp_path: Path, umask: int) -> None:
    base = base_with(tmp_path)
    old = os.umask(umask)
    try:
        reply = call(base, "create", path="/memories/x/y/z.txt", file_text="deep\n")
    finally:
        os.umask(old)
    assert reply.content == "File created successfully at: /memories/x/y/z.txt"
    root = Path(base) / "memories"
    assert (_mode(root / "x"), _mode(root / "x" / "y")) == (0o700, 0o700)
    assert (root / "x/y/z.txt").read_bytes() == b"deep\n"
    assert _mode(root / "x/y/z.txt") == 0o600 & ~umask


def test_never_over_an_existing_entry(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "old", "d": None})
    os.symlink("a.txt", Path(base) / "memories" / "to-a")
    for path in ("/memories/a.txt", "/memories/d", "/memories", "/memories/to-a"):
        assert (
            call(base, "create", path=path, file_text="new").content
            == f"File {path} already exists"
        )
    assert (Path(base) / "memories" / "a.txt").read_text() == "old"


@pytest.mark.parametrize("unnamed", [True, False], ids=["o-tmpfile", "named-temporary"])
def test_every_failing_step_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool
) -> None:
    if not unnamed:
        monkeypatch.setattr(_files, "_O_TMPFILE", 0)
    with counting() as clean:
        call(base_with(tmp_path / "clean"), "create", path="/memories/n/f.txt", file_text="body")
    assert clean.attempted >= 4
    for k in range(1, clean.attempted + 1):
        base = base_with(tmp_path / str(k))
        with counting(k):
            reply = call(base, "create", path="/memories/n/f.txt", file_text="body")
        assert reply.is_error, k
        assert tree_of(Path(base) / "memories") in ({}, {"n": "<dir>"}), k
        again = call(base, "create", path="/memories/n/f.txt", file_text="body")
        assert again.is_error is False, k


def test_a_refused_text_makes_nothing(tmp_path: Path) -> None:
    base = base_with(tmp_path)
    for text in (None, 5, "a\ud800b"):
        members = {} if text is None else {"file_text": text}
        assert call(base, "create", path="/memories/new/s.txt", **members).is_error
    assert tree_of(Path(base) / "memories") == {}


def test_a_dangling_link_inside_is_created_where_it_leads(tmp_path: Path) -> None:
    base = base_with(tmp_path)
    os.symlink("made/here.txt", Path(base) / "memories" / "l")
    assert call(base, "create", path="/memories/l", file_text="x").is_error is False
    assert tree_of(Path(base) / "memories") == {
        "l": "-> made/here.txt",
        "made": "<dir>",
        "made/here.txt": "x",
    }

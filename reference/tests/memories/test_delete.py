"""memref.memories: delete (MEMORIES-DEL-*)."""

from __future__ import annotations

import os
from pathlib import Path

from memref._faults import counting

from .support import base_with, call, tree_of


def test_a_directory_goes_with_everything_in_it_and_links_are_not_followed(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d/x/y.txt": "y", "d/.h": "h"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.symlink(str(outside), Path(base) / "memories" / "d" / "out")
    assert call(base, "delete", path="/memories/d").content == "Successfully deleted /memories/d"
    assert tree_of(Path(base) / "memories") == {}
    assert tree_of(outside) == {"keep.txt": "keep"}


def test_the_root_and_what_is_not_there(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d": None})
    os.mkfifo(Path(base) / "memories" / "fifo")
    for path in ("/memories", "/memories/", "/memories/.", "/memories//", "/memories/d/.."):
        assert (
            call(base, "delete", path=path).content
            == "Cannot delete the /memories directory itself"
        )
    assert (
        call(base, "delete", path="/memories/fifo").content
        == "The path /memories/fifo does not exist"
    )
    assert os.path.exists(Path(base) / "memories" / "fifo")


def test_a_link_inside_deletes_what_it_leads_to(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    os.symlink("a.txt", Path(base) / "memories" / "l")
    assert call(base, "delete", path="/memories/l").is_error is False
    assert tree_of(Path(base) / "memories") == {"l": "-> a.txt"}


def test_an_interrupted_delete_can_be_finished(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d/a.txt": "a", "d/e/b.txt": "b"})
    with counting(2):
        assert call(base, "delete", path="/memories/d").is_error
    assert call(base, "delete", path="/memories/d").is_error is False
    assert tree_of(Path(base) / "memories") == {}

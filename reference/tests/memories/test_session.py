"""memref.memories: one tool across commands, and clear_all (MEMORIES-SESS-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memref.memories import clear_all, session_script

from .support import base_with, tree_of


def test_a_removed_root_is_made_again_only_by_create(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    script = [
        {"op": "remove_root"},
        {"op": "call", "input": {"command": "view", "path": "/memories"}},
        {"op": "call", "input": {"command": "create", "path": "/memories/b.txt", "file_text": "b"}},
    ]
    events = list(session_script(base, script))
    assert events[0] is None
    assert events[1] is not None and events[1].content.startswith(
        "The path /memories does not exist"
    )
    assert events[2] is not None and events[2].is_error is False
    assert tree_of(Path(base) / "memories") == {"b.txt": "b"}
    assert stat.S_IMODE(os.stat(Path(base) / "memories").st_mode) == 0o700


def test_clear_all_empties_the_root_and_refuses_a_link(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a", "d/.h": "h"})
    assert clear_all(base).content == "All memory cleared"
    assert tree_of(Path(base) / "memories") == {}
    real = tmp_path / "real"
    real.mkdir()
    (real / "keep.txt").write_text("k")
    os.rmdir(Path(base) / "memories")
    os.symlink(str(real), Path(base) / "memories")
    assert clear_all(base).is_error
    assert tree_of(real) == {"keep.txt": "k"}

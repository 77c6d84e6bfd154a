"""MigrateV1IfNeeded: the flat MEMORY.md becomes one fact in a private store."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memref.factstore import (
    StoreDirs,
    list_facts,
    new_store,
    project_hash,
)

from .support import (
    WS,
    full_migrate,
    put,
    repo_with_worktree,
)


def test_v1_store_dirs_are_private(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    put(config / "projects" / project_hash(WS) / "MEMORY.md", "notes")
    full_migrate(config, WS)
    dirs: StoreDirs = new_store(str(config), WS)
    assert os.stat(dirs.project_dir).st_mode & 0o077 == 0
    assert [m.name for m in list_facts(dirs)] == ["notas-legado-v1"]


def test_sibling_v1_notes_are_wrapped(tmp_path: Path) -> None:
    repo, wt = repo_with_worktree(tmp_path)
    config = tmp_path / "cfg"
    put(config / "projects" / project_hash(str(wt)) / "MEMORY.md", "# sibling notes\n")
    put(config / "sessions" / "s" / "1.json", json.dumps({"id": "1", "metadata": {"cwd": str(wt)}}))
    full_migrate(config, str(repo))
    dirs = new_store(str(config), str(repo))
    facts = list_facts(dirs)
    assert [m.name for m in facts] == ["notas-legado-v1"]
    assert facts[0].body == "# sibling notes"
    assert (config / "projects" / project_hash(str(wt)) / "MEMORY.md").exists()

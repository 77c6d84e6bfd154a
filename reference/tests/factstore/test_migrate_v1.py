"""MigrateV1IfNeeded: the flat MEMORY.md becomes one fact in a private store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memref.errors import OpError
from memref.factstore import (
    StoreDirs,
    list_facts,
    migrate_v1_if_needed,
    new_store,
    project_hash,
)
from memref.factstore._migrate_v1 import v1_fact_bytes

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


def test_a_crlf_copy_holds_the_notes(tmp_path: Path) -> None:
    project = tmp_path / "p"
    notes = "# old memory\n- fact one\n"
    copy = v1_fact_bytes(notes).replace(b"\n", b"\r\n")
    put(project / "notas-legado-v1-2.md", copy)
    flat = put(tmp_path / "MEMORY.md", notes)
    assert migrate_v1_if_needed(str(flat), str(project)) is False
    assert sorted(os.listdir(project)) == ["notas-legado-v1-2.md"]
    assert (tmp_path / "MEMORY.md.v1.bak").read_text() == notes


def test_failures_use_gos_words(tmp_path: Path) -> None:
    flat = put(tmp_path / "MEMORY.md", "notes")
    put(tmp_path / "codebases", "a file")
    with pytest.raises(OpError) as made:
        migrate_v1_if_needed(str(flat), str(tmp_path / "codebases" / "k" / "memory"))
    assert (made.value.kind, made.value.message) == (
        "not-a-directory",
        f"mkdir {tmp_path}/codebases: not a directory",
    )
    (tmp_path / "MEMORY.md.v1.bak").mkdir()
    with pytest.raises(OpError) as renamed:
        migrate_v1_if_needed(str(flat), str(tmp_path / "p"))
    assert (renamed.value.kind, renamed.value.message) == (
        "exists",
        f"rename {flat} {tmp_path}/MEMORY.md.v1.bak: file exists",
    )
    assert flat.exists() and sorted(os.listdir(tmp_path / "p")) == ["notas-legado-v1.md"]

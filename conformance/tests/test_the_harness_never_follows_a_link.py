"""Cleanup and tree reading never follow a link, at the root or below it, and an adapter
that replaces the folder of its case with a link fails that case."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from memspec.corpus.cases import case_from_json
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.run.trees import read_tree, remove_tree
from memspec.wire.adapters import Adapter


def _decoy(tmp_path: Path) -> Path:
    decoy = tmp_path / "decoy"
    (decoy / "shared").mkdir(parents=True)
    (decoy / "shared").chmod(0o1777)
    (decoy / "private").mkdir()
    (decoy / "private").chmod(0o750)
    (decoy / "private" / "secret").write_text("secret")
    return decoy


def _modes(decoy: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.lstat().st_mode) for p in decoy.iterdir()}


def test_an_adapter_that_replaces_its_root_with_a_link_fails_and_the_target_is_untouched(
    tmp_path: Path,
) -> None:
    decoy = _decoy(tmp_path)
    before = _modes(decoy)
    base = tmp_path / "runs"
    base.mkdir()
    case = case_from_json(
        {
            "id": "demo/harness/replaced-root",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "tree": {"memories/note.txt": {"text": "x"}},
            "op": "demo.tool",
            "args": {"root": "${ROOT}", "path": str(decoy)},
            "expect": {"result": {"content": "done", "is_error": False}},
        }
    )
    adapter = Adapter("python:race_fakes:RootReplacer")
    try:
        with pytest.raises(
            CaseFailure, match="replaced the folder of the case with a symbolic link"
        ):
            run_case(case, adapter, base=base)
    finally:
        adapter.close()
    assert _modes(decoy) == before == {"shared": 0o1777, "private": 0o750}
    assert (decoy / "private" / "secret").read_text() == "secret"
    (moved,) = base.iterdir()  # the link is gone; what the adapter moved aside stays
    assert moved.name.endswith(".moved") and not moved.is_symlink()
    shutil.rmtree(moved)


def test_remove_tree_removes_a_link_in_the_roots_place_and_follows_none_below(
    tmp_path: Path,
) -> None:
    decoy = _decoy(tmp_path)
    before = _modes(decoy)
    root = tmp_path / "root"
    (root / "locked").mkdir(parents=True)
    (root / "locked" / "into-decoy").symlink_to(decoy)
    (root / "locked").chmod(0)
    remove_tree(root)
    assert not os.path.lexists(root)
    link = tmp_path / "link"
    link.symlink_to(decoy)
    remove_tree(link)
    assert not os.path.lexists(link)
    assert _modes(decoy) == before and (decoy / "private" / "secret").exists()


def test_read_tree_reads_links_as_links_and_refuses_a_root_that_is_one(tmp_path: Path) -> None:
    decoy = _decoy(tmp_path)
    root = tmp_path / "root"
    root.mkdir()
    (root / "d").symlink_to(decoy)
    (root / "f").symlink_to(decoy / "private" / "secret")
    found: Any = read_tree(root)
    assert sorted(found) == ["d", "f"]
    assert {entry.kind for entry in found.values()} == {"symlink"}
    link = tmp_path / "link"
    link.symlink_to(decoy)
    with pytest.raises(CaseFailure, match="replaced by a symbolic link"):
        read_tree(link)

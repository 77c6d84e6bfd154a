"""CodebaseKey and ProjectHash against real git repositories."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from memref.factstore import (
    canonicalize_path,
    codebase_identity,
    codebase_key,
    project_hash,
    repo_codebase_key,
)

from .support import git, repo_with_worktree

pytestmark = pytest.mark.skipif(
    os.system("git --version >/dev/null 2>&1") != 0, reason="git is not installed"
)


def test_worktrees_share_the_checkout_key(tmp_path: Path) -> None:
    repo, wt = repo_with_worktree(tmp_path)
    assert codebase_key(str(wt)) == codebase_key(str(repo)) == project_hash(str(repo))
    assert project_hash(str(wt)) != project_hash(str(repo))
    assert repo_codebase_key(str(wt)) == (codebase_key(str(repo)), True)


def test_key_is_sha256_prefix(tmp_path: Path) -> None:
    real = os.path.realpath(tmp_path)
    assert project_hash(str(tmp_path)) == hashlib.sha256(real.encode()).hexdigest()[:16]


def test_process_environment_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = repo_with_worktree(tmp_path)
    (repo / "sub").mkdir()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(repo))
    assert codebase_identity(str(repo / "sub")).path == os.path.realpath(repo)
    polluted = {
        "PATH": os.environ["PATH"],
        "GIT_DIR": str(tmp_path / "nowhere"),
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.bare",
        "GIT_CONFIG_VALUE_0": "true",
    }
    assert codebase_identity(str(repo / "sub"), polluted).path == os.path.realpath(repo)


def test_symlink_into_subdirectory(tmp_path: Path) -> None:
    repo, _ = repo_with_worktree(tmp_path)
    (repo / "a" / "b").mkdir(parents=True)
    os.symlink(repo / "a" / "b", tmp_path / "link")
    assert codebase_identity(str(tmp_path / "link")).path == os.path.realpath(repo)


def test_git_runs_in_the_directory_as_given(tmp_path: Path) -> None:
    repo, _ = repo_with_worktree(tmp_path)
    real = os.path.realpath(repo)
    (repo / "a").mkdir()
    (tmp_path / "plain").mkdir()
    os.symlink(repo / "a", tmp_path / "plain" / "lnk")
    missing = codebase_identity(f"{repo}/sub/../a")
    assert (missing.path, missing.repo) == (f"{real}/a", False)
    through_link = codebase_identity(f"{tmp_path}/plain/lnk/..")
    assert (through_link.path, through_link.repo) == (real, True)
    relative = codebase_identity("plain/lnk/..", cwd=str(tmp_path))
    assert (relative.path, relative.repo) == (real, True)


def test_submodule_has_its_own_key(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "sub")
    git(tmp_path / "sub", "commit", "-q", "--allow-empty", "-m", "s")
    git(tmp_path, "init", "-q", "super")
    git(tmp_path / "super", "commit", "-q", "--allow-empty", "-m", "s")
    git(
        tmp_path / "super",
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        "../sub",
        "mod",
    )
    identity = codebase_identity(str(tmp_path / "super" / "mod"))
    assert identity.path == os.path.realpath(tmp_path / "super" / ".git" / "modules" / "mod")


def test_fallback_and_spellings(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert codebase_key(str(missing)) == project_hash(str(missing))
    assert repo_codebase_key(str(missing)) == ("", False)
    (tmp_path / "d").mkdir()
    spellings = [f"{tmp_path}/d/", f"{tmp_path}/d/.", f"{tmp_path}/./d", f"{tmp_path}//d"]
    assert {canonicalize_path(s) for s in spellings} == {os.path.realpath(tmp_path / "d")}

"""Helpers for the factstore tests: facts on disk, git repositories, tree snapshots."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from memref._time import parse_rfc3339
from memref.factstore import (
    Memory,
    StoreDirs,
    codebase_key,
    migrate_codebase,
    migrate_v1_if_needed,
    new_store,
    project_hash,
    serialize,
)

GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=GIT_ENV,
        check=True,
        capture_output=True,
    )


def repo_with_worktree(base: Path) -> tuple[Path, Path]:
    git(base, "init", "-q", "repo")
    git(base / "repo", "commit", "-q", "--allow-empty", "-m", "init")
    git(base / "repo", "worktree", "add", "-q", "../wt")
    return base / "repo", base / "wt"


def fact_bytes(name: str, body: str = "body", description: str = "d") -> bytes:
    return serialize(Memory(name, description, "project", "", True, body)).encode()


def put(path: Path, data: bytes | str, mtime_ns: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def snapshot(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, bytes | str]:
    """Every file (content), symlink (target) and directory below ``root``."""
    found: dict[str, bytes | str] = {}
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        rel = os.path.relpath(directory, root)
        if rel != ".":
            found[rel + "/"] = "dir"
        for name in filenames:
            path = os.path.join(directory, name)
            key = os.path.relpath(path, root)
            if os.path.islink(path):
                found[key] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[key] = handle.read().replace(str(root).encode(), b"<ROOT>")
    return found


def store(tmp_path: Path) -> StoreDirs:
    return StoreDirs(str(tmp_path / "g"), str(tmp_path / "p"))


def durable(name: str, body: str = "body", type_: str = "project") -> Memory:
    return Memory(name, "d", type_, "", True, body)


NOW = parse_rfc3339("2026-03-01T10:00:00Z")
WS = "/memspec-absent/ws"


def full_migrate(config: Path, workspace: str, base: str = "/") -> None:
    migrate_codebase(str(config), workspace, NOW, {"PATH": os.environ["PATH"]}, base)
    dirs = new_store(str(config), workspace)
    migrate_v1_if_needed(
        str(config / "projects" / project_hash(workspace) / "MEMORY.md"), dirs.project_dir
    )


def seed_legacy(config: Path) -> None:
    own = config / "projects" / project_hash(WS)
    put(own / "memory" / "a.md", fact_bytes("a"))
    put(own / "memory" / "shared.md", fact_bytes("shared", "legacy"))
    put(own / "MEMORY.md", "# old memory\n- fact one\n")
    put(
        config / "codebases" / codebase_key(WS) / "memory" / "shared.md",
        fact_bytes("shared", "current"),
    )
    other = config / "projects" / project_hash("/memspec-absent/other")
    put(other / "memory" / "x.md", fact_bytes("x"))

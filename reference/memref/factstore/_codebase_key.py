"""core.CodebaseKey and core.ProjectHash: which repository a workspace belongs to.

The key hashes the repository's common git directory as ``git rev-parse`` reports it,
run with the request's environment minus the variables that would redirect it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import shutil
import signal
import subprocess
from collections.abc import Mapping

from memref._gostr import decode, encode
from memref.factstore._constants import GIT_TIMEOUT_S

__all__ = [
    "Identity",
    "canonicalize_path",
    "codebase_identity",
    "codebase_key",
    "hash_key",
    "project_hash",
    "repo_codebase_key",
    "scrub_env",
    "trim_git_eol",
]

_SCRUBBED = frozenset(
    {
        "GIT_DIR",
        "GIT_COMMON_DIR",
        "GIT_WORK_TREE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
    }
)


def hash_key(path: str) -> str:
    """The first 8 bytes of SHA-256 of the path's bytes, as 16 lowercase hex digits."""
    return hashlib.sha256(encode(path)).digest()[:8].hex()


def _abs(path: str, cwd: str | None) -> str:
    if not path.startswith("/"):
        if cwd is None:
            raise ValueError("a relative path needs a working directory")
        path = posixpath.join(cwd, path)
    return posixpath.normpath(path) if path else "/"


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned


def canonicalize_path(path: str, cwd: str | None = None) -> str:
    """Abs, Clean, then EvalSymlinks; the cleaned path when any component cannot be
    resolved."""
    cleaned = _clean(_abs(path, cwd))
    try:
        return _clean(os.path.realpath(cleaned, strict=True))
    except (OSError, ValueError):
        return cleaned


def project_hash(path: str, cwd: str | None = None) -> str:
    return hash_key(canonicalize_path(path, cwd))


def scrub_env(env: Mapping[str, str]) -> dict[str, str]:
    return {
        key: value
        for key, value in env.items()
        if key not in _SCRUBBED
        and not key.startswith("GIT_CONFIG_KEY_")
        and not key.startswith("GIT_CONFIG_VALUE_")
    }


def trim_git_eol(text: str) -> str:
    """Remove one trailing newline, then one trailing carriage return."""
    return text.removesuffix("\n").removesuffix("\r")


def _run_git(directory: str, env: Mapping[str, str]) -> bytes | None:
    search = env.get("PATH") or os.environ.get("PATH") or os.defpath
    git = shutil.which("git", path=search)
    if git is None:
        return None
    try:
        process = subprocess.Popen(
            [git, "rev-parse", "--is-bare-repository", "--git-common-dir"],
            cwd=directory,
            env=scrub_env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    try:
        out, _ = process.communicate(timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        # git and everything it started share a process group: end them all, so a
        # descendant holding stdout open cannot stretch the wait.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            process.communicate(timeout=GIT_TIMEOUT_S)
        return None
    finally:
        with contextlib.suppress(OSError):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    return out if process.returncode == 0 else None


class Identity:
    """The path a codebase key hashes, and whether git answered for it."""

    def __init__(self, path: str, repo: bool) -> None:
        self.path = path
        self.repo = repo


def _as_given(directory: str, cwd: str | None) -> str | None:
    """``directory`` made absolute against ``cwd`` but not cleaned: git runs in it as the
    system resolves it, so ``x/..`` fails when ``x`` is missing and climbs from a link's
    target when ``x`` is a link."""
    if directory.startswith("/"):
        return directory
    if cwd is None:
        return None
    return posixpath.join(cwd, directory)


def _repo_path(directory: str, env: Mapping[str, str], cwd: str | None) -> str | None:
    given = _as_given(directory, cwd)
    if given is None:
        return None
    out = _run_git(given, env)
    if out is None:
        return None
    try:
        # git answers relative to the directory it ran in, symlinks resolved.
        physical = _clean(os.path.realpath(given, strict=True))
    except (OSError, ValueError):
        return None
    text = decode(out)
    first, newline, rest = text.partition("\n")
    if not newline:
        return None
    bare = first.removesuffix("\r")
    if bare not in ("true", "false"):
        return None
    common = rest.removesuffix("\n")
    if common.endswith("\r"):
        # A name that really ends in CR keeps it; a CRLF line ending loses it.
        kept = common if common.startswith("/") else posixpath.join(physical, common)
        if not os.path.lexists(kept):
            common = common[:-1]
    if common == "":
        return None
    if not common.startswith("/"):
        common = _clean(posixpath.join(physical, common))
    path = canonicalize_path(common)
    if bare != "true" and posixpath.basename(path) == ".git":
        path = posixpath.dirname(path)
    return path


def codebase_identity(
    directory: str, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> Identity:
    found = _repo_path(directory, env or {}, cwd)
    if found is not None:
        return Identity(found, True)
    try:
        return Identity(canonicalize_path(directory, cwd), False)
    except ValueError:
        return Identity(_clean(directory), False)


def codebase_key(
    directory: str, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> str:
    return hash_key(codebase_identity(directory, env, cwd).path)


def repo_codebase_key(
    directory: str, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> tuple[str, bool]:
    found = _repo_path(directory, env or {}, cwd)
    if found is None:
        return "", False
    return hash_key(found), True

"""The set-up actions a case may ask for before its first step (``setup`` in the case).

``git`` runs the real git binary with a clean, fixed environment, so that the repository
a case builds is the same on every machine: nothing of the harness's own ``GIT_*``
variables, configuration or home directory leaks in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memspec.corpus.tokens import substitute
from memspec.exceptions import SetupError

__all__ = ["GIT_DATE", "git_available", "needs_git", "run_setup"]

GIT_DATE = "2026-01-01T00:00:00Z"
_GIT_CONFIG = (
    "-c",
    "init.defaultBranch=main",
    "-c",
    "protocol.file.allow=always",
    "-c",
    "core.autocrlf=false",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "commit.gpgsign=false",
)
_TIMEOUT_S = 60


def git_available() -> bool:
    return shutil.which("git") is not None


def needs_git(actions: Sequence[Mapping[str, Any]]) -> bool:
    return any("git" in action for action in actions)


def _git_environment(home: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "LANG": "C",
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "memspec",
        "GIT_AUTHOR_EMAIL": "memspec@example.invalid",
        "GIT_COMMITTER_NAME": "memspec",
        "GIT_COMMITTER_EMAIL": "memspec@example.invalid",
        "GIT_AUTHOR_DATE": GIT_DATE,
        "GIT_COMMITTER_DATE": GIT_DATE,
        "GIT_TERMINAL_PROMPT": "0",
    }


def run_setup(actions: Sequence[Mapping[str, Any]], root: Path) -> None:
    """Run each action below ``root``; raises SetupError with git's own words on failure."""
    if not actions:
        return
    with tempfile.TemporaryDirectory(prefix="memspec-home-") as home:
        environment = _git_environment(home)
        for number, action in enumerate(actions, 1):
            arguments = [str(substitute(a, str(root))) for a in action["git"]]
            cwd = root / action.get("cwd", ".")
            try:
                done = subprocess.run(
                    ["git", *_GIT_CONFIG, *arguments],
                    cwd=cwd,
                    env=environment,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=_TIMEOUT_S,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise SetupError(
                    f"setup action {number} (git {' '.join(arguments)}): {exc}"
                ) from exc
            if done.returncode != 0:
                said = done.stderr.decode("utf-8", "replace").strip().splitlines()
                raise SetupError(
                    f"setup action {number} (git {' '.join(arguments)}) exited "
                    f"{done.returncode}: {said[-1] if said else ''}"
                )

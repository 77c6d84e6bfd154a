"""Validation of memory-directory candidates, the resolution order, and the key base."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memref.automemory import key_base, memory_dir, validate_memory_path
from memref.automemory._nodepath import dirname, join, normalize


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/a", None),
        ("/ab", "/ab/"),
        ("/abc//", "/abc/"),
        ("/abc/./x/../y", "/abc/y/"),
        ("~/mem", "/home/h/mem/"),
        ("~\\mem", "/home/h/mem/"),
        ("~/../x", None),
        ("~/./", "/home/h/"),
        ("C:/mem", None),
        ("/net/host/x", None),
        ("/NET/h/x", None),
        ("/net", "/net/"),
        ("/network/x", "/network/x/"),
        ("/.vol/x", None),
        ("/mem/cafe\u0301", "/mem/caf\u00e9/"),
        ("/tmp/m\\", "/tmp/m/"),
        ("//server/share/m", "/server/share/m/"),
    ],
)
def test_seed_vectors(value: str, expected: str | None) -> None:
    assert validate_memory_path(value, True, "/home/h") == expected


def test_tilde_off() -> None:
    assert validate_memory_path("~/mem", False, "/h") is None


def test_node_path_helpers() -> None:
    assert normalize("") == "." and normalize("a/../") == "./" and normalize("//x//") == "/x/"
    assert join("", "projects", "k") == "projects/k" and join() == "."
    assert dirname("/a/b/") == "/a" and dirname("/") == "/" and dirname("a") == "."


def test_resolution_order(tmp_path: Path) -> None:
    root = str(tmp_path / "p")
    env = {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "/ovr"}
    assert memory_dir(None, env, "/h") == "/ovr/"
    settings = {"userSettings": "~/set", "policySettings": "/pol"}
    assert memory_dir(root, {}, "/h", settings) == "/pol/"
    key = "-" + root[1:].replace("/", "-").replace("_", "-").replace(".", "-")
    # An invalid first setting goes to the default, not to the next setting.
    assert memory_dir(root, {}, "/h", {"policySettings": "/a", "userSettings": "/u"}) == (
        f"/h/.claude/projects/{key}/memory/"
    )
    assert memory_dir(root, {"CLAUDE_CODE_REMOTE_MEMORY_DIR": "/r"}, "/h") == (
        f"/r/projects/{key}/memory/"
    )


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
        },
    )


def test_worktree_maps_to_main_checkout(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("commit", "-q", "--allow-empty", "-m", "x", cwd=repo)
    _git("worktree", "add", "-q", "../wt", cwd=repo)
    assert key_base(str(tmp_path / "wt")).path == str(repo)
    assert key_base(str(repo)).via == "git"


def test_no_repository(tmp_path: Path) -> None:
    base = key_base(str(tmp_path / "none" / "x"))
    assert (base.path, base.via) == (str(tmp_path / "none" / "x"), "project_root")


def test_gitfile_without_gitdir_is_its_own_root(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".git").write_text("garbage\n")
    assert key_base(str(tmp_path / "d" / "x")).path == str(tmp_path / "d")


def test_only_separators_at_the_very_end_are_removed() -> None:
    assert validate_memory_path("/tmp/ab\\\n", False, "/h") == "/tmp/ab\\\n/"
    assert validate_memory_path("/tmp/ab/\n", False, "/h") == "/tmp/ab/\n/"


def test_a_dotdot_hidden_by_a_trailing_separator_stays() -> None:
    assert validate_memory_path("/x/..\\", False, "/h") == "/x/../"
    assert validate_memory_path("/network/servers/..\\", False, "/h") == "/network/servers/../"


@pytest.mark.parametrize(
    "value",
    ["/net/h/..\\", "/net/h/..\\x", "/.vol/..\\", "/Network/Servers/h/..\\", "/x/../.vol/y"],
)
def test_a_mount_the_walk_stood_at_is_refused_even_when_left(value: str) -> None:
    assert validate_memory_path(value, False, "/h") is None


def test_the_mount_test_drops_bidi_marks_but_not_zero_width_spaces() -> None:
    assert validate_memory_path("/n\u200eet/h", False, "/h") is None
    assert validate_memory_path("/n\u200bet/h", False, "/h") == "/n\u200bet/h/"
    assert validate_memory_path("/x/.vol/y", False, "/h") == "/x/.vol/y/"


def test_an_empty_home_is_joined_like_any_other(tmp_path: Path) -> None:
    assert validate_memory_path("~/mem", True, "") is None
    assert validate_memory_path("~//abc", True, "") == "/abc/"
    assert validate_memory_path("~//abc", True, "/h") == "/h/abc/"
    root = str(tmp_path / "p")
    configured = memory_dir(root, {"CLAUDE_CONFIG_DIR": "/cfg"}, "")
    assert configured == memory_dir(root, {"CLAUDE_CONFIG_DIR": "/cfg"}, "/home/u")
    default = memory_dir(root, {}, "")
    assert default is not None and default.endswith("/memory/") and ".claude/projects/" in default

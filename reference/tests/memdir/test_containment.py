"""is_in_memory_dir (lexical) and check_write_path (strict)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from memref.memdir import WriteCheck, check_write_path, is_in_memory_dir

H = "/home/u/.evva"
M = H + "/memory"


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        (M, False),
        (M + "/", False),
        (M + "/x.md", True),
        (M + "/a/b.md", True),
        (M + "/./x.md", True),
        (M + "/a/../x.md", True),
        (M + "/../x.md", False),
        (M + "/a/../../x", False),
        (H + "/memoryx/y.md", False),
        (H + "/Memory/x.md", False),
        ("relative.md", False),
        ("", False),
        # evva says false here (a string prefix test); the profile fixes it.
        (M + "/..foo.md", True),
        (M + "/...", True),
        (M + "/a/..b/c.md", True),
    ],
)
def test_verified_table(path: str, inside: bool) -> None:
    assert is_in_memory_dir(H, path, "/work") is inside


def test_empty_app_home() -> None:
    assert is_in_memory_dir("", M + "/x.md", "/") is False


def test_relative_paths_resolve_against_cwd() -> None:
    assert is_in_memory_dir("rel", "rel/memory/x.md", "/somewhere") is True
    assert is_in_memory_dir(H, "memory/x.md", H) is True
    assert is_in_memory_dir(H, "x.md", M) is True
    assert is_in_memory_dir(H, "../x.md", M) is False
    assert is_in_memory_dir(H, "x.md", "/elsewhere") is False


def test_symlinks_are_not_resolved(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "out.md").symlink_to("/etc/passwd")
    assert is_in_memory_dir(str(tmp_path), str(memory / "out.md"), "/") is True


def _check(memory_dir: str, path: str) -> tuple[bool, str]:
    result = check_write_path(memory_dir, path)
    assert isinstance(result, WriteCheck)
    return result.allowed, result.reason


@pytest.mark.parametrize(
    ("memory_dir", "path", "reason"),
    [
        ("", "/m/x.md", "empty"),
        ("/m", "", "empty"),
        ("/m", "/m/x\x00.md", "nul"),
        ("/m\x00", "/m/x.md", "nul"),
        ("/m", "x.md", "relative"),
        ("/m", "./m/x.md", "relative"),
        ("/m", "/m/../m/x.md", "dotdot"),
        ("/m", "/m/a\\..\\x.md", "dotdot"),
        ("/m", "/m/..", "dotdot"),
        ("/m", "/m", "root"),
        ("/m", "/m/", "root"),
        ("/m", "/m/.", "root"),
        ("/m/", "//m", "root"),
        ("/m", "/mx/y.md", "outside"),
        ("/m", "/etc/passwd", "outside"),
        ("/m/sub", "/m/x.md", "outside"),
        ("m", "/m/x.md", "outside"),
        (".", "/x.md", "outside"),
    ],
)
def test_lexical_reasons(memory_dir: str, path: str, reason: str) -> None:
    assert _check(memory_dir, path) == (False, reason)


def test_allowed_inside(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    assert _check(str(memory), str(memory / "x.md")) == (True, "ok")
    assert _check(str(memory), str(memory / "new" / "deep.md")) == (True, "ok")
    assert _check(str(memory), str(memory / "..foo.md")) == (True, "ok")
    assert _check(str(memory), str(memory / "%2e%2e" / "x.md")) == (True, "ok")


def test_symlinked_file_escaping(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (tmp_path / "outside.md").write_text("x")
    (memory / "link.md").symlink_to(tmp_path / "outside.md")
    (memory / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (memory / "sub").symlink_to(tmp_path)
    (memory / "self").symlink_to(memory)
    assert _check(str(memory), str(memory / "link.md")) == (False, "symlink-escape")
    assert _check(str(memory), str(memory / "dangling.md")) == (False, "symlink-escape")
    assert _check(str(memory), str(memory / "sub" / "x.md")) == (False, "symlink-escape")
    assert _check(str(memory), str(memory / "self")) == (False, "root")
    assert _check(str(memory), str(memory / "self" / "x.md")) == (True, "ok")


def test_memory_dir_itself_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "memory").symlink_to(real)
    assert _check(str(tmp_path / "memory"), str(tmp_path / "memory" / "x.md")) == (True, "ok")


def test_case_insensitive_filesystem_stays_lexical(case_insensitive_fs: FakeFilesystem) -> None:
    case_insensitive_fs.create_dir("/h/memory")
    assert is_in_memory_dir("/h", "/h/Memory/x.md", "/") is False
    assert _check("/h/memory", "/h/MEMORY/x.md") == (False, "outside")
    assert _check("/h/memory", "/h/memory/X.md") == (True, "ok")

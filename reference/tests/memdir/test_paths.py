"""memory_dir, memory_index_path and ensure_memory_dir."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem
from pyfakefs.fake_filesystem_unittest import Patcher

from memref.errors import OpError
from memref.memdir import ensure_memory_dir, memory_dir, memory_index_path


@pytest.mark.parametrize(
    ("app_home", "expected"),
    [
        ("", ""),
        ("/a/b", "/a/b/memory"),
        ("/a/b/", "/a/b/memory"),
        ("a/../b", "b/memory"),
        ("rel", "rel/memory"),
        ("//x", "/x/memory"),
        ("/a/./b//c", "/a/b/c/memory"),
        ("..", "../memory"),
        ("/", "/memory"),
    ],
)
def test_memory_dir_joins_and_cleans(app_home: str, expected: str) -> None:
    assert memory_dir(app_home) == expected


def test_memory_index_path() -> None:
    assert memory_index_path("") == ""
    assert memory_index_path("/h/") == "/h/memory/MEMORY.md"


def test_empty_app_home_does_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ensure_memory_dir("")
    assert list(tmp_path.iterdir()) == []


def test_creates_parents_with_mode_0755_and_is_idempotent(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        home = tmp_path / "a" / "b"
        ensure_memory_dir(str(home))
        ensure_memory_dir(str(home))
    finally:
        os.umask(old)
    for directory in (tmp_path / "a", home, home / "memory"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o755


def test_mode_is_subject_to_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        ensure_memory_dir(str(tmp_path))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "memory").stat().st_mode) == 0o700


def test_app_home_is_a_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("x")
    with pytest.raises(OpError) as caught:
        ensure_memory_dir(str(home))
    assert caught.value.kind == "not-a-directory"
    assert caught.value.message == f"mkdir {home}: not a directory"


def test_memory_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "memory").write_text("x")
    with pytest.raises(OpError) as caught:
        ensure_memory_dir(str(tmp_path))
    assert caught.value.kind == "not-a-directory"
    assert caught.value.message == f"mkdir {tmp_path}/memory: not a directory"


def test_memory_is_a_symlink_to_a_directory(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "memory").symlink_to(tmp_path / "elsewhere")
    ensure_memory_dir(str(tmp_path))
    assert (tmp_path / "memory").is_symlink()
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_memory_is_a_dangling_symlink(tmp_path: Path) -> None:
    (tmp_path / "memory").symlink_to(tmp_path / "missing")
    with pytest.raises(OpError) as caught:
        ensure_memory_dir(str(tmp_path))
    assert caught.value.kind == "exists"
    assert caught.value.message == f"mkdir {tmp_path}/memory: file exists"


@pytest.fixture
def nonroot_fs() -> Iterator[FakeFilesystem]:
    with Patcher(allow_root_user=False) as patcher:
        assert patcher.fs is not None
        yield patcher.fs


def test_read_only_parent_is_permission_denied(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_dir("/home/app", perm_bits=0o555)
    with pytest.raises(OpError) as caught:
        ensure_memory_dir("/home/app")
    assert caught.value.kind == "permission-denied"
    assert caught.value.message == "mkdir /home/app/memory: permission denied"


def test_the_deepest_missing_parent_reports_the_error(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_dir("/ro", perm_bits=0o555)
    with pytest.raises(OpError) as caught:
        ensure_memory_dir("/ro/x/y")
    assert caught.value.message == "mkdir /ro/x: permission denied"

"""memref._atomic.write_atomic."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from memref._atomic import write_atomic


def test_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "f"
    old = os.umask(0o022)
    try:
        write_atomic(str(target), b"one", mode=0o666, mtime_ns=123_000_000_007)
        assert target.read_bytes() == b"one"
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
        assert target.stat().st_mtime_ns == 123_000_000_007
        inode = target.stat().st_ino
        write_atomic(str(target), b"two")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"two"
    assert target.stat().st_ino != inode
    assert os.listdir(tmp_path) == ["f"]


def test_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic("rel", b"x")
    assert (tmp_path / "rel").read_bytes() == b"x"


def test_a_directory_in_the_way_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "child").write_text("keep")
    with pytest.raises(OSError):
        write_atomic(str(tmp_path / "d"), b"x")
    assert sorted(os.listdir(tmp_path)) == ["d"]


def test_full_disk_keeps_the_old_content(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/d/f", contents="old")
    nonroot_fs.set_disk_usage(10)
    with pytest.raises(OSError) as caught:
        write_atomic("/d/f", b"a much longer new content")
    assert caught.value.errno == 28
    assert os.listdir("/d") == ["f"]
    with open("/d/f") as handle:
        assert handle.read() == "old"


def test_missing_directory(nonroot_fs: FakeFilesystem) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic("/nowhere/f", b"x")

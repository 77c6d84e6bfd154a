"""Shared helpers for memref's own tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem
from pyfakefs.fake_filesystem_unittest import Patcher


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Create a file below ``tmp_path`` (parents included) with text or bytes and an mtime."""

    def make(relative: str, content: str | bytes = "", mtime: int | None = None) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        if mtime is not None:
            os.utime(path, ns=(mtime, mtime))
        return path

    return make


@pytest.fixture
def os_read_counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Record the size of every ``os.read`` result while the test runs."""
    sizes: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    yield sizes


@pytest.fixture
def case_insensitive_fs() -> Iterator[FakeFilesystem]:
    """A fake filesystem that, like macOS and Windows, ignores case in names."""
    with Patcher() as patcher:
        assert patcher.fs is not None
        patcher.fs.is_case_sensitive = False
        yield patcher.fs


@pytest.fixture
def nonroot_fs() -> Iterator[FakeFilesystem]:
    """A fake filesystem in which the tests run as a non-root user, so modes bind."""
    with Patcher(allow_root_user=False) as patcher:
        assert patcher.fs is not None
        yield patcher.fs

"""Read, Delete and List on real directories, hostile ones included."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from memref.errors import OpError
from memref.factstore import (
    Memory,
    delete,
    list_facts,
    read,
    serialize,
)

from .support import durable, snapshot, store


def test_list_survives_hostile_entries(tmp_path: Path) -> None:
    p = tmp_path / "p"
    p.mkdir()
    (p / "ok.md").write_bytes(serialize(durable("ok")).encode())
    os.mkfifo(p / "pipe.md")
    (p / "dir.md").mkdir()
    os.symlink(tmp_path / "nowhere", p / "dangling.md")
    os.symlink(p, p / "loop.md")
    (p / "bin.md").write_bytes(b"---\nname: \xff\ndescription: \xfe\n---\n\n\xff\n")
    done: list[list[Memory]] = []
    thread = threading.Thread(target=lambda: done.append(list_facts(store(tmp_path))), daemon=True)
    thread.start()
    thread.join(10)
    assert done, "List blocked"
    assert [m.name for m in done[0]] == ["bin", "ok"]
    assert done[0][0].description == "\udcfe"
    with pytest.raises(OpError) as caught:
        read(store(tmp_path), "pipe")
    assert caught.value.kind == "io"


def test_unreadable_fact_is_skipped_and_reported(nonroot_fs: FakeFilesystem) -> None:
    base = Path("/store")
    nonroot_fs.create_file(
        base / "p" / "secret.md", contents=serialize(durable("secret")), st_mode=0o100000
    )
    nonroot_fs.create_file(base / "p" / "ok.md", contents=serialize(durable("ok")))
    assert [m.name for m in list_facts(store(base))] == ["ok"]
    with pytest.raises(OpError) as caught:
        read(store(base), "secret")
    assert caught.value.kind == "permission-denied"


def test_delete_missing_and_traversal(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("keep")
    before = snapshot(tmp_path)
    for bad in ("../secret", "project/../secret", "/etc/passwd", "a/b/c"):
        with pytest.raises(OpError) as caught:
            delete(store(tmp_path), bad)
        assert caught.value.kind == "invalid-input"
    with pytest.raises(OpError) as missing:
        delete(store(tmp_path), "project/gone")
    assert missing.value.message == 'memory "project/gone" not found'
    assert snapshot(tmp_path) == before

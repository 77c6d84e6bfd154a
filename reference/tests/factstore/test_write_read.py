"""Write, Read, Delete, List and FormatIndex on real directories, hostile ones included."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import stat
import threading
from pathlib import Path

import pytest

from memref._faults import counting
from memref.errors import OpError
from memref.factstore import (
    Memory,
    StoreDirs,
    delete,
    format_index,
    list_facts,
    read,
    serialize,
    write,
)

from .support import snapshot


def store(tmp_path: Path) -> StoreDirs:
    return StoreDirs(str(tmp_path / "g"), str(tmp_path / "p"))


def durable(name: str, body: str = "body", type_: str = "project") -> Memory:
    return Memory(name, "d", type_, "", True, body)


def test_modes_ignore_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        write(store(tmp_path), durable("a"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "p" / "a.md").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "p").stat().st_mode) == 0o700


def test_every_crash_point_of_write_keeps_old_or_new(tmp_path: Path) -> None:
    dirs = store(tmp_path)
    write(dirs, durable("a", "old"))
    old = (tmp_path / "p" / "a.md").read_bytes()
    new = serialize(durable("a", "new")).encode()
    k = 1
    while True:
        with counting(k) as counter, contextlib.suppress(OSError, OpError):
            write(dirs, durable("a", "new"))
        content = (tmp_path / "p" / "a.md").read_bytes()
        assert content in (old, new)
        assert sorted(os.listdir(tmp_path / "p")) == ["a.md"]
        write(dirs, durable("a", "old"))
        if counter.attempted < k:
            break
        k += 1
    assert k > 4


def _writer(root: str, worker: int) -> None:
    dirs = StoreDirs(os.path.join(root, "g"), os.path.join(root, "p"))
    for i in range(20):
        write(dirs, durable("shared", f"worker {worker} iteration {i} " + "x" * 4000))
        write(dirs, durable(f"own-{worker}", f"iteration {i}"))


def test_eight_processes_never_tear_a_fact(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(tmp_path), w)) for w in range(8)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    names = sorted(os.listdir(tmp_path / "p"))
    assert names == sorted(["shared.md", *(f"own-{w}.md" for w in range(8))])
    shared = read(store(tmp_path), "shared")
    assert shared is not None and shared.body.endswith("x" * 4000)
    for w in range(8):
        own = read(store(tmp_path), f"own-{w}")
        assert own is not None and own.body == "iteration 19"


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


@pytest.mark.skipif(os.geteuid() == 0, reason="mode bits do not bind root")
def test_unreadable_fact_is_skipped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "p" / "secret.md"
    path.parent.mkdir()
    path.write_bytes(serialize(durable("secret")).encode())
    path.chmod(0)
    assert list_facts(store(tmp_path)) == []
    with pytest.raises(OpError) as caught:
        read(store(tmp_path), "secret")
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


def test_index_budget_vectors() -> None:
    projects = [Memory(f"project-fact-{i:03d}", "d" * 100, scope="project") for i in range(200)]
    globals_ = [Memory(f"global-fact-{i:03d}", "g" * 100, scope="global") for i in range(28)]
    text = format_index(projects + globals_)
    assert len(text) == 8221
    assert text.count(b"- global/") == 21 and text.count(b"- project/") == 41
    assert b"(166 more facts not shown;" in text

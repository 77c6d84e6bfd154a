"""Write: modes, atomicity at every crash point, and eight writers at once."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import stat
from pathlib import Path

from memref._faults import counting
from memref.errors import OpError
from memref.factstore import (
    StoreDirs,
    read,
    serialize,
    write,
)

from .support import durable, store


def _writer(root: str, worker: int) -> None:
    dirs = StoreDirs(os.path.join(root, "g"), os.path.join(root, "p"))
    for i in range(20):
        write(dirs, durable("shared", f"worker {worker} iteration {i} " + "x" * 4000))
        write(dirs, durable(f"own-{worker}", f"iteration {i}"))


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


def test_a_symlink_at_the_name_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("old")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.md").symlink_to(outside)
    write(store(tmp_path), durable("x", "new"))
    written = tmp_path / "p" / "x.md"
    assert not written.is_symlink()
    assert written.read_text() == serialize(durable("x", "new"))
    assert outside.read_text() == "old"

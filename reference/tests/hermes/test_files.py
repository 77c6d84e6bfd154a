"""memref.hermes: modes, the lock file, atomic writes and faults (HERMES-FILES-*)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memref._faults import counting

from .support import call, memory, store


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_modes_and_lock(tmp_path: Path) -> None:
    path = memory(tmp_path, "a")
    path.chmod(0o644)
    assert call(tmp_path, {"action": "add", "content": "b"})["success"]
    assert _mode(path) == 0o600 and _mode(tmp_path / "memories") == 0o700
    assert sorted(os.listdir(tmp_path / "memories")) == ["MEMORY.md", "MEMORY.md.lock"]


def test_every_fault_leaves_old_or_new(tmp_path: Path) -> None:
    k = 1
    while True:
        home = tmp_path / f"h{k}"
        path = memory(home, "a")
        session = store(home)
        with counting(fail_mutation=k) as counter:
            session.call({"action": "add", "content": "b"})
        assert path.read_text() in ("a", "a\n\u00a7\nb")
        assert [n for n in os.listdir(home / "memories") if n.endswith(".tmp")] == []
        if counter.attempted < k:
            break
        k += 1
    assert k > 3


def test_symlink_written_through(tmp_path: Path) -> None:
    memory(tmp_path, "a", "real.md")
    (tmp_path / "memories/MEMORY.md").symlink_to("real.md")
    assert call(tmp_path, {"action": "add", "content": "c"})["success"]
    assert (tmp_path / "memories/MEMORY.md").is_symlink()
    assert (tmp_path / "memories/real.md").read_text() == "a\n\u00a7\nc"


def test_memories_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "memories").write_text("x")
    answer = call(tmp_path, {"action": "add", "content": "c"})
    assert answer["success"] is False and str(tmp_path) not in answer["error"]


def test_the_write_gate_secures_the_directory_before_the_checks(tmp_path: Path) -> None:
    memory(tmp_path, "a")
    directory = tmp_path / "memories"
    directory.chmod(0o755)
    call(tmp_path, {"action": "add"})
    assert directory.stat().st_mode & 0o777 == 0o755
    assert call(tmp_path, {"action": "add", "content": "\n"})["error"] == "Content cannot be empty."
    assert directory.stat().st_mode & 0o777 == 0o700


def test_a_link_leading_outside_the_home_is_neither_read_nor_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    outside = tmp_path / "outside.md"
    outside.write_text("old")
    outside.chmod(0o644)
    (home / "memories" / "MEMORY.md").symlink_to(outside)
    assert store(home).entries["memory"] == []
    assert call(home, {"action": "add", "content": "new"})["error"].startswith(
        "MEMORY.md could not be read"
    )
    assert (outside.read_text(), outside.stat().st_mode & 0o777) == ("old", 0o644)


def test_a_fifo_target_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "memories").mkdir()
    os.mkfifo(tmp_path / "memories" / "MEMORY.md")
    assert call(tmp_path, {"action": "add", "content": "x"})["error"].startswith(
        "MEMORY.md could not be read"
    )

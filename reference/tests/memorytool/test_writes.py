"""memref.memorytool: the filesystem side (MEMORYTOOL-WRITE-*), hostile trees, concurrency."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from pyfakefs.fake_filesystem import FakeFilesystem

from memref._faults import counting
from memref.memorytool import ToolResult, execute

ADD = {"action": "add", "text": "x"}


def test_memory_md_directory_is_an_error_result(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()
    assert execute(str(tmp_path), ADD) == ToolResult(
        f"open {tmp_path}/MEMORY.md: is a directory", True
    )
    assert execute(str(tmp_path), {"action": "remove", "text": "a"}) == ToolResult(
        "not found: a", True
    )
    assert os.listdir(tmp_path) == ["MEMORY.md"]


def test_home_that_is_a_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("x")
    assert execute(str(home), ADD) == ToolResult(f"mkdir {home}: not a directory", True)
    assert execute(str(home / "deeper"), ADD) == ToolResult(f"mkdir {home}: not a directory", True)


def test_invalid_utf8_file_is_edited_as_bytes(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_bytes(b"\xff\xfe\x80")
    assert execute(str(tmp_path), ADD).is_error is False
    assert (tmp_path / "MEMORY.md").read_bytes() == b"\xff\xfe\x80\n- x\n"


def test_three_megabyte_file_is_edited_whole(tmp_path: Path) -> None:
    data = b"# big\n" + b"y" * 3_000_000
    (tmp_path / "MEMORY.md").write_bytes(data)
    assert execute(str(tmp_path), ADD).is_error is False
    assert (tmp_path / "MEMORY.md").read_bytes() == data + b"\n- x\n"


def test_symlink_into_the_home_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "real.md").write_bytes(b"- a\n")
    os.symlink(tmp_path / "home" / "real.md", tmp_path / "home" / "MEMORY.md")
    assert execute(str(tmp_path / "home"), ADD).is_error is False
    assert os.path.islink(tmp_path / "home" / "MEMORY.md")
    assert (tmp_path / "home" / "real.md").read_bytes() == b"- a\n- x\n"


def test_symlink_leading_outside_the_home_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_bytes(b"- old\n")
    (tmp_path / "home").mkdir()
    os.symlink(tmp_path / "outside.md", tmp_path / "home" / "MEMORY.md")
    assert execute(str(tmp_path / "home"), ADD).is_error is False
    assert not os.path.islink(tmp_path / "home" / "MEMORY.md")
    assert (tmp_path / "home" / "MEMORY.md").read_bytes() == b"- old\n- x\n"
    assert (tmp_path / "outside.md").read_bytes() == b"- old\n"


def test_fifo_is_reported_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "MEMORY.md")
    assert execute(str(tmp_path), ADD) == ToolResult(
        f"open {tmp_path}/MEMORY.md: not a regular file", True
    )


def test_unreadable_file_is_not_overwritten(nonroot_fs: FakeFilesystem) -> None:
    home = Path("/home/app")
    memory = home / "MEMORY.md"
    nonroot_fs.create_file(memory, contents=b"- secret\n", st_mode=0o100200)
    assert execute(str(home), ADD) == ToolResult(f"open {memory}: permission denied", True)
    memory.chmod(0o600)
    assert memory.read_bytes() == b"- secret\n"


def test_every_failed_mutation_leaves_the_old_file(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    memory.write_bytes(b"- tea\n")
    k = 1
    while True:
        with counting(k) as counter:
            result = execute(str(tmp_path), {"action": "replace", "text": "tea", "with": "c"})
        if counter.attempted < k:
            break
        assert result.is_error
        assert memory.read_bytes() == b"- tea\n"
        assert os.listdir(tmp_path) == ["MEMORY.md"]
        k += 1
    assert k > 3
    assert memory.read_bytes() == b"- c\n"


def _writer(home: str, worker: int, repeat: int) -> None:
    for iteration in range(repeat):
        result = execute(home, {"action": "add", "text": f"w{worker}-i{iteration}"})
        assert not result.is_error, result


def test_eight_processes_keep_every_entry(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    workers, repeat = 8, 200
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_writer, args=(home, w, repeat)) for w in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
        assert process.exitcode == 0
    lines = (tmp_path / "home" / "MEMORY.md").read_text().splitlines()
    assert sorted(lines) == sorted(f"- w{w}-i{i}" for w in range(workers) for i in range(repeat))
    assert os.listdir(home) == ["MEMORY.md"]

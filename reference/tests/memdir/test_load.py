"""load: EVVA.md, the memory directory and its index, and every warning."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest
from hostile_trees import build_tree, hostile_trees
from hypothesis import HealthCheck, given, settings
from pyfakefs.fake_filesystem import FakeFilesystem

from memref._gostr import decode
from memref.memdir import Snapshot, load
from memref.memdir._index import read_mem_file

TRUNCATED = "memdir: {} truncated to 65536 bytes (cap 65536)"


def test_evva_missing_auto_memory_off(tmp_path: Path) -> None:
    # evva memdir_test.go TestLoad_EVVAMissing_AutoMemoryOff
    snapshot = load(str(tmp_path / "wd"), str(tmp_path / "app"), False)
    assert snapshot == Snapshot("", "", "", [])
    assert not (tmp_path / "app").exists()


def test_evva_read_regardless_of_auto_memory(tmp_path: Path) -> None:
    # evva memdir_test.go TestLoad_EVVAReadRegardlessOfAutoMemory
    (tmp_path / "EVVA.md").write_text("use gofmt")
    assert load(str(tmp_path), "", False).workdir_memory == "use gofmt"
    assert load(str(tmp_path), "", True).workdir_memory == "use gofmt"


def test_auto_memory_creates_dir_and_reads_index(tmp_path: Path) -> None:
    # evva memdir_test.go TestLoad_AutoMemoryOn_CreatesDirAndReadsIndex
    app = tmp_path / "app"
    (app / "memory").mkdir(parents=True)
    line = "- [no-db-mocks](feedback/no-db-mocks.md) — integration tests hit a real DB"
    (app / "memory" / "MEMORY.md").write_text(line + "\n")
    snapshot = load("", str(app), True)
    assert snapshot == Snapshot("", line, str(app / "memory"), [])


def test_auto_memory_without_index(tmp_path: Path) -> None:
    # evva memdir_test.go TestLoad_AutoMemoryOn_NoIndexYet
    snapshot = load("", str(tmp_path / "app"), True)
    assert snapshot.memory_dir == str(tmp_path / "app" / "memory")
    assert snapshot.memory_index == ""
    assert (tmp_path / "app" / "memory").is_dir()


def test_oversize_evva_truncates(tmp_path: Path) -> None:
    # evva memdir_test.go TestLoad_OversizeEVVATruncates
    (tmp_path / "EVVA.md").write_bytes(b"a" * 70000)
    snapshot = load(str(tmp_path), "", False)
    assert len(snapshot.workdir_memory) == 65536
    assert snapshot.warnings == [TRUNCATED.format(tmp_path / "EVVA.md")]


def test_empty_paths() -> None:
    # evva memdir_test.go TestLoad_EmptyPaths
    assert load("", "", True) == Snapshot("", "", "", [])


def test_exactly_the_cap_is_not_truncated(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").write_bytes(b"b" * 65536)
    snapshot = load(str(tmp_path), "", False)
    assert snapshot.warnings == []
    assert len(snapshot.workdir_memory) == 65536


def test_content_is_raw(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").write_text("  hi \n\n")
    assert load(str(tmp_path), "", False).workdir_memory == "  hi \n\n"


def test_the_cap_cuts_raw_bytes(tmp_path: Path) -> None:
    data = b"a" * 65535 + "é".encode()
    (tmp_path / "EVVA.md").write_bytes(data)
    snapshot = load(str(tmp_path), "", False)
    assert snapshot.workdir_memory == decode(data[:65536])
    assert snapshot.workdir_memory.endswith("\udcc3")


def test_workdir_path_is_cleaned(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").write_bytes(b"c" * 65537)
    snapshot = load(str(tmp_path) + "/./", "", False)
    assert snapshot.warnings == [TRUNCATED.format(tmp_path / "EVVA.md")]


def test_evva_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").mkdir()
    path = tmp_path / "EVVA.md"
    snapshot = load(str(tmp_path), "", False)
    assert snapshot.warnings == [f"memdir: read {path}: read {path}: is a directory"]


def test_workdir_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "wd").write_text("x")
    path = tmp_path / "wd" / "EVVA.md"
    snapshot = load(str(tmp_path / "wd"), "", False)
    assert snapshot.warnings == [f"memdir: cannot read {path}: open {path}: not a directory"]


def test_symlink_loop_and_dangling_link(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").symlink_to("EVVA.md")
    path = tmp_path / "EVVA.md"
    assert load(str(tmp_path), "", False).warnings == [
        f"memdir: cannot read {path}: open {path}: too many levels of symbolic links"
    ]
    path.unlink()
    path.symlink_to(tmp_path / "missing")
    assert load(str(tmp_path), "", False) == Snapshot()


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "EVVA.md")
    (tmp_path / "app" / "memory").mkdir(parents=True)
    os.mkfifo(tmp_path / "app" / "memory" / "MEMORY.md")
    snapshot = load(str(tmp_path), str(tmp_path / "app"), True)
    evva = tmp_path / "EVVA.md"
    index = tmp_path / "app" / "memory" / "MEMORY.md"
    assert snapshot.warnings == [
        f"memdir: read {evva}: read {evva}: not a regular file",
        f"memdir: read {index}: read {index}: not a regular file",
    ]


def _bind_socket(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return sock


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no AF_UNIX sockets")
def test_a_socket_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    # The type is checked before the open: a socket gives "not a regular file", not the
    # open error ("no such device or address") that evva reports.
    wd = tmp_path / "w"
    (wd).mkdir()
    (tmp_path / "app" / "memory").mkdir(parents=True)
    evva = wd / "EVVA.md"
    index = tmp_path / "app" / "memory" / "MEMORY.md"
    if len(str(index)) > 100:
        pytest.skip("the socket path is too long for AF_UNIX")
    socks = [_bind_socket(evva), _bind_socket(index)]
    try:
        snapshot = load(str(wd), str(tmp_path / "app"), True)
        linked = tmp_path / "linked"
        linked.mkdir()
        (linked / "EVVA.md").symlink_to(evva)
        through_link = load(str(linked), "", False)
    finally:
        for sock in socks:
            sock.close()
    assert snapshot == Snapshot(
        "",
        "",
        str(tmp_path / "app" / "memory"),
        [
            f"memdir: read {evva}: read {evva}: not a regular file",
            f"memdir: read {index}: read {index}: not a regular file",
        ],
    )
    link = linked / "EVVA.md"
    assert through_link.warnings == [f"memdir: read {link}: read {link}: not a regular file"]


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_is_refused(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    (tmp_path / "EVVA.md").symlink_to(device)
    (tmp_path / "app" / "memory").mkdir(parents=True)
    (tmp_path / "app" / "memory" / "MEMORY.md").symlink_to(device)
    snapshot = load(str(tmp_path), str(tmp_path / "app"), True)
    evva = tmp_path / "EVVA.md"
    index = tmp_path / "app" / "memory" / "MEMORY.md"
    assert snapshot == Snapshot(
        "",
        "",
        str(tmp_path / "app" / "memory"),
        [
            f"memdir: read {evva}: read {evva}: not a regular file",
            f"memdir: read {index}: read {index}: not a regular file",
        ],
    )


def test_a_device_is_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("/dev/zero does not exist here")
    (tmp_path / "EVVA.md").symlink_to("/dev/zero")
    opened: list[str] = []
    real_open = os.open

    def spy(path: str, *args: int, **kwargs: int) -> int:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    load(str(tmp_path), "", False)
    assert opened == []


def test_zero_byte_files(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").write_bytes(b"")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_bytes(b"")
    expected = Snapshot("", "", str(tmp_path / "memory"), [])
    assert load(str(tmp_path), str(tmp_path), True) == expected


def test_warning_order_with_every_source(tmp_path: Path) -> None:
    (tmp_path / "EVVA.md").write_bytes(b"e" * 70000)
    app = tmp_path / "app"
    (app / "memory").mkdir(parents=True)
    (app / "memory" / "MEMORY.md").write_text("x\n" * 250)
    snapshot = load(str(tmp_path), str(app), True)
    assert snapshot.warnings == [
        TRUNCATED.format(tmp_path / "EVVA.md"),
        "memdir: MEMORY.md is 250 lines (limit 200). Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files.",
    ]


def test_oversize_index_is_reported_before_the_cap_warning(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    index = tmp_path / "memory" / "MEMORY.md"
    index.write_text("y" * 70000)
    snapshot = load("", str(tmp_path), True)
    assert snapshot.warnings == [
        TRUNCATED.format(index),
        "memdir: MEMORY.md is 65536 bytes (limit 25000) — index entries are too long. "
        "Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files.",
    ]


def test_ensure_failure_still_reads_the_index(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.write_text("not a directory")
    snapshot = load("", str(app), True)
    index = app / "memory" / "MEMORY.md"
    assert snapshot == Snapshot(
        "",
        "",
        "",
        [
            f"memdir: ensure {app}/memory: mkdir {app}: not a directory",
            f"memdir: cannot read {index}: open {index}: not a directory",
        ],
    )


def test_index_is_a_directory(tmp_path: Path) -> None:
    index = tmp_path / "memory" / "MEMORY.md"
    index.mkdir(parents=True)
    snapshot = load("", str(tmp_path), True)
    assert snapshot.warnings == [f"memdir: read {index}: read {index}: is a directory"]


def test_permission_denied_files(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/wd/EVVA.md", contents="secret", st_mode=0o100000)
    nonroot_fs.create_file("/app/memory/MEMORY.md", contents="index", st_mode=0o100000)
    snapshot = load("/wd", "/app", True)
    assert snapshot == Snapshot(
        "",
        "",
        "/app/memory",
        [
            "memdir: cannot read /wd/EVVA.md: open /wd/EVVA.md: permission denied",
            "memdir: cannot read /app/memory/MEMORY.md: "
            "open /app/memory/MEMORY.md: permission denied",
        ],
    )


def test_unwritable_app_home(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_dir("/app", perm_bits=0o555)
    snapshot = load("", "/app", True)
    assert snapshot.warnings == ["memdir: ensure /app/memory: mkdir /app/memory: permission denied"]
    assert snapshot.memory_dir == ""


@pytest.mark.parametrize("name", ["EVVA.md", "memory/MEMORY.md"])
def test_a_huge_file_is_read_only_up_to_the_cap(
    tmp_path: Path, name: str, os_read_counter: list[int]
) -> None:
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"x\n")
        handle.truncate(1 << 30)
    content, warning = read_mem_file(str(path))
    assert len(content) == 65536
    assert warning == TRUNCATED.format(path)
    assert sum(os_read_counter) <= 65537
    os_read_counter.clear()
    load(str(tmp_path), str(tmp_path), True)
    assert sum(os_read_counter) <= 65537


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_trees())
def test_never_raises_on_hostile_trees(tree: list[tuple[str, str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as root:
        build_tree(root, tree)
        for workdir in (root, os.path.join(root, "memory"), os.path.join(root, "EVVA.md")):
            snapshot = load(workdir, root, True)
            assert isinstance(snapshot.workdir_memory, str)
            assert all(isinstance(warning, str) for warning in snapshot.warnings)
        os.chmod(root, 0o700)

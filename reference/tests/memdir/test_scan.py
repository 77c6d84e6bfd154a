"""scan_memory_files: walk order, inclusion rules, header windows, and bounded reads."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest
from hostile_trees import build_tree, hostile_trees
from hypothesis import HealthCheck, given, settings
from memdir_support import T0, Writer
from pyfakefs.fake_filesystem import FakeFilesystem

from memref._gostr import decode
from memref._time import NS_PER_DAY, NS_PER_HOUR
from memref.memdir import MemoryHeader, scan_memory_files

FM = "---\ntype: {}\ndescription: {}\n---\nbody\n"


def names(directory: Path | str) -> list[str]:
    return [header.filename for header in scan_memory_files(str(directory))]


def test_order_exclude_recursive(tmp_path: Path, write: Writer) -> None:
    # evva memdir_test.go TestScanMemoryFiles_OrderExcludeRecursive
    write("old.md", FM.format("user", "old"), T0 - 10 * NS_PER_DAY)
    write("sub/new.md", FM.format("feedback", "new"), T0 - NS_PER_HOUR)
    write("MEMORY.md", "- index", T0)
    write("notes.txt", "x", T0)
    headers = scan_memory_files(str(tmp_path))
    assert [h.filename for h in headers] == ["sub/new.md", "old.md"]
    assert headers[0] == MemoryHeader(
        "sub/new.md", f"{tmp_path}/sub/new.md", T0 - NS_PER_HOUR, "new", "feedback"
    )
    assert headers[1].type == "user"


def test_missing_dir_and_malformed(tmp_path: Path, write: Writer) -> None:
    # evva memdir_test.go TestScanMemoryFiles_MissingDirAndMalformed
    assert scan_memory_files(str(tmp_path / "missing")) == []
    write("bare.md", "just a body, no frontmatter")
    headers = scan_memory_files(str(tmp_path))
    assert [(h.filename, h.type, h.description) for h in headers] == [("bare.md", "", "")]


def test_empty_inputs(tmp_path: Path) -> None:
    assert scan_memory_files("") == []
    assert scan_memory_files(str(tmp_path)) == []


def test_ties_keep_go_walk_order(tmp_path: Path, write: Writer) -> None:
    for name in ["memory.md", "a.md", "a-b.md", "a/z.md", "B.md", ".md", ".hidden/h.md", ".dot.md"]:
        write(name, "x", T0)
    assert names(tmp_path) == [
        ".dot.md",
        ".hidden/h.md",
        ".md",
        "B.md",
        "a/z.md",
        "a-b.md",
        "a.md",
        "memory.md",
    ]


def test_names_sort_by_bytes(tmp_path: Path, write: Writer) -> None:
    # U+E000 is EE 80 80 in UTF-8 and sorts before a lone 0xFF byte, not after it.
    write("\ue000.md", "x", T0)
    (tmp_path / os.fsdecode(b"\xff.md")).write_bytes(b"x")
    os.utime(tmp_path / os.fsdecode(b"\xff.md"), ns=(T0, T0))
    assert names(tmp_path) == ["\ue000.md", decode(b"\xff.md")]


def test_exclusions(tmp_path: Path, write: Writer) -> None:
    for name in ["UP.MD", "x.markdown", "sub/MEMORY.md", "MEMORY.md", "keep.md", "md"]:
        write(name, "x", T0)
    (tmp_path / "dir.md").mkdir()
    write("dir.md/inner.md", "x", T0)
    assert names(tmp_path) == ["dir.md/inner.md", "keep.md"]


def test_newest_first_and_the_cap(tmp_path: Path, write: Writer) -> None:
    for i in range(205):
        write(f"f{i:03d}.md", "x", T0 + i * 10**9)
    found = names(tmp_path)
    assert len(found) == 200
    assert found[0] == "f204.md"
    assert found[-1] == "f005.md"


def test_nanosecond_mtimes_order(tmp_path: Path, write: Writer) -> None:
    write("a.md", "x", T0)
    write("b.md", "x", T0 + 1)
    assert names(tmp_path) == ["b.md", "a.md"]


@pytest.mark.parametrize(("line", "found"), [(30, "d"), (31, "")])
def test_closing_line_within_thirty_lines(
    tmp_path: Path, write: Writer, line: int, found: str
) -> None:
    filler = "".join(f"k{i}: v\n" for i in range(line - 3))
    write("a.md", f"---\n{filler}description: d\n---\nbody")
    assert scan_memory_files(str(tmp_path))[0].description == found


def test_closing_line_within_4096_bytes(tmp_path: Path, write: Writer) -> None:
    write("a.md", "---\ndescription: " + "v" * 5000 + "\n---\n")
    write("b.md", "---\ndescription: " + "v" * 4000 + "\n---\n")
    descriptions = {h.filename: h.description for h in scan_memory_files(str(tmp_path))}
    assert descriptions == {"a.md": "", "b.md": "v" * 4000}


def test_unknown_type_is_untyped(tmp_path: Path, write: Writer) -> None:
    write("a.md", FM.format("Feedback", "d"))
    write("b.md", FM.format('"user"', "d"))
    types = {h.filename: h.type for h in scan_memory_files(str(tmp_path))}
    assert types == {"a.md": "", "b.md": "user"}


def test_symlinks(tmp_path: Path, write: Writer) -> None:
    memory = tmp_path / "memory"
    target = write("target.md", FM.format("project", "from target"), T0)
    write("outside/o.md", "x", T0)
    memory.mkdir()
    (memory / "zlink.md").symlink_to(target)
    os.utime(memory / "zlink.md", ns=(T0 + 5, T0 + 5), follow_symlinks=False)
    (memory / "dirlink").symlink_to(tmp_path / "outside")
    (memory / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (memory / "loop.md").symlink_to(memory / "loop.md")
    (memory / "todir.md").symlink_to(tmp_path / "outside")
    headers = scan_memory_files(str(memory))
    assert headers == [
        MemoryHeader("zlink.md", f"{memory}/zlink.md", T0 + 5, "from target", "project")
    ]


def test_a_root_that_is_a_symlink(tmp_path: Path, write: Writer) -> None:
    write("real/a.md", "x", T0)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert names(tmp_path / "link") == []
    assert scan_memory_files(f"{tmp_path}/link/") == [
        MemoryHeader("a.md", f"{tmp_path}/link/a.md", T0)
    ]


def test_a_root_that_is_a_file(tmp_path: Path, write: Writer) -> None:
    path = write("single.md", FM.format("user", "one"), T0)
    assert scan_memory_files(str(path)) == [MemoryHeader(".", str(path), T0, "one", "user")]


def test_paths_follow_go_join(tmp_path: Path, write: Writer) -> None:
    write("m/a.md", "x", T0)
    headers = scan_memory_files(f"{tmp_path}/./m/")
    assert headers == [MemoryHeader("a.md", f"{tmp_path}/m/a.md", T0)]


def test_fifos_and_empty_files(tmp_path: Path, write: Writer) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    write("empty.md", b"", T0)
    assert names(tmp_path) == ["empty.md"]


def test_reads_at_most_4096_bytes_per_file(tmp_path: Path, os_read_counter: list[int]) -> None:
    for name in ("big.md", "other.md"):
        with open(tmp_path / name, "wb") as handle:
            handle.write(b"---\ndescription: huge\n---\n")
            handle.truncate(1 << 30)
    headers = scan_memory_files(str(tmp_path))
    assert [h.description for h in headers] == ["huge", "huge"]
    assert sum(os_read_counter) <= 2 * 4096
    assert all(size <= 4096 for size in os_read_counter)


def test_unreadable_entries_are_left_out(nonroot_fs: FakeFilesystem) -> None:
    nonroot_fs.create_file("/m/ok.md", contents="x")
    nonroot_fs.create_file("/m/secret.md", contents="x", st_mode=0o100000)
    nonroot_fs.create_file("/m/sub/hidden.md", contents="x")
    os.chmod("/m/sub", 0)
    assert names("/m") == ["ok.md"]


def test_case_insensitive_filesystem(case_insensitive_fs: FakeFilesystem) -> None:
    # Names are compared as stored: only the exact MEMORY.md is the index.
    for name in ["UP.MD", "memory.md", "Low.md", "sub/MEMORY.md"]:
        case_insensitive_fs.create_file(f"/m/{name}", contents="x")
        os.utime(f"/m/{name}", ns=(T0, T0))
    assert names("/m") == ["Low.md", "memory.md"]
    assert names("/M") == ["Low.md", "memory.md"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_trees())
def test_never_raises_on_hostile_trees(tree: list[tuple[str, str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as root:
        build_tree(root, tree)
        for directory in (root, os.path.join(root, "memory"), os.path.join(root, "a.md")):
            headers = scan_memory_files(directory)
            assert len(headers) <= 200
            assert all(not h.filename.endswith("MEMORY.md") for h in headers)
            assert [h.mtime for h in headers] == sorted((h.mtime for h in headers), reverse=True)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no AF_UNIX sockets")
def test_sockets_and_devices_are_left_out(tmp_path: Path, write: Writer) -> None:
    write("a.md", "x", T0)
    if len(str(tmp_path / "s.md")) > 100:
        pytest.skip("the socket path is too long for AF_UNIX")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(tmp_path / "s.md"))
    try:
        (tmp_path / "linked-socket.md").symlink_to(tmp_path / "s.md")
        for device in ("/dev/null", "/dev/zero"):
            if os.path.exists(device):
                (tmp_path / f"{os.path.basename(device)}.md").symlink_to(device)
        headers = scan_memory_files(str(tmp_path))
    finally:
        sock.close()
    assert [h.filename for h in headers] == ["a.md"]

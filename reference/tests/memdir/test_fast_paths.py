"""Each fast path on the read side agrees with the general algorithm it stands in for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdir_support import T0, Writer

from memref import _gopath
from memref._gostr import decode
from memref.memdir import scan_memory_files, truncate_index
from memref.memdir._fileio import read_at_most, read_capped
from memref.memdir._frontmatter import (
    frontmatter_of_lines,
    map_of_lines_general,
    parse_frontmatter,
)
from memref.memdir._index import truncate_index_bytes

# Path pieces: separators of both flavours, dots, a volume colon, an invalid byte.
path_text = st.lists(
    st.sampled_from(["/", "/", ".", "..", "a", "b.md", "\\", ":", "\udcff", "é"]), max_size=10
).map("".join)


@settings(max_examples=500)
@given(path_text)
def test_clean_fast_path_is_clean(path: str) -> None:
    assert _gopath.clean(path) == _gopath.clean_general(path)
    if _gopath.is_clean_posix(path):
        assert _gopath.clean_general(path) == path


@settings(max_examples=500)
@given(path_text, path_text)
def test_join_fast_path_is_join(parent: str, name: str) -> None:
    kept = [element for element in (parent, name) if element]
    assert _gopath.join(parent, name) == (_gopath.clean_general("/".join(kept)) if kept else "")


# Frontmatter pieces: delimiters, spaces of every kind, quotes, comments, colons, case.
line_text = st.lists(
    st.sampled_from(
        [
            "---",
            " ",
            "\t",
            "\v",
            "\x1c",
            "\u3000",
            "\x85",
            "a",
            "Key",
            "İ",
            ":",
            "#",
            "'",
            '"',
            "type",
            "description",
            "\udcff",
            "-",
        ]
    ),
    max_size=6,
).map("".join)
block_lines = st.lists(
    st.one_of(line_text, st.sampled_from(["---", " --- ", "---\t", "type: user", "  a: b"])),
    min_size=1,
    max_size=10,
)


@settings(max_examples=400)
@given(block_lines)
def test_frontmatter_of_lines_is_parse_frontmatter(lines: list[str]) -> None:
    expected, _ = parse_frontmatter("\n".join(lines))
    assert frontmatter_of_lines(lines) == expected
    assert frontmatter_of_lines(["---", *lines]) == parse_frontmatter("---\n" + "\n".join(lines))[0]
    if all(line.isascii() for line in lines):
        assert frontmatter_of_lines(lines, ascii_text=True) == expected
        assert frontmatter_of_lines(["---", *lines], ascii_text=True) == frontmatter_of_lines(
            ["---", *lines]
        )


def test_indented_and_top_level_claims() -> None:
    lines = ["---", "  type: user", "type: project", " Description: d", "\u3000x: y", "---"]
    assert frontmatter_of_lines(lines) == {"type": "project", "description": "d", "x": "y"}
    assert frontmatter_of_lines(lines) == map_of_lines_general(lines[1:-1])


# Index pieces: newlines, ASCII and wider white space, split and stray UTF-8 bytes, and
# runs long enough to cross both caps.
index_pieces = st.sampled_from(
    [
        b"\n",
        b" ",
        b"\t",
        b"\r",
        b"\v",
        b"\xc2\x85",
        b"\xc2\xa0",
        b"\xe3\x80\x80",
        b"\xe2\x80\xa8",
        b"x",
        b"- [a](a.md) \xe2\x80\x94 hook\n",
        b"\xe2\x80",
        b"\x80",
        b"\xff",
        b"\xc2",
        b"\x00",
        "é".encode(),
    ]
)
index_bytes = st.lists(
    st.tuples(index_pieces, st.sampled_from([1, 1, 2, 5, 64, 300, 3000])), max_size=14
).map(lambda runs: b"".join(piece * count for piece, count in runs))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index_bytes)
def test_truncate_index_bytes_is_truncate_index(raw: bytes) -> None:
    assert truncate_index_bytes(raw) == truncate_index(decode(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b" \xe3\x80\x80\n",
        b"\xe3\x80\x80" * 100 + b"x" + b"\xc2\x85 " * 100,
        b"\x80" * 200 + b" " * 100,
        b" " * 63 + b"\xe3\x80\x80x",
        b" " * 62 + b"\xe3\x80\x80" * 40 + b"x" + b"\xe3\x80\x80" * 40 + b" " * 5,
        b"x" + b"\xe2\x80\xa8" * 22 + b"\n" * 3,
        b"\xe3\x80" + b" " * 100,
        b" " * 100 + b"\xe3\x80",
        b"\xf0\x9f\x98\x80" * 20 + b"\xc2\xa0" * 40,
        b"x\n" * 201,
        b"x\n" * 199 + b"y" * 30000,
        b"\n".join([b"x" * 9000] * 3),
        b"a" + "é".encode() * 12500,
        b"y" * 70000,
    ],
)
def test_truncate_index_bytes_examples(raw: bytes) -> None:
    assert truncate_index_bytes(raw) == truncate_index(decode(raw))


@pytest.mark.parametrize("size", [0, 1, 65535, 65536, 65537, 65538, 131073, 200000])
@pytest.mark.parametrize("cap", [65536, 100000])
def test_read_capped_is_read_at_most(
    tmp_path: Path, os_read_counter: list[int], size: int, cap: int
) -> None:
    path = tmp_path / "f"
    path.write_bytes(bytes(range(256)) * (size // 256) + b"z" * (size % 256))
    fd = os.open(path, os.O_RDONLY)
    try:
        data = read_at_most(fd, cap + 1)
        reads = list(os_read_counter)
        os_read_counter.clear()
        os.lseek(fd, 0, os.SEEK_SET)
        assert read_capped(fd, cap) == (data[:cap], len(data) > cap)
        assert os_read_counter == reads
    finally:
        os.close(fd)


def _spellings(root: Path) -> list[str]:
    text = str(root)
    return [
        text,
        text + "/",
        text + "//",
        text + "/.",
        text + "/./m/..",
        f"{root.parent}/../{root.parent.name}/{root.name}",
        "/" + text,
        ".",
        "./",
        "m",
        "m/./",
        "m/../m/s/..",
        "m/s/../../.",
    ]


def test_scan_paths_are_go_join_and_rel(
    tmp_path: Path, write: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("m/a.md", "m/s/b.md", "m/s/t/c.md", "m/.d.md", "top.md"):
        write(name, "---\ntype: user\n---\n", T0)
    monkeypatch.chdir(tmp_path)
    for directory in _spellings(tmp_path):
        headers = scan_memory_files(directory)
        assert headers
        for header in headers:
            assert header.path == _gopath.clean_general(directory + "/" + header.filename)
            assert header.filename == _gopath.rel(directory, header.path)
    monkeypatch.chdir(tmp_path / "m" / "s")
    for directory in ("..", "../", "../..", "../../m", "./../."):
        for header in scan_memory_files(directory):
            assert header.path == _gopath.clean_general(directory + "/" + header.filename)
            assert header.filename == _gopath.rel(directory, header.path)
    assert [h.path for h in scan_memory_files("..")] == [
        "../.d.md",
        "../a.md",
        "../s/b.md",
        "../s/t/c.md",
    ]

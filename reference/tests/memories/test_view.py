"""memref.memories: view, listings and files (MEMORIES-VIEW-*)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memref.memories import _view, format_size
from memref.memories._view import numbered

from .support import base_with, call

HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:"


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0B"),
        (1, "1B"),
        (1023, "1023B"),
        (1024, "1K"),
        (1025, "1.0K"),
        (1280, "1.2K"),  # a tie: half to even
        (1331, "1.3K"),
        (3328, "3.2K"),  # a tie
        (1048575, "1024.0K"),
        (1 << 20, "1M"),
        (1310720, "1.2M"),
        (1 << 40, "1024G"),
        (3 << 39, "1536G"),
    ],
)
def test_sizes(size: int, text: str) -> None:
    assert format_size(size) == text


def test_numbered_lines_are_right_aligned_to_six() -> None:
    assert numbered(["a", ""], 999_998) == ["999998\ta", "999999\t"]


def _listing(base: str, path: str = "/memories") -> list[str]:
    reply = call(base, "view", path=path)
    assert reply.is_error is False, reply
    header, *lines = reply.content.split("\n")
    assert header == HEAD.replace("/memories,", f"{path},")
    return [line.split("\t", 1)[1] for line in lines]


def test_two_levels_by_code_point_without_hidden_names(tmp_path: Path) -> None:
    base = base_with(
        tmp_path,
        {
            "b.txt": "b",
            "B.txt": "B",
            ".h/x": "x",
            "d/e/f/g.txt": "g",
            "d/.i": "i",
            "node_modules/p.js": "p",
            "\uff41": "a",
            "\U0001f600": "e",
        },
    )
    assert _listing(base) == [
        "/memories",
        "/memories/B.txt",
        "/memories/b.txt",
        "/memories/d/",
        "/memories/d/e/",
        "/memories/node_modules/",
        "/memories/node_modules/p.js",
        "/memories/\uff41",
        "/memories/\U0001f600",
    ]


def test_links_fifos_and_sockets_in_a_listing(tmp_path: Path) -> None:
    import socket

    base = base_with(tmp_path, {"real/f.txt": "1234"})
    root = Path(base) / "memories"
    os.symlink("real/f.txt", root / "to-file")
    os.symlink("real", root / "to-dir")
    os.symlink("nowhere", root / "dangling")
    os.symlink("loop", root / "loop")
    os.symlink("missing/../real", root / "through-missing")
    os.symlink("../..", root / "escapes")
    os.mkfifo(root / "fifo")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(root / "sock"))
    reply = call(base, "view", path="/memories")
    shown = _listing(base)
    assert shown == [
        "/memories",
        "/memories/real/",
        "/memories/real/f.txt",
        "/memories/to-dir/",
        "/memories/to-dir/f.txt",
        "/memories/to-file",
    ]
    assert reply.content.split("\n")[-1] == "4B\t/memories/to-file"


def test_a_directory_that_cannot_be_read_shows_nothing_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = base_with(tmp_path, {"locked/x.txt": "x", "a.txt": "a"})
    real = _view.readable_directory
    calls: list[int] = []

    def refusing(fd: int) -> int:
        calls.append(fd)
        if len(calls) == 2:  # the root is listed first, then "locked"
            raise PermissionError(13, "Permission denied")
        return real(fd)

    monkeypatch.setattr(_view, "readable_directory", refusing)
    assert _listing(base) == ["/memories", "/memories/a.txt", "/memories/locked/"]


@pytest.mark.parametrize(
    ("view_range", "lines"),
    [
        (None, ["1\ta", "2\tb", "3\tc", "4\t"]),
        ([2, 3], ["2\tb", "3\tc"]),
        ([2, -1], ["2\tb", "3\tc", "4\t"]),
        ([1, -2], ["1\ta", "2\tb"]),
        ([3, 1], []),
        ([0, 1], ["1\ta"]),
        ([1], ["1\ta", "2\tb", "3\tc", "4\t"]),
        ([9, 12], []),
    ],
)
def test_file_view_and_ranges(
    tmp_path: Path, view_range: list[int] | None, lines: list[str]
) -> None:
    base = base_with(tmp_path, {"f.txt": "a\nb\nc\n"})
    reply = call(base, "view", path="/memories/f.txt", view_range=view_range)
    body = "\n".join(" " * 5 + line for line in lines)
    assert reply.content == "Here's the content of /memories/f.txt with line numbers:\n" + body


def test_what_view_refuses(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"bin": b"\xff", "f.txt": "a"})
    os.mkfifo(Path(base) / "memories" / "fifo")
    assert (
        call(base, "view", path="/memories/fifo").content
        == "Unsupported file type for /memories/fifo"
    )
    assert call(base, "view", path="/memories/nope").content == (
        "The path /memories/nope does not exist. Please provide a valid path."
    )
    refused = call(base, "view", path="/memories/bin")
    assert refused.is_error and "UTF-8" in refused.content
    assert call(base, "view", path="/memories/f.txt", view_range=["a", 1]).is_error


def test_the_line_limit(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"big.txt": "\n" * 999_999, "fits.txt": "\n" * 999_998})
    assert call(base, "view", path="/memories/big.txt").content == (
        "File /memories/big.txt exceeds maximum line limit of 999,999 lines."
    )
    assert call(base, "view", path="/memories/fits.txt", view_range=[999_999, -1]).content.endswith(
        "\n999999\t"
    )

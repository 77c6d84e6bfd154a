"""The heading outline (ogcode.md §5 vectors, with the spec's three decisions)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memref.turnlog import outline, outline_of_text


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("# A\n# B\n# C", "1  A\n2  B\n3  C"),
        ("### deep\n# top\n", "1      deep\n2-3  top"),
        ("# A\n    ```go\n# in fence\n## B\n", "1-5  A"),
        ("# A\n ```\n# hidden\n  ``` trailing info\n# B", "1-4  A\n5  B"),
        ("no headings\n", ""),
        ("Title\n=====\n\nSub\n---\n", ""),
        # ~~~ is a fence here (divergence 5); the seed lists "7-9  tilde-inside".
        ("# A\n```\n# not\n```\n## B\n~~~\n# tilde-inside\n~~~\n", "1-4  A\n5-9    B"),
    ],
)
def test_scanner(text: str, rendered: str) -> None:
    assert outline_of_text(text) == rendered


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (" # indented", None),
        ("\ufeff# x", None),
        ("####### seven", None),
        ("#Title", None),
        ("# ", None),
        ("#", None),
        ("#\u00a0x", None),
        ("#\vx", None),
        ("#\fx", "x"),
        ("# x\v", "x\v"),
        ("# x\u00a0", "x\u00a0"),
        ("# Title ##", "Title"),
        ("# a ## b ##", "a ## b"),
        ("# trailing#hash", "trailing#hash"),
        ("# x #y", "x #y"),
        ("# #", "#"),
        ("## #", "#"),
        ("#  spaced   title  ", "spaced   title"),
        ("# Foo\r", "Foo"),
        ("# ` code `", "` code `"),
        # Divergence 4: the seed gives "C" and "#".
        ("# C#", "C#"),
        ("# ##", "##"),
        ("#  ", " "),
    ],
)
def test_heading_rule(line: str, name: str | None) -> None:
    rendered = outline_of_text(line)
    if name is None:
        assert rendered == ""
    else:
        level = len(line) - len(line.lstrip("#"))
        assert rendered == "1  " + "  " * (level - 1) + name


def test_written_summary_line_numbers() -> None:
    head = (
        '---\ntitle: "T"\nsession_id: ""\nsession_type: ""\nproject_id: ""\n'
        "created_at: 2026-09-09T14:30:05Z\n---\n\n"
    )
    assert (
        outline_of_text(head + "# My Turn\n\n## Request\nDo the thing.\n")
        == "9-10  My Turn\n11-13    Request"
    )
    assert outline_of_text(head + "# A\r\n## B\r\ntext\r\n") == "9  A\n10-12    B"


def test_cap_400() -> None:
    rendered = outline_of_text("".join(f"# h{i}\n" for i in range(401))).split("\n")
    assert len(rendered) == 400 and rendered[-1] == "400  h399"


def test_files(tmp_path: Path) -> None:
    good = tmp_path / "a.md"
    good.write_text("# A\n")
    assert outline(str(good)) == "1-2  A"
    assert outline(str(tmp_path / "missing.md")) == ""
    assert outline(str(tmp_path)) == ""
    binary = tmp_path / "b.md"
    binary.write_bytes(b"# A\n\x00")
    assert outline(str(binary)) == ""
    assert outline("/dev/zero") == ""
    fifo = tmp_path / "f.md"
    os.mkfifo(fifo)
    assert outline(str(fifo)) == ""
    assert outline("/a\x00b") == ""


def test_size_boundary(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    exact = b"# A\n" + b"x" * (2 * 1024 * 1024 - 4)
    path.write_bytes(exact)
    assert outline(str(path)) == "1-2  A"
    path.write_bytes(exact + b"x")
    assert outline(str(path)) == ""


def test_invalid_utf8_kept(tmp_path: Path) -> None:
    path = tmp_path / "u.md"
    path.write_bytes(b"# caf\xe9\n")
    assert outline(str(path)).encode("utf-8", "surrogateescape") == b"1-2  caf\xe9"


@pytest.mark.parametrize(
    ("name", "markdown"),
    [
        ("a.md", True),
        ("NOTES.MD", True),
        ("x.markdown", True),
        ("x.Mdx", True),
        (".md", True),
        ("x.mar\u212adown", True),  # Go's ToLower maps the Kelvin sign to k
        ("notes.txt", False),
        ("x.md.txt", False),
        ("README", False),
        ("d.md/notes", False),
        ("x.md/", False),
    ],
)
def test_only_markdown_names_are_outlined(tmp_path: Path, name: str, markdown: bool) -> None:
    path = tmp_path / name.rstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# A\n")
    spelled = str(tmp_path / name) + ("/" if name.endswith("/") else "")
    assert outline(spelled) == ("1-2  A" if markdown else "")

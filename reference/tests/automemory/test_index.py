"""Loading the index: the seed's vectors, and streaming that equals loading whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memref.automemory import _index, format_size, load_index, quote_cut, read_index, sanitize
from memref.automemory._comments import line_pieces, strip_html_comments
from memref.automemory._units import to_units

TAIL = "Keep index entries to one line under ~200 chars; move detail into topic files."


def test_201_lines() -> None:
    loaded = load_index("\n".join(f"L{i}" for i in range(1, 202)))
    assert loaded.content.endswith(
        "L200\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: "
        f'1 of 201 lines were cut off, starting at line 201 ("L201"). {TAIL}'
    )
    assert (loaded.line_count, loaded.line_truncated, loaded.unit_truncated) == (201, True, False)


def test_hard_cut() -> None:
    loaded = load_index("x" * 25001)
    assert loaded.content == "x" * 25000 + (
        "\n\n> WARNING: MEMORY.md is 24.4KB (limit: 24.4KB) \u2014 index entries are too long."
        " Only part of it was loaded: everything after the first 25000 characters of line 1"
        f" was cut off. {TAIL}"
    )


def test_hard_cut_through_a_pair_leaves_no_half() -> None:
    loaded = load_index("a" + "\U0001f600" * 12500)
    assert loaded.content.startswith("a" + "\U0001f600" * 12499 + "\n\n> WARNING")


@pytest.mark.parametrize(
    ("units", "text"),
    [
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1075, "1KB"),
        (1280, "1.3KB"),
        (1536, "1.5KB"),
        (25000, "24.4KB"),
        (25600, "25KB"),
        (1048575, "1024KB"),
        (5_000_000_000, "4.7GB"),
    ],
)
def test_format_size(units: int, text: str) -> None:
    assert format_size(units) == text


def test_quote_cut() -> None:
    assert quote_cut(" ".join(["word"] * 30), 80) == " ".join(["word"] * 15) + "\u2026"
    assert quote_cut("y" * 200, 80) == "y" * 79 + "\u2026"
    assert quote_cut("a" * 78 + "\ud83d\ude00b", 80) == "a" * 78 + "\u2026"


def test_sanitize_steps() -> None:
    assert sanitize(to_units("a\r\nb\u2028\x00\u200b\u200d<system-reminder>\ud800")) == (
        "a\nb\n\u200d<\\system-reminder>"
    )
    assert sanitize("x\ud83dy") == "xy"


def test_channel_is_defused_only_with_a_source_attribute() -> None:
    assert sanitize("<channel>x</channel>") == "<channel>x</channel>"
    assert sanitize('<channel source="x">') == '<\\channel source="x">'
    assert sanitize('<channel a="b">') == '<channel a="b">'
    assert sanitize('<channel a="b" source = "x">') == '<\\channel a="b" source = "x">'
    assert sanitize('<channel data-source="y" source>') == '<channel data-source="y" source>'
    assert sanitize('</channel source="x">') == '<\\/channel source="x">'
    assert sanitize("</system_reminder><function_results>") == (
        "<\\/system_reminder><\\function_results>"
    )


def test_comment_note_vectors() -> None:
    assert strip_html_comments("<!-- unclosed\ntext <!-- inline --> more") == (" more", True)
    assert strip_html_comments("text <!-- inline --> more") == ("text <!-- inline --> more", False)
    assert strip_html_comments("<!---->x") == ("x", True)


def test_line_pieces_keep_line_starts_across_chunks() -> None:
    chunks = ["a\n<!", "-- c -->\nb"]
    assert list(line_pieces(chunks)) == ["a\n", "<!-- c -->\n", "b"]


texts = st.lists(
    st.sampled_from(["<!-- c -->", "```", "x" * 70, "y", "", "  ", "\r", "---", "\U0001f600"]),
    max_size=60,
).map("\n".join)
prefixes = st.sampled_from(["", "---\na: 1\n---\n\n", "\ufeff", "\ufeff---\n---", "---\n"])


@settings(max_examples=200, deadline=None)
@given(prefix=prefixes, text=texts, chunk=st.integers(min_value=1, max_value=97))
def test_streaming_in_small_chunks_equals_whole(
    tmp_path_factory: pytest.TempPathFactory, prefix: str, text: str, chunk: int
) -> None:
    text = prefix + text
    path = tmp_path_factory.mktemp("index") / "MEMORY.md"
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_index, "_CHUNK", chunk)
        assert read_index(str(path)) == load_index(text)


def test_read_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_index(str(tmp_path / "none"))
    with pytest.raises(IsADirectoryError):
        read_index(str(tmp_path))

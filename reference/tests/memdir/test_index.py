"""truncate_index and read_index."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memref._gostr import decode, encode, trim_space
from memref.memdir import MAX_INDEX_BYTES, MAX_INDEX_LINES, read_index, truncate_index

TAIL = (
    ". Only part of it was loaded. "
    "Keep index entries to one line under ~200 chars; move detail into topic files."
)
SEPARATOR = "\n\n> WARNING: "


def _warning(reason: str) -> str:
    return "MEMORY.md is " + reason + TAIL


def test_exactly_at_the_caps_is_untouched() -> None:
    raw = "x\n" * 200
    assert truncate_index(raw) == (raw.strip(), "")
    assert len(truncate_index(raw)[0]) == 399
    assert truncate_index("y" * 25000) == ("y" * 25000, "")


def test_201_lines() -> None:
    body, warning = truncate_index("x\n" * 201)
    assert warning == _warning("201 lines (limit 200)")
    assert body == "\n".join(["x"] * 200) + SEPARATOR + warning


def test_25001_bytes_without_newline_is_hard_cut() -> None:
    body, warning = truncate_index("y" * 25001)
    assert warning == _warning("25001 bytes (limit 25000) — index entries are too long")
    assert body == "y" * 25000 + SEPARATOR + warning


def test_cut_at_the_last_newline_before_the_byte_cap() -> None:
    body, warning = truncate_index("\n".join(["x" * 9000] * 3))
    assert warning == _warning("27002 bytes (limit 25000) — index entries are too long")
    assert body == "x" * 9000 + "\n" + "x" * 9000 + SEPARATOR + warning


def test_both_caps() -> None:
    body, warning = truncate_index(("z" * 199 + "\n") * 300)
    assert warning == _warning("300 lines and 59999 bytes")
    kept = body[: body.index(SEPARATOR)]
    assert len(kept) == 24999
    body, warning = truncate_index(("w" * 130 + "\n") * 201)
    assert warning == _warning("201 lines and 26330 bytes")
    assert len(body[: body.index(SEPARATOR)]) == 24889


def test_cut_at_index_one() -> None:
    body, warning = truncate_index("a\n" + "y" * 25010)
    assert warning == _warning("25012 bytes (limit 25000) — index entries are too long")
    assert body.startswith("a\n\n> WARNING: ")


def test_a_newline_only_past_the_cap_still_hard_cuts() -> None:
    body, _ = truncate_index("y" * 25005 + "\nz")
    assert body.startswith("y" * 25000 + SEPARATOR)


def test_crlf_is_not_special() -> None:
    assert truncate_index("a\r\nb\r\n") == ("a\r\nb", "")


def test_blank_200th_line_leaves_a_trailing_newline() -> None:
    body, warning = truncate_index("a\n" * 199 + "\n\nb")
    assert warning == _warning("202 lines (limit 200)")
    assert body.endswith("a\n\n\n> WARNING: " + warning)


@pytest.mark.parametrize("raw", ["", " \n\t ", "\u2028\u3000"])
def test_whitespace_only(raw: str) -> None:
    assert truncate_index(raw) == ("", "")


def test_the_hard_cut_may_split_utf8() -> None:
    raw = "é" * 12501  # 25002 bytes, no newline
    body, _ = truncate_index(raw)
    kept = encode(body[: body.index(SEPARATOR)])
    assert kept == "é".encode() * 12500
    body, _ = truncate_index("a" + "é" * 12500)
    kept = encode(body[: body.index(SEPARATOR)])
    assert len(kept) == 25000
    assert kept.endswith(b"\xc3")
    assert decode(kept) == body[: body.index(SEPARATOR)]


def test_read_index_under_cap(tmp_path: Path) -> None:
    # evva memdir_test.go TestReadIndex_UnderCap
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_text("  - [a](a.md) — hook\n")
    assert read_index(str(tmp_path)) == ("- [a](a.md) — hook", "")


def test_read_index_missing(tmp_path: Path) -> None:
    # evva memdir_test.go TestReadIndex_Missing
    assert read_index(str(tmp_path)) == ("", "")
    assert read_index("") == ("", "")


def test_read_index_swallows_read_errors(tmp_path: Path) -> None:
    (tmp_path / "memory" / "MEMORY.md").mkdir(parents=True)
    assert read_index(str(tmp_path)) == ("", "")


def test_read_index_reports_the_post_cut_size(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "MEMORY.md").write_text("y" * 70000)
    body, warning = read_index(str(tmp_path))
    assert warning == _warning("65536 bytes (limit 25000) — index entries are too long")
    assert body == "y" * 25000 + SEPARATOR + warning


def test_line_cap_test_from_evva() -> None:
    # evva memdir_test.go TestTruncateIndex_LineCap
    body, warning = truncate_index("- line\n" * 250)
    assert "lines" in warning
    assert "> WARNING:" in body
    assert body.count("- line") <= 200


def test_byte_cap_test_from_evva() -> None:
    # evva memdir_test.go TestTruncateIndex_ByteCap
    body, warning = truncate_index("\n".join(["x" * 9000] * 3))
    assert "bytes" in warning
    assert len(body) <= 25000 + 300


index_text = st.lists(
    st.one_of(st.text(max_size=300), st.text(alphabet="ab\n", max_size=600)), max_size=400
).map("\n".join)


@settings(max_examples=200)
@given(index_text)
def test_caps_hold_and_the_body_is_a_prefix(raw: str) -> None:
    body, warning = truncate_index(raw)
    trimmed = trim_space(raw)
    fired = len(trimmed.split("\n")) > MAX_INDEX_LINES or len(encode(trimmed)) > MAX_INDEX_BYTES
    assert bool(warning) == (fired and bool(trimmed))
    if not warning:
        assert body == trimmed
        return
    kept, _, tail = body.partition(SEPARATOR)
    assert tail == warning
    assert len(encode(kept)) <= MAX_INDEX_BYTES
    assert len(kept.split("\n")) <= MAX_INDEX_LINES
    assert encode(trimmed).startswith(encode(kept))


@pytest.mark.parametrize(("delta", "kept"), [(-1, 24999), (0, 25000), (1, 199 * 125 - 1)])
@pytest.mark.parametrize("cr", ["", "\r"])
def test_lines_are_cut_before_bytes_at_the_boundary(delta: int, cr: str, kept: int) -> None:
    # The 200th LF at byte index 25000 + delta: with the line cut first, 200 lines fit
    # exactly when delta <= 0.
    first = ["a" * (124 - len(cr)) + cr] * 199
    last = "a" * (125 + delta - len(cr)) + cr
    raw = "\n".join([*first, last]) + "\nb"
    body, warning = truncate_index(raw)
    assert warning.startswith(f"MEMORY.md is 201 lines and {25002 + delta} bytes. ")
    assert body.index("\n\n> WARNING: ") == kept
    assert body[:kept].count("\n") == (199 if delta <= 0 else 198)

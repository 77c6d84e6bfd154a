"""Index lines and the rebuild."""

from __future__ import annotations

from memref.automemory import IndexEntry, index_line, rebuild_index


def test_line_shapes() -> None:
    assert index_line(IndexEntry("a/b.md", " x \t y ")) == "- [b](a/b.md) \u2014 x y"
    assert index_line(IndexEntry("a(1).md", "d")) is None
    assert index_line(IndexEntry("a\tb.md")) is None
    assert index_line(IndexEntry(".md", "d")) == "- [](.md) \u2014 d"
    assert index_line(IndexEntry('<channel a="b">.md')) == '- [<channel a="b">](<channel a="b">.md)'
    long = index_line(IndexEntry("n.md", "word " * 80))
    assert long is not None and len(long) <= 150 and long.endswith("\u2026")


def test_rebuild_stops_for_good() -> None:
    entries = [IndexEntry(f"{i}.md") for i in range(141)] + [IndexEntry("z[.md")]
    rebuilt = rebuild_index(entries)
    assert rebuilt.content.count("\n") == 140 and rebuilt.skipped_count == 1

"""format_manifest."""

from __future__ import annotations

from memdir_support import T0, at

from memref.memdir import MemoryHeader, format_manifest


def test_format_manifest() -> None:
    # evva memdir_test.go TestFormatManifest
    headers = [
        MemoryHeader("a.md", "/m/a.md", T0, "desc a", "user"),
        MemoryHeader("b.md", "/m/b.md", T0),
    ]
    assert format_manifest(headers) == (
        "- [user] a.md (2026-05-01T12:00:00Z): desc a\n- b.md (2026-05-01T12:00:00Z)"
    )


def test_empty() -> None:
    assert format_manifest([]) == ""


def test_any_type_is_printed_and_fractions_are_dropped() -> None:
    header = MemoryHeader("sub/x.md", "", T0 + 999_999_999, "", "weird")
    assert format_manifest([header]) == "- [weird] sub/x.md (2026-05-01T12:00:00Z)"


def test_local_offsets_become_utc() -> None:
    header = MemoryHeader("x.md", "", at("2026-05-01T12:00:00+08:00"))
    assert format_manifest([header]) == "- x.md (2026-05-01T04:00:00Z)"


def test_extreme_years() -> None:
    headers = [
        MemoryHeader("zero.md", "", at("0000-01-01T00:00:00Z")),
        MemoryHeader("far.md", "", at("10000-01-01T00:00:00Z")),
    ]
    assert format_manifest(headers) == (
        "- zero.md (0000-01-01T00:00:00Z)\n- far.md (10000-01-01T00:00:00Z)"
    )

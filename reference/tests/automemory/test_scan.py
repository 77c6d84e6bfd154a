"""The scan and the manifest."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memref.automemory import ScanHeader, format_manifest, scan_memory_files

S = 1_000_000_000


def test_scan_order_filter_and_head(write: Callable[..., Path], tmp_path: Path) -> None:
    write("a.md", "---\ndescription: a\ntype: user\n---\n", mtime=5 * S)
    write("sub/b.md", "---\ndescription: b\n---\n", mtime=9 * S)
    write("MEMORY.md", "x", mtime=20 * S)
    write("x.MD", "x", mtime=20 * S)
    write("late.md", "---\n" + "k: v\n" * 30 + "description: late\n---\n", mtime=1 * S)
    headers = scan_memory_files(str(tmp_path))
    assert headers == [
        ScanHeader("sub/b.md", 9000, "b", None),
        ScanHeader("a.md", 5000, "a", "user"),
        ScanHeader("late.md", 1000, None, None),
    ]


def test_symlink_cycle_terminates(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "m.md").write_text("x")
    os.symlink(tmp_path, tmp_path / "d" / "loop")
    names = {header.filename for header in scan_memory_files(str(tmp_path))}
    assert "d/m.md" in names


def test_manifest() -> None:
    assert format_manifest([ScanHeader(".hidden.md", 1767225596000, "d", "project")]) == (
        "- [project] .hidden.md (2025-12-31T23:59:56.000Z): d"
    )


def test_a_year_past_9999_is_written_with_a_sign() -> None:
    ms = 253402300800000  # 10000-01-01T00:00:00Z
    assert format_manifest([ScanHeader("a.md", ms)]) == "- a.md (+010000-01-01T00:00:00.000Z)"
    assert format_manifest([ScanHeader("a.md", ms - 1)]) == "- a.md (9999-12-31T23:59:59.999Z)"

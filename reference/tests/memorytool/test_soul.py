"""memref.memorytool: ComposeSoul (MEMORYTOOL-SOUL-*)."""

from __future__ import annotations

import os
from pathlib import Path

from memref.memorytool import BOOTSTRAP_ORDER, MAX_FILE_BYTES, TRUNCATION_NOTICE, compose_soul


def test_all_seven_in_order(tmp_path: Path) -> None:
    for name in reversed(BOOTSTRAP_ORDER):
        (tmp_path / name).write_text(name.removesuffix(".md").lower())
    soul, found = compose_soul(str(tmp_path))
    assert found == list(BOOTSTRAP_ORDER)
    assert soul == (
        b"## AGENTS.md\n\nagents\n\n## SOUL.md\n\nsoul\n\n## IDENTITY.md\n\nidentity"
        b"\n\n## USER.md\n\nuser\n\n## TOOLS.md\n\ntools\n\n## HEARTBEAT.md\n\n"
        b"heartbeat\n\n## MEMORY.md\n\nmemory"
    )


def test_empty_files_are_present_and_missing_dir_is_empty(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_bytes(b"")
    (tmp_path / "USER.md").write_bytes(b"u")
    assert compose_soul(str(tmp_path)) == (
        b"## SOUL.md\n\n\n\n## USER.md\n\nu",
        ["SOUL.md", "USER.md"],
    )
    assert compose_soul(str(tmp_path / "nowhere")) == (b"", [])


def test_cap_cuts_bytes_and_keeps_whitespace_before_the_notice(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_bytes(b"a" * (MAX_FILE_BYTES - 2) + b" \xc3\xa9tail")
    soul, _ = compose_soul(str(tmp_path))
    assert soul.endswith(b"a \xc3" + TRUNCATION_NOTICE.encode())
    (tmp_path / "SOUL.md").write_bytes(b"a" * MAX_FILE_BYTES)
    assert compose_soul(str(tmp_path))[0] == b"## SOUL.md\n\n" + b"a" * MAX_FILE_BYTES


def test_hostile_entries_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").mkdir()
    os.mkfifo(tmp_path / "USER.md")
    os.symlink(tmp_path / "nowhere", tmp_path / "TOOLS.md")
    (tmp_path / "MEMORY.md").write_bytes(b"\xff bytes \x00")
    assert compose_soul(str(tmp_path)) == (b"## MEMORY.md\n\n\xff bytes \x00", ["MEMORY.md"])


def test_compose_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_bytes(b"x" * (MAX_FILE_BYTES + 10))
    before = os.stat(tmp_path / "MEMORY.md")
    compose_soul(str(tmp_path))
    after = os.stat(tmp_path / "MEMORY.md")
    assert (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns)
    assert os.listdir(tmp_path) == ["MEMORY.md"]

"""Where the ports drift, memref keeps the Go baseline: first occurrence only, `$`
taken literally, CRLF kept, a missing text as the empty string."""

from __future__ import annotations

from pathlib import Path

from memref.memorytool import execute


def _home(tmp_path: Path, text: bytes) -> Path:
    (tmp_path / "MEMORY.md").write_bytes(text)
    return tmp_path


def test_replace_changes_the_first_occurrence_only(tmp_path: Path) -> None:
    home = _home(tmp_path, b"- a\n- a\n")
    assert not execute(str(home), {"action": "replace", "text": "a", "with": "b"}).is_error
    assert (home / "MEMORY.md").read_bytes() == b"- b\n- a\n"


def test_dollar_patterns_in_with_are_literal(tmp_path: Path) -> None:
    home = _home(tmp_path, b"- x\n")
    execute(str(home), {"action": "replace", "text": "x", "with": "$&$$"})
    assert (home / "MEMORY.md").read_bytes() == b"- $&$$\n"


def test_crlf_is_kept(tmp_path: Path) -> None:
    home = _home(tmp_path, b"- a\r\n- b\r\n")
    execute(str(home), {"action": "remove", "text": "b"})
    assert (home / "MEMORY.md").read_bytes() == b"- a\r\n- \r\n"


def test_a_missing_text_adds_an_empty_entry(tmp_path: Path) -> None:
    home = _home(tmp_path, b"- a\n")
    execute(str(home), {"action": "add"})
    assert (home / "MEMORY.md").read_bytes() == b"- a\n- \n"

"""memref.memorytool: the three actions and the tool's outputs (MEMORYTOOL-ACT-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref.memorytool import ToolResult, execute, next_content, target_file

OK_ADD = ToolResult("ok (add \u2192 MEMORY.md); loads next session", False)


@pytest.mark.parametrize(
    ("current", "text", "expected"),
    [
        (b"", b"a", b"- a\n"),
        (b"- Likes green tea.", b"Likes hiking", b"- Likes green tea.\n- Likes hiking\n"),
        (b"- a\n\n\n", b"b", b"- a\n- b\n"),
        (b"- \n", b"x", b"-\n- x\n"),
        (b"\n\n  - a\n", b"b", b"- a\n- b\n"),
        (b"- a\x0b", b"b", b"- a\x0b\n- b\n"),
        (b"", b"", b"- \n"),
        (b"- a\n", b"two\nlines", b"- a\n- two\nlines\n"),
        (b"- a\xc2\xa0", b"b", b"- a\xc2\xa0\n- b\n"),
    ],
)
def test_add_trims_only_space_tab_cr_lf(current: bytes, text: bytes, expected: bytes) -> None:
    assert next_content(current, "add", text, b"") == expected


def test_replace_and_remove_change_the_first_occurrence_only() -> None:
    assert next_content(b"- tea\n- tea\n", "replace", b"tea", b"$&") == b"- $&\n- tea\n"
    assert next_content(b"- tea\n- tea\n", "remove", b"tea", b"") == b"- \n- tea\n"
    assert next_content(b"abc", "replace", b"", b"X") == b"Xabc"


def test_target_is_user_only_for_the_exact_string(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert target_file(home, {"target": "user"}).endswith("/USER.md")
    for other in ("USER", " user", "self", None, 1, ["user"]):
        assert target_file(home, {"target": other}).endswith("/MEMORY.md")


def test_miss_and_unknown_action_write_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert execute(str(home), {"action": "remove", "text": "x"}) == ToolResult("not found: x", True)
    assert execute(str(home), {"text": "x"}) == ToolResult("unknown action: ", True)
    assert execute(str(home), {"action": "Add", "text": "x"}) == ToolResult(
        "unknown action: Add", True
    )
    assert not home.exists()


def test_missing_fields_count_as_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert execute(str(home), {"action": "add", "text": 3}) == OK_ADD
    assert (home / "MEMORY.md").read_bytes() == b"- \n"
    result = execute(str(home), {"action": "replace", "text": "- "})
    assert result == ToolResult("ok (replace \u2192 MEMORY.md); loads next session", False)
    assert (home / "MEMORY.md").read_bytes() == b"\n"


def test_bytes_outside_the_edit_are_kept(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    memory.write_bytes(b"\xef\xbb\xbf- a\r\n- \xff\n")
    execute(str(tmp_path), {"action": "replace", "text": "a", "with": "b"})
    assert memory.read_bytes() == b"\xef\xbb\xbf- b\r\n- \xff\n"


def test_text_with_nul_and_newlines_is_written_raw(tmp_path: Path) -> None:
    assert execute(str(tmp_path), {"action": "add", "text": "a\x00b\n\nc"}) == OK_ADD
    assert (tmp_path / "MEMORY.md").read_bytes() == b"- a\x00b\n\nc\n"
    assert execute(str(tmp_path), {"action": "remove", "text": "\x00b\n\nc"}).is_error is False
    assert (tmp_path / "MEMORY.md").read_bytes() == b"- a\n"

"""memref.memorytool: scripted sessions and the frozen snapshot (MEMORYTOOL-SESS-*)."""

from __future__ import annotations

from pathlib import Path

from memref.memorytool import ToolResult, session_script


def test_soul_is_frozen_until_the_next_session(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("You are Kip.")
    events = session_script(
        str(tmp_path),
        [
            {"op": "soul"},
            {"op": "call", "input": {"action": "add", "target": "user", "text": "name is Muthu"}},
            {"op": "soul"},
            {"op": "new_session"},
            {"op": "soul"},
        ],
    )
    first = (b"## SOUL.md\n\nYou are Kip.", ["SOUL.md"])
    assert events[0] == ("soul", first)
    assert events[2] == ("soul", first)
    assert events[3] == ("new_session", 2)
    assert events[4] == (
        "soul",
        (b"## SOUL.md\n\nYou are Kip.\n\n## USER.md\n\n- name is Muthu", ["SOUL.md", "USER.md"]),
    )


def test_executor_can_be_replaced(tmp_path: Path) -> None:
    seen = []

    def run(directory: str, tool_input: object) -> ToolResult:
        seen.append(tool_input)
        return ToolResult("fake", False)

    events = session_script(str(tmp_path), [{"op": "call", "input": {"action": "x"}}], run)
    assert events == [("call", ToolResult("fake", False))]
    assert seen == [{"action": "x"}]

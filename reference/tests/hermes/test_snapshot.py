"""memref.hermes: blocks and sessions (HERMES-SNAPSHOT-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref.errors import OpError
from memref.hermes import render_block, session_script, snapshot
from memref.hermes._ops import OPS

from .support import LIMITS, memory


def test_block_layout() -> None:
    rule = "\u2550" * 46
    assert render_block("memory", ["a", "b"], 2200) == (
        f"{rule}\nMEMORY (your personal notes) [0% \u2014 5/2,200 chars]\n{rule}\na\n\u00a7\nb"
    )
    assert render_block("user", [], 1375) == ""


def test_snapshot_is_frozen_within_a_session(tmp_path: Path) -> None:
    memory(tmp_path, "likes tea")
    script = [
        {"op": "snapshot"},
        {"op": "call", "input": {"action": "add", "content": "more"}},
        {"op": "snapshot"},
        {"op": "new_turn"},
        {"op": "new_session"},
        {"op": "snapshot"},
    ]
    events = list(session_script(str(tmp_path), LIMITS, 0, script))
    assert events[0] == events[2] and events[3] == {"turn": 2} and events[4] == {"session": 2}
    assert events[5] == snapshot(str(tmp_path), LIMITS) != events[0]


def test_bad_script_runs_nothing(tmp_path: Path) -> None:
    bad = [{"op": "call", "input": {"action": "add", "content": "x"}}, {"op": "reload"}]
    with pytest.raises(OpError) as raised:
        OPS["hermes.session_script"]({"home": str(tmp_path / "h"), "script": bad})
    assert raised.value.kind == "invalid-args" and not (tmp_path / "h").exists()

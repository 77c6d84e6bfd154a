"""memref.hermes: the tool's checks, actions, batches and counter (HERMES-TOOL-*)."""

from __future__ import annotations

import json
from pathlib import Path

from .support import DELIM, call, memory, store

B = DELIM.join(["likes green tea", "likes coffee", "works at ACME"])


def test_key_orders_of_the_three_shapes(tmp_path: Path) -> None:
    home_store = store(tmp_path)
    assert home_store.call({"target": "self"}).startswith('{"error": "Invalid target')
    assert home_store.call({"action": "add", "content": "  "}).startswith('{"success": false')
    assert json.loads(home_store.call({"action": "add", "content": "x"}))["note"].endswith("it.")


def test_whole_entry_replace_and_multiple_matches(tmp_path: Path) -> None:
    path = memory(tmp_path, B)
    assert call(tmp_path, {"action": "replace", "old_text": "likes", "content": "x"})[
        "matches"
    ] == [
        "likes green tea",
        "likes coffee",
    ]
    assert call(tmp_path, {"action": "replace", "old_text": "green", "content": "$1"})["success"]
    assert path.read_text() == DELIM.join(["$1", "likes coffee", "works at ACME"])


def test_batch_is_all_or_nothing(tmp_path: Path) -> None:
    path = memory(tmp_path, B)
    answer = call(
        tmp_path,
        {"operations": [{"action": "add", "content": "n"}, {"action": "remove", "old_text": "zz"}]},
    )
    assert answer["error"].startswith("Operation 2 (remove): no entry matched 'zz'.")
    assert path.read_text() == B


def test_failure_counter_and_turns(tmp_path: Path) -> None:
    session = store(tmp_path)
    big = {"action": "add", "content": "y" * 3000}
    answers = [json.loads(session.call(big)) for _ in range(5)]
    assert [a.get("done") for a in answers] == [None, None, None, True, True]
    assert "failed 5 times" in answers[4]["error"]
    session.failures = 0
    assert "done" not in json.loads(session.call(big))


def test_drift_writes_backup_and_refuses(tmp_path: Path) -> None:
    path = memory(tmp_path, "# Notes\n- likes tea\n- likes jazz\n")
    answer = call(tmp_path, {"action": "replace", "old_text": "tea", "content": "x"}, now=9)
    assert answer["drift_backup"] == "$HERMES_HOME/memories/MEMORY.md.bak.9"
    assert (tmp_path / "memories/MEMORY.md.bak.9").read_text() == path.read_text()


def test_wrong_types_are_refusals(tmp_path: Path) -> None:
    for tool_input in (
        {"target": ["user"], "action": "add", "content": "x"},
        {"action": "add", "content": 5},
        {"operations": ["add"]},
        {"operations": [{"action": "add", "content": 5}]},
    ):
        assert call(tmp_path, tool_input)["success"] is False
    assert not (tmp_path / "memories/MEMORY.md").exists()


def test_presence_comes_before_the_member_types(tmp_path: Path) -> None:
    memory(tmp_path, "a")
    missing = call(tmp_path, {"action": "replace", "content": True})
    assert missing["error"].startswith("'replace' needs old_text")
    assert missing["current_entries"] == ["a"]
    assert call(tmp_path, {"action": "add", "content": []})["error"] == (
        "Content is required for 'add' action."
    )
    batch = call(
        tmp_path,
        {"operations": [{}, {"action": "remove", "content": ["x"], "old_text": "a"}]},
    )
    assert batch["error"].startswith("Operation 1 (unknown): unknown action.")


def test_a_drift_refusal_still_reads_the_file(tmp_path: Path) -> None:
    memory(tmp_path, "p")
    session = store(tmp_path)
    assert json.loads(session.call({"action": "add", "content": "q\n\n\u00a7\n\nr"}))["success"]
    assert "drift_backup" in json.loads(session.call({"action": "remove", "old_text": "p"}))
    missing = json.loads(session.call({"action": "remove"}))
    assert (missing["current_entries"], missing["usage"]) == (["p", "q", "r"], "9/2,200")


def test_an_entry_of_lines_the_session_wrote_is_no_drift(tmp_path: Path) -> None:
    path = memory(tmp_path, "")
    session = store(tmp_path)
    assert json.loads(session.call({"action": "add", "content": "line one\nline two"}))["success"]
    assert json.loads(session.call({"action": "remove", "old_text": "line one"}))["success"]
    assert path.read_text() == ""
    memory(tmp_path, "# Notes\n- tea")
    assert "drift_backup" in call(tmp_path, {"action": "remove", "old_text": "tea"})
    adds = call(tmp_path, {"operations": [{"action": "add", "content": "c"}]})
    assert adds["success"]

"""Text in an expected result judged by a pattern, for what a case cannot pin (such as the
size a filesystem gives a directory): a conforming reply passes whatever that part holds,
and a reply wrong elsewhere still fails."""

from __future__ import annotations

from typing import Any

import pytest

from memspec.corpus.cases import case_from_json
from memspec.corpus.compare import json_equal
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

LISTING = {"text_pattern": r"[0-9.]+[BKMG]\t/memories\n1B\t/memories/a\.txt"}


@pytest.mark.parametrize(
    ("reply", "matches"),
    [
        ("4K\t/memories\n1B\t/memories/a.txt", True),
        ("340B\t/memories\n1B\t/memories/a.txt", True),
        ("4K\t/memories\n2B\t/memories/a.txt", False),
        ("4K\t/memories\n1B\t/memories/a.txt\n", False),
        ({"base64": "NEsJL21lbW9yaWVzCjFCCS9tZW1vcmllcy9hLnR4dA=="}, True),
        (3, False),
    ],
)
def test_a_pattern_matches_the_whole_text(reply: Any, matches: bool) -> None:
    assert json_equal({"content": LISTING}, {"content": reply}) is matches


def test_only_an_object_of_exactly_one_string_member_is_a_pattern() -> None:
    assert json_equal({"text_pattern": "x", "other": 1}, {"text_pattern": "x", "other": 1})
    assert not json_equal({"text_pattern": "x", "other": 1}, "x")


def _echo_case(expected: Any) -> Any:
    return case_from_json(
        {
            "id": "demo/harness/pattern",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "op": "demo.echo",
            "args": {"value": {"content": "40B\t/memories", "is_error": False}},
            "expect": {"result": expected},
        }
    )


def test_the_runner_judges_results_with_patterns() -> None:
    adapter = Adapter("python:fakes:Echo")
    try:
        run_case(
            _echo_case({"content": {"text_pattern": r"\S+\t/memories"}, "is_error": False}), adapter
        )
        with pytest.raises(CaseFailure, match="wrong result"):
            run_case(_echo_case({"content": {"text_pattern": "4K"}, "is_error": False}), adapter)
    finally:
        adapter.close()

"""A case is failed only for what it says it tests: its set-up steps and follow-up reads
accept a reply in other words, a race accepts any reply that gives nothing away, and
lint lists a case whose description and expectations disagree."""

from __future__ import annotations

from typing import Any

import pytest

from memspec.cli.description_lint import description_problems
from memspec.corpus.cases import Case, Expectation, case_from_json, load_cases, schema_errors
from memspec.corpus.compare import json_equal


def _memories(case_id: str) -> Case:
    (case,) = [case for case in load_cases(profiles=["memories"]) if case.id == case_id]
    return case


def _accepted(expect: Expectation, result: Any) -> bool:
    return any(
        json_equal(alternative.result, result) for alternative in (expect.any_of or (expect,))
    )


REWORDED_VIEW = {"content": "File /memories/t.txt:\n1: l1\n", "is_error": False}


@pytest.mark.parametrize("spelling", ["plus", "space", "underscore", "zero-fraction"])
def test_the_read_after_a_spelled_range_is_judged_by_the_file_not_its_wording(
    spelling: str,
) -> None:
    case = _memories(f"memories/view/range-spelled-integer-{spelling}")
    follow_up = case.steps[1].expect
    assert _accepted(follow_up, REWORDED_VIEW)
    assert not _accepted(follow_up, {**REWORDED_VIEW, "is_error": True})
    assert follow_up.tree == {"base/memories/t.txt": case.tree["base/memories/t.txt"]}


@pytest.mark.parametrize(
    ("case_id", "set_up"),
    [
        ("memories/delete/deep-directory", 0),
        ("memories/delete/twice", 0),
        ("memories/create/retry-after-refused-text", 0),
    ],
)
def test_a_set_up_step_accepts_its_reply_in_other_words(case_id: str, set_up: int) -> None:
    case = _memories(case_id)
    expected = case.steps[set_up].expect
    kind = expected.result["is_error"]
    assert _accepted(expected, {"content": "Done, in other words.", "is_error": kind})
    assert not _accepted(expected, {"content": "Done, in other words.", "is_error": not kind})
    last = case.steps[-1].expect
    assert not _accepted(last, {"content": "Done, in other words.", "is_error": False})


@pytest.mark.parametrize("verb", ["view", "create", "delete", "str-replace", "rename-into"])
def test_a_race_accepts_any_wording_that_shows_nothing_outside(verb: str) -> None:
    case = _memories(f"memories/paths/race-{verb}")
    expect = case.steps[0].expect
    outside = case.tree["outside/secret.txt"]["text"].strip()
    assert _accepted(expect, {"content": "Error: no such file", "is_error": True})
    assert not _accepted(expect, {"content": f"1\t{outside}\n", "is_error": True})
    if any(alternative.result["is_error"] is False for alternative in expect.any_of or ()):
        assert _accepted(expect, {"content": "It worked, said otherwise.", "is_error": False})
        assert not _accepted(expect, {"content": f"1\t{outside}\n", "is_error": False})


def _case(description: str, steps: list[dict[str, Any]]) -> Case:
    data = {"id": "demo/x/y", "description": description, "requirements": ["DEMO-ECHO-001"]}
    data["steps"] = steps
    assert schema_errors(data) == []
    return case_from_json(data)


_ECHO = {"op": "demo.echo", "args": {"value": "a"}}


REFUSAL = "says a call is refused, but no step expects a refusal"


@pytest.mark.parametrize(
    ("description", "expect", "problems"),
    [
        ("Any reply.", {"result": "a"}, ["says any reply, but step 1 pins the wording of a reply"]),
        ("Any reply.", {"result": {"text": {"text_pattern": ".*"}, "n": 1}}, []),
        (
            "Any reply.",
            {"error": {"kind": "io", "message": "m"}},
            ["says any reply, but step 1 pins the wording of a reply"],
        ),
        ("Any reply.", {"error": {"kind": "io"}}, []),
        (
            "Any reply; the file is unchanged.",
            {"error": {"kind": "io"}},
            ["says a file or tree is unchanged, but no step expects a tree"],
        ),
        ("The file is unchanged.", {"error": {"kind": "io"}, "tree": {}}, []),
        (
            "Nothing outside changes.",
            {"result": "a"},
            ["says a file or tree is unchanged, but no step expects a tree"],
        ),
        ("The value is unchanged.", {"result": "a"}, []),
        ("A is refused.", {"result": {"content": "ok", "is_error": False}}, [REFUSAL]),
        ("A is refused.", {"result": {"content": "no", "is_error": True}}, []),
        ("A is refused.", {"result": {"text": '{"success": false, "error": "no"}'}}, []),
        ("A is refused.", {"result": {"text": {"text_pattern": '\\{"success": false.*'}}}, []),
        ("A is refused.", {"result": {"allowed": False, "reason": "r"}}, []),
        ("A is refused.", {"error": {"kind": "invalid-args"}}, []),
        ("A is never refused.", {"result": {"content": "ok", "is_error": False}}, []),
    ],
)
def test_lint_lists_a_description_its_expectations_contradict(
    description: str, expect: dict[str, Any], problems: list[str]
) -> None:
    assert description_problems(_case(description, [{**_ECHO, "expect": expect}])) == problems


def test_no_case_of_the_corpus_contradicts_its_description() -> None:
    found = [(case.id, description_problems(case)) for case in load_cases()]
    assert [(case_id, problems) for case_id, problems in found if problems] == []


@pytest.mark.parametrize(
    "case_id",
    ["hermes/tool/add-duplicate", "hermes/budget/delimiter-counts-three"],
)
def test_a_hermes_set_up_add_accepts_a_success_in_other_words(case_id: str) -> None:
    (case,) = [case for case in load_cases(profiles=["hermes"]) if case.id == case_id]
    set_up, subject = case.steps[0].expect, case.steps[1].expect
    reworded = {"text": '{"success": true, "message": "Saved, said otherwise."}'}
    assert _accepted(set_up, reworded)
    assert not _accepted(set_up, {"text": '{"success": false, "error": "no"}'})
    assert set_up.tree is not None
    assert not _accepted(subject, reworded)

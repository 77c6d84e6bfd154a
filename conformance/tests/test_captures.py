"""A step may capture text from its result under a name that later steps use as
``${NAME}``: it passes a fake whose ops agree with each other, fails one whose ops do
not, and says why when there is nothing to capture; lint keeps names in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memspec.corpus.case_paths import OpPaths, case_path_problems
from memspec.corpus.cases import Case, case_from_json, schema_errors
from memspec.exceptions import CaseFailure
from memspec.reports.report import CaseRecord, todo_groups
from memspec.run.captures import capture_problems
from memspec.run.runner import run_case, run_crash_points
from memspec.wire.adapters import Adapter

KEY = {"op": "demo.key", "args": {"path": "${ROOT}/Work/App"}, "capture": {"KEY": ""}}


def case(*steps: dict[str, Any], **fields: Any) -> Case:
    data = {
        "id": "demo/captures/x",
        "description": "d",
        "requirements": ["DEMO-ECHO-001"],
        "steps": list(steps),
        **fields,
    }
    assert schema_errors(data) == []
    return case_from_json(data)


@pytest.fixture
def fake(in_process: Callable[[str], Adapter]) -> Callable[..., Adapter]:
    return lambda name="Keys": in_process(f"capture_fakes:{name}")


def _dir_of_the_key() -> Case:
    return case(
        KEY,
        {
            "op": "demo.dir",
            "args": {"path": "${ROOT}/Work/App"},
            "expect": {"result": "/cfg/${KEY}/"},
        },
    )


def test_later_steps_expect_what_an_earlier_one_captured(fake: Any) -> None:
    run_case(_dir_of_the_key(), fake())


def test_an_op_that_disagrees_with_the_captured_value_fails(fake: Any) -> None:
    with pytest.raises(CaseFailure) as failure:
        run_case(_dir_of_the_key(), fake("OtherKey"))
    message = str(failure.value)
    assert message.startswith("demo.dir (step 2 of 2): wrong result")
    assert '  captured: {"KEY": "' in message and "-Work-App" in message


def test_names_stand_in_args_error_messages_and_expected_trees(fake: Any) -> None:
    run_case(
        case(
            KEY,
            {
                "op": "demo.named",
                "args": {"path": "${ROOT}/Work/App"},
                "capture": {"NAME": "/name", "FIRST": "/items/0"},
                "expect": {"result": {"name": "${KEY}", "items": [{"base64": "YWI="}, 7]}},
            },
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/${KEY}.md", "text": "${FIRST} ${NAME}"},
                "expect": {"result": "ok", "tree": {"${KEY}.md": {"text": "ab ${NAME}"}}},
            },
            {
                "op": "demo.refuse",
                "args": {"path": "${FIRST}"},
                "expect": {"error": {"kind": "io", "message": "[Errno 5] refused ${FIRST}"}},
            },
        ),
        fake(),
    )


def test_a_name_is_captured_before_the_root_is_replaced(fake: Any) -> None:
    run_case(
        case(
            {**KEY, "args": {"path": "x"}},
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/${sha256-16:${ROOT}/${KEY}}", "text": ""},
                "expect": {"result": "ok", "tree": {"${sha256-16:${ROOT}/x}": {"text": ""}}},
            },
        ),
        fake(),
    )


def test_a_step_with_nothing_to_capture_fails_and_says_why(fake: Any) -> None:
    with pytest.raises(CaseFailure, match=r"cannot capture KEY: the result holds no text as a"):
        run_case(_dir_of_the_key(), fake("NoKey"))
    named = {"op": "demo.named", "args": {"path": "/p"}, "capture": {"N": "/name"}}
    with pytest.raises(CaseFailure, match="expected a result to capture as N, got error 'io'"):
        run_case(case(named), fake("NoKey"))
    for pointer, found in (("/items/1", "7"), ("/missing", "nothing"), ("/items/9", "nothing")):
        with pytest.raises(CaseFailure, match=f"no text at '{pointer}'") as failure:
            run_case(case({**named, "capture": {"N": pointer}}), fake())
        assert f"found: {found}" in str(failure.value)


def test_a_crash_point_step_uses_the_names_captured_before_it(fake: Any) -> None:
    subject = case(
        KEY,
        {
            "op": "demo.put",
            "args": {"path": "${ROOT}/${KEY}", "text": "body\n"},
            "crash_points": True,
            "expect": {"result": "ok", "tree": {"${KEY}": {"text": "body\n"}}},
        },
        requires=["fault-injection"],
    )
    assert run_crash_points(subject, fake(), 1) == 3


def test_a_capturing_step_may_leave_out_its_expectation_and_nothing_else_may() -> None:
    data: dict[str, Any] = {"id": "demo/captures/x", "description": "d"}
    data["requirements"] = ["DEMO-ECHO-001"]
    assert schema_errors({**data, "steps": [{"op": "demo.key", "args": {}}]})
    for name in ("ROOT", "WORKER", "lower", "9X"):
        steps = [{**KEY, "capture": {name: ""}}]
        assert schema_errors({**data, "steps": steps}), name
    assert schema_errors({**data, "steps": [{**KEY, "capture": {"K": "name"}}]})
    assert schema_errors({**data, "steps": [{**KEY, "capture": {"K_2": "/a/0"}}]}) == []


def test_lint_wants_a_name_captured_before_it_is_used() -> None:
    use = {"op": "demo.dir", "args": {"path": "${KEY}"}, "expect": {"result": "${KEY}"}}
    assert capture_problems(case(use, KEY)) == ["step 1 uses ${KEY} before a step captures it"]
    assert capture_problems(case({**KEY, "args": {"path": "${KEY}"}})) == [
        "step 1 uses ${KEY} before a step captures it"
    ]
    assert capture_problems(case(KEY, use)) == []
    assert capture_problems(case({**use, "args": {"path": "${OTHER}"}})) == []
    concurrent = {**KEY, "concurrent": {"workers": 2}, "expect": {"result": "k"}}
    failing = {**KEY, "expect": {"error": {"kind": "io"}}}
    assert capture_problems(case(concurrent, failing)) == [
        "step 1 is concurrent and cannot capture",
        "step 2 expects an error and cannot capture",
    ]


def test_a_path_that_starts_with_a_captured_name_is_not_known_to_stay_inside() -> None:
    table = {"demo.dir": OpPaths(args=("path",))}
    inside = {"op": "demo.dir", "args": {"path": "${ROOT}/${KEY}"}, "expect": {"result": ""}}
    outside = {**inside, "args": {"path": "${KEY}/x"}}
    assert case_path_problems(case(KEY, inside), table) == []
    assert case_path_problems(case(KEY, outside), table) == [
        "step 2 (demo.dir): argument path '${KEY}/x' is outside ${ROOT}"
    ]


def test_the_to_do_list_names_the_op_of_the_step_that_failed(fake: Any) -> None:
    with pytest.raises(CaseFailure) as failure:
        run_case(_dir_of_the_key(), fake("OtherKey"))
    ops = ("demo.key", "demo.dir")
    failed = CaseRecord("demo/captures/x", "demo", (), "failed", str(failure.value), 0.0, ops=ops)
    crashed = CaseRecord("demo/captures/y", "demo", (), "error", "adapter died", 0.0, ops=ops)
    assert todo_groups([failed, crashed])[0] == [("wrong: demo.dir", 1), ("fault: demo.key", 1)]


def test_a_concurrent_step_expects_captured_names_of_every_reply(fake: Any) -> None:
    again = {
        "op": "demo.key",
        "args": {"path": "${ROOT}/Work/App"},
        "concurrent": {"workers": 2},
        "expect": {"results": ["${KEY}", "${KEY}"]},
    }
    run_case(case(KEY, again, requires=["concurrency"]), fake())
    assert capture_problems(case(again, KEY)) == ["step 1 uses ${KEY} before a step captures it"]

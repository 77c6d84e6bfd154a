"""No text sent to the model holds a host path of the case's tree: the check every case
step gets from its op schema's ``x-memspec-model-text``, shown on a correct fake and on
one whose error text names the file's host path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memspec.judge.model_text as model_text
from memspec.cli.lint import _case_problems
from memspec.corpus.cases import Case, case_from_json
from memspec.corpus.op_schemas import forget_op_schemas
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"


@pytest.fixture(autouse=True)
def demo_schemas(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMSPEC_OP_SCHEMAS", str(SCHEMAS / "ops"))
    forget_op_schemas()
    yield
    monkeypatch.undo()
    forget_op_schemas()


def tool_case(expected_content: Any) -> Case:
    return case_from_json(
        {
            "id": "demo/harness/error-text",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "op": "demo.tool",
            "args": {"root": "${ROOT}", "path": "/memories/nope.txt"},
            "expect": {"result": {"content": expected_content, "is_error": True}},
        }
    )


def test_an_error_text_naming_the_path_as_given_passes() -> None:
    adapter = Adapter("python:race_fakes:SafeWriter")
    try:
        run_case(tool_case("The path /memories/nope.txt does not exist"), adapter)
        run_case(tool_case({"text_pattern": "(?s).+"}), adapter)
    finally:
        adapter.close()


def test_an_error_text_holding_the_trees_host_path_fails_even_where_any_text_would_do() -> None:
    adapter = Adapter("python:race_fakes:LeaksHostPaths")
    try:
        with pytest.raises(CaseFailure, match="holds a host path") as caught:
            run_case(tool_case({"text_pattern": "(?s).+"}), adapter)
    finally:
        adapter.close()
    assert "open '${ROOT}/memories/nope.txt'" in str(caught.value)


def test_declarations_pick_the_texts_they_name() -> None:
    found = (
        {"at": "/events/*", "text": "content", "when": {"is_error": True}},
        {"at": "", "text": "note"},
    )
    result = {
        "note": "n",
        "events": [{"content": "a", "is_error": True}, {"content": "b", "is_error": False}, None],
    }
    assert model_texts_of(result, found) == ["a", "n"]
    assert model_text.declarations("demo.nothing-declared") == ()


def model_texts_of(result: Any, found: Any) -> list[Any]:
    return sorted(model_text.model_texts(result, found))


def test_lint_refuses_a_case_that_expects_a_host_path_in_model_text() -> None:
    assert _case_problems(tool_case("see ${ROOT}/x"), "w") == [
        "w: step 1 expects a host path in model text"
    ]
    assert _case_problems(tool_case("see /memories/x"), "w") == []

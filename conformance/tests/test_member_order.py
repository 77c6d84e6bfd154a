"""Object member order counts exactly where an op's schema says so, under
``x-memspec-member-order``: shown on a fake that keeps the order and on one that
reverses every object."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memspec.corpus.cases import Case, case_from_json
from memspec.corpus.compare import member_order_differences
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


def ordered_case(op: str, value: Any) -> Case:
    return case_from_json(
        {
            "id": "demo/harness/member-order",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "op": op,
            "args": {"value": value},
            "expect": {"result": value},
        }
    )


VALUE = {"meta": {"z": 1, "a": 2}, "items": [{"y": 1, "b": 2}], "free": {"k": 1, "c": 2}}


def run(fake: str, case: Case) -> None:
    adapter = Adapter(f"python:fakes:{fake}")
    try:
        run_case(case, adapter)
    finally:
        adapter.close()


def test_an_adapter_keeping_the_order_passes() -> None:
    run("Ordered", ordered_case("demo.ordered", VALUE))


def test_reversed_members_fail_where_the_schema_pins_the_order() -> None:
    with pytest.raises(CaseFailure, match="members out of order") as caught:
        run("ReversesMembers", ordered_case("demo.ordered", VALUE))
    message = str(caught.value)
    assert "/meta: members ['a', 'z'], expected ['z', 'a']" in message
    assert "/items/*: members ['b', 'y'], expected ['y', 'b']" in message
    assert "/free" not in message


def test_reversed_members_pass_where_nothing_pins_the_order() -> None:
    run("ReversesMembers", ordered_case("demo.ordered", {"free": {"k": 1, "c": 2}}))


def test_the_differences_name_each_pointer() -> None:
    assert member_order_differences({"a": {"x": 1}}, {"a": {"x": 1}}, ["/a"]) == []
    assert member_order_differences([{"p": 1, "q": 2}], [{"q": 2, "p": 1}], ["/*"]) == [
        "/*: members ['q', 'p'], expected ['p', 'q']"
    ]

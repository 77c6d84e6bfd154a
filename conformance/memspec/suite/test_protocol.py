"""The adapter protocol itself, checked against its schemas for every adapter."""

from __future__ import annotations

from typing import Any

import pytest

from memspec import PROTOCOL_VERSION
from memspec.corpus.cases import load_cases
from memspec.corpus.compare import json_equal
from memspec.corpus.registry import suite_case
from memspec.corpus.tokens import substitute
from memspec.run.runner import case_tree, not_claimed_reason
from memspec.wire.adapters import Adapter
from memspec.wire.protocol import message_errors

_REPEATS = 20


def _fresh(adapter: Adapter) -> Adapter:
    return Adapter(adapter.spec, adapter.timeout_s, adapter.tree_owner)


@suite_case(
    "protocol/start/reply-matches-schema",
    "PROTOCOL-START-001",
    "PROTOCOL-REPLY-001",
    kind="protocol",
)
def test_start_reply_matches_schema(memspec_adapter: Adapter) -> None:
    """The start reply validates against start.json and speaks the suite's major version."""
    adapter = _fresh(memspec_adapter)
    try:
        reply = adapter.raw_request(
            {"id": "hello", "op": "start", "args": {"protocol_version": PROTOCOL_VERSION}}
        )
    finally:
        adapter.close()
    assert message_errors(reply, "start.reply") == []
    assert reply["id"] == "hello"
    assert reply["result"]["protocol_version"].split(".")[0] == PROTOCOL_VERSION.split(".")[0]


@suite_case("protocol/op/unknown-op", "PROTOCOL-OP-002", "PROTOCOL-REPLY-002", kind="protocol")
def test_unknown_op_is_an_unknown_op_error(memspec_adapter: Adapter) -> None:
    """An op nobody implements is answered with the error kind unknown-op."""
    reply = memspec_adapter.raw_request({"id": 4242, "op": "nosuchprofile.nosuchop", "args": {}})
    assert message_errors(reply, "op.reply") == []
    assert reply == {
        "id": 4242,
        "error": {"kind": "unknown-op", "message": reply["error"]["message"]},
    }


@suite_case(
    "protocol/transport/one-reply-per-request-in-order", "PROTOCOL-TRANSPORT-001", kind="protocol"
)
def test_one_reply_per_request(memspec_adapter: Adapter) -> None:
    """Many requests in a row each get their own reply, echoing their id."""
    for profile in memspec_adapter.handshake.profiles:
        for number in range(_REPEATS):
            reply = memspec_adapter.raw_request(
                {"id": f"{profile}-{number}", "op": f"{profile}.constants", "args": {}}
            )
            assert message_errors(reply, "op.reply") == []
            assert reply["id"] == f"{profile}-{number}" and isinstance(reply.get("result"), dict)


@suite_case("protocol/op/outcome-depends-on-args-only", "PROTOCOL-OP-001", kind="protocol")
def test_outcome_depends_only_on_args(memspec_adapter: Adapter) -> None:
    """The same case in two different directories gives the same answers."""
    claimed = [
        case
        for case in load_cases(profiles=memspec_adapter.handshake.profiles)
        if not not_claimed_reason(case, memspec_adapter)
        and not any(step.concurrent for step in case.steps)
    ]
    sample = [case for case in claimed if case.tree][:_REPEATS] + [
        case for case in claimed if not case.tree
    ][:_REPEATS]
    for case in sample:
        answers = []
        for _ in range(2):
            with case_tree(case, memspec_adapter) as root:
                replies = []
                for step in case.steps:
                    response = memspec_adapter.call(step.op, substitute(step.args, str(root)))
                    replies.append(
                        _normalise(
                            response.result if not response.is_error else response.error_kind,
                            str(root),
                        )
                    )
                answers.append(replies)
        assert json_equal(answers[0], answers[1]), case.id


@suite_case("protocol/fault/reply-counts-mutations", "PROTOCOL-FAULT-001", kind="protocol")
def test_a_request_with_a_fault_is_answered_with_a_mutation_count(memspec_adapter: Adapter) -> None:
    """An adapter claiming fault-injection answers a request with a fault, and says how
    many filesystem mutations it attempted."""
    if "fault-injection" not in memspec_adapter.handshake.capabilities:
        pytest.skip("not claimed: capability fault-injection")
    for profile in memspec_adapter.handshake.profiles:
        reply = memspec_adapter.raw_request(
            {
                "id": f"fault-{profile}",
                "op": f"{profile}.constants",
                "args": {},
                "fault": {"fail_mutation": 1},
            }
        )
        assert message_errors(reply, "op.reply") == []
        assert isinstance(reply.get("mutations"), int) and reply["mutations"] >= 0, reply


def _normalise(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "${ROOT}")
    if isinstance(value, list):
        return [_normalise(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _normalise(item, root) for key, item in value.items()}
    return value

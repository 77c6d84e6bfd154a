"""The adapter protocol itself, checked against its schemas for every adapter."""

from __future__ import annotations

from typing import Any

import pytest

from memspec import PROTOCOL_VERSION
from memspec.corpus.cases import load_cases
from memspec.corpus.op_schemas import ops_with_schemas
from memspec.corpus.registry import suite_case
from memspec.corpus.tokens import substitute
from memspec.run.runner import CRASH_POINTS_AT_MOST, case_tree, not_claimed_reason
from memspec.suite._support import expect_equal
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
    args = {"protocol_version": PROTOCOL_VERSION}
    try:
        reply = adapter.raw_request({"id": "hello", "op": "start", "args": args})
    finally:
        adapter.close()
    _expect_no_schema_errors("start", args, reply, "start.reply")
    expect_equal("start", args, "hello", reply.get("id"), what="id")
    version = reply["result"]["protocol_version"]
    expect_equal(
        "start", args, PROTOCOL_VERSION.split(".")[0], version.split(".")[0], what="major version"
    )


@suite_case("protocol/start/ops-claimed-are-known", "PROTOCOL-START-002", kind="protocol")
def test_ops_claimed_are_ops_of_claimed_profiles(memspec_adapter: Adapter) -> None:
    """The ops a handshake lists, when it lists them, are ops of the suite, each of a
    profile the adapter claims, and each claimed profile's constants op is among them."""
    handshake = memspec_adapter.handshake
    if handshake.ops is None:
        return
    known = set(ops_with_schemas()) | {f"{profile}.constants" for profile in handshake.profiles}
    args = {"protocol_version": PROTOCOL_VERSION}
    strays = sorted(
        op for op in handshake.ops if op not in known or op.split(".")[0] not in handshake.profiles
    )
    expect_equal("start", args, [], strays, what="listed ops the suite does not know")
    missing = sorted(
        f"{profile}.constants"
        for profile in handshake.profiles
        if f"{profile}.constants" not in handshake.ops
    )
    expect_equal("start", args, [], missing, what="constants ops not listed")


@suite_case("protocol/op/unknown-op", "PROTOCOL-OP-002", "PROTOCOL-REPLY-002", kind="protocol")
def test_unknown_op_is_an_unknown_op_error(memspec_adapter: Adapter) -> None:
    """An op nobody implements is answered with the error kind unknown-op."""
    op = "nosuchprofile.nosuchop"
    reply = memspec_adapter.raw_request({"id": 4242, "op": op, "args": {}})
    _expect_no_schema_errors(op, {}, reply, "op.reply")
    error = reply.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    expected = {"id": 4242, "error": {"kind": "unknown-op", "message": message}}
    expect_equal(op, {}, expected, reply, what="reply")


@suite_case(
    "protocol/transport/one-reply-per-request-in-order", "PROTOCOL-TRANSPORT-001", kind="protocol"
)
def test_one_reply_per_request(memspec_adapter: Adapter) -> None:
    """Many requests in a row each get their own reply, echoing their id."""
    for profile in memspec_adapter.handshake.profiles:
        for number in range(_REPEATS):
            op = f"{profile}.constants"
            reply = memspec_adapter.raw_request({"id": f"{profile}-{number}", "op": op, "args": {}})
            _expect_no_schema_errors(op, {}, reply, "op.reply")
            expect_equal(op, {}, f"{profile}-{number}", reply.get("id"), what="id")
            assert isinstance(reply.get("result"), dict), "constants are answered with an object"


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
        for index, step in enumerate(case.steps):
            expect_equal(
                step.op,
                step.args,
                answers[0][index],
                answers[1][index],
                what=f"answer in a second directory ({case.id}, step {index + 1})",
            )


@suite_case("protocol/fault/reply-counts-mutations", "PROTOCOL-FAULT-001", kind="protocol")
def test_a_request_with_a_fault_is_answered_with_a_mutation_count(memspec_adapter: Adapter) -> None:
    """An adapter claiming fault-injection answers a request with a fault, and says how
    many filesystem mutations it attempted."""
    if "fault-injection" not in memspec_adapter.handshake.capabilities:
        pytest.skip("not claimed: capability fault-injection")
    for profile in memspec_adapter.handshake.profiles:
        op = f"{profile}.constants"
        reply = memspec_adapter.raw_request(
            {"id": f"fault-{profile}", "op": op, "args": {}, "fault": {"fail_mutation": 1}}
        )
        _expect_no_schema_errors(op, {}, reply, "op.reply")
        mutations = reply.get("mutations")
        assert type(mutations) is int and mutations >= 0, (
            "a reply to a request with a fault says how many mutations it attempted"
        )


@suite_case("protocol/fault/fewer-mutations-past-the-last", "PROTOCOL-FAULT-002", kind="protocol")
def test_a_fault_past_the_last_mutation_is_answered_with_fewer(memspec_adapter: Adapter) -> None:
    """Failing mutation k of a request that makes fewer than k attempts fewer than k: the
    harness's enumeration of crash points ends there, within its bound."""
    if "fault-injection" not in memspec_adapter.handshake.capabilities:
        pytest.skip("not claimed: capability fault-injection")
    past = CRASH_POINTS_AT_MOST + 1
    for profile in memspec_adapter.handshake.profiles:
        op = f"{profile}.constants"
        reply = memspec_adapter.raw_request(
            {"id": f"past-{profile}", "op": op, "args": {}, "fault": {"fail_mutation": past}}
        )
        mutations = reply.get("mutations")
        assert type(mutations) is int and 0 <= mutations < past, (
            "a reply to a request failing a mutation past its last attempts fewer mutations"
        )


def _expect_no_schema_errors(op: str, args: dict[str, Any], reply: Any, schema: str) -> None:
    expect_equal(
        op,
        args,
        [],
        message_errors(reply, schema),
        what=f"reply for the protocol's schema {schema}",
        whole_reply=reply,
    )


def _normalise(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "${ROOT}")
    if isinstance(value, list):
        return [_normalise(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _normalise(item, root) for key, item in value.items()}
    return value

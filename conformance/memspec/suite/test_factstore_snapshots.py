"""Rendered outputs of the factstore profile, pinned as JSON snapshots under fixtures/.

Only the reference adapter may rewrite them (``--snapshot-update``).
"""

from __future__ import annotations

from typing import Any

from syrupy.assertion import SnapshotAssertion

from memspec.corpus.registry import suite_case
from memspec.suite._factstore import scratch_store
from memspec.suite._support import reply
from memspec.wire.adapters import Adapter


def _answer(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    response = reply(adapter, op, args)
    if response.is_error:
        return {"error": response.error_kind, "message": response.error_message}
    return response.result


@suite_case(
    "factstore/format/snapshot-serialized-facts",
    "FACTSTORE-FMT-001",
    "FACTSTORE-FMT-002",
    "FACTSTORE-FMT-003",
    kind="snapshot",
)
def test_serialized_facts(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The bytes of a ladder of facts: durable, conditional, escaped, empty bodies."""
    facts = {
        "durable": {
            "name": "a",
            "description": "d",
            "type": "user",
            "durable": True,
            "body": "b\n\n",
        },
        "conditional": {
            "name": "b",
            "description": "desc: x",
            "type": "reference",
            "invalidate_when": 'when "x" \\ ends\t\x00\u00a0é',
            "body": "\n\nlead",
        },
        "empty-body": {"name": "c", "description": "d", "type": "project", "durable": True},
    }
    rendered = {
        key: _answer(memspec_adapter, "factstore.serialize", {"memory": memory})
        for key, memory in facts.items()
    }
    assert rendered == memspec_snapshot


@suite_case(
    "factstore/write/snapshot-write-errors",
    "FACTSTORE-WRITE-001",
    kind="snapshot",
    divergences=("factstore#1",),
)
def test_write_errors(memspec_adapter: Adapter, memspec_snapshot: SnapshotAssertion) -> None:
    """The exact error of each refused fact, in the order Write checks them."""
    base = {"name": "ok", "description": "d", "type": "project", "durable": True}
    variants = {
        "name": {**base, "name": "Bad Name"},
        "type": {**base, "type": "bogus"},
        "description": {**base, "description": " "},
        "line-break": {**base, "description": "a\nb"},
        "control": {**base, "description": "a\u0085"},
        "lifecycle": {**base, "durable": False},
        "exclusive": {**base, "invalidate_when": "when x"},
        "single-line": {**base, "durable": False, "invalidate_when": "a\nb"},
        "size": {**base, "body": "x" * 16400},
    }
    with scratch_store(memspec_adapter) as store:
        rendered = {
            key: _answer(memspec_adapter, "factstore.write", {**store, "memory": memory})
            for key, memory in variants.items()
        }
    assert rendered == memspec_snapshot

"""A port that drifts on one row of spec/divergences.md fails exactly that row's cases.

``ErrorPrefix`` is memref with TypeScript's tool runner: every error text sent to the model
starts with ``Error: ``. Run against the memories cases, it must fail the cases whose
``divergence`` names the `error-prefix` row, and nothing else: the row is complete, and no
other case pins an error text without saying so.
"""

from __future__ import annotations

import re
from typing import Any

from memref.serve import Implementation
from memspec.corpus.cases import load_cases
from memspec.exceptions import CaseFailure, HostLimitation
from memspec.observe.strace import unavailable_reason
from memspec.run.runner import not_claimed_reason, run_case
from memspec.wire.adapters import Adapter

ROW = re.compile(r"(?:^| \| )error-prefix: ")


def _prefixed(reply: Any) -> Any:
    if isinstance(reply, dict) and reply.get("is_error") is True:
        return {**reply, "content": "Error: " + str(reply["content"])}
    return reply


class ErrorPrefix:
    """An in-process adapter: memref, with ``Error: `` before every error text."""

    def __init__(self) -> None:
        self._inner = Implementation()

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = self._inner.handle(message)
        if "result" not in reply:
            return reply
        result = reply["result"]
        if message.get("op") == "memories.call":
            reply["result"] = _prefixed(result)
        elif message.get("op") == "memories.session_script" and isinstance(result, dict):
            reply["result"] = {"events": [_prefixed(event) for event in result["events"]]}
        return reply


def test_the_error_prefix_port_fails_exactly_the_error_prefix_row() -> None:
    adapter = Adapter("python:test_memories_port_drift:ErrorPrefix")
    # Races decided by their points where the host lets the observer run, as in a run.
    observed = unavailable_reason() is None
    failing, expected = set(), set()
    try:
        for case in load_cases(profiles=["memories"]):
            if not_claimed_reason(case, adapter) is not None:
                continue
            if ROW.search(case.divergence):
                expected.add(case.id)
            try:
                run_case(case, adapter, observed=observed)
            except HostLimitation:
                expected.discard(case.id)
            except CaseFailure:
                failing.add(case.id)
    finally:
        adapter.close()
    assert len(expected) > 50, "the row names too few cases"
    assert failing == expected, (sorted(failing - expected), sorted(expected - failing))

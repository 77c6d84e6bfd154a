"""What the suite's properties and snapshots share: calling the adapter and remembering
the calls, so that a failure is told in the protocol's terms (op, args, reply), and the
scratch folders they hand the adapter."""

from __future__ import annotations

from typing import Any

from memspec.exceptions import CaseFailure
from memspec.run.calls import Call, call_adapter, recent_calls
from memspec.run.scratch import scratch_folder
from memspec.wire.adapters import Adapter, Response

__all__ = ["Call", "recent_calls", "reference_result", "reply", "result", "scratch_folder"]

_REFERENCE: list[Adapter] = []


def reply(adapter: Adapter, op: str, args: dict[str, Any]) -> Response:
    """Call ``op`` and remember the call; texts in the reply are decoded (a string
    wherever the bytes are UTF-8), so either wire form of a text compares alike."""
    return call_adapter(adapter, op, args)


def result(adapter: Adapter, op: str, args: dict[str, Any]) -> Any:
    """Call ``op``; its result, or CaseFailure naming the error the adapter answered."""
    response = reply(adapter, op, args)
    if response.is_error:
        raise CaseFailure(f"{op} answered error {response.error_kind!r}: {response.error_message}")
    return response.result


def reference_result(op: str, args: dict[str, Any]) -> Any:
    """The reference implementation's result, through the ``reference`` adapter."""
    if not _REFERENCE:
        _REFERENCE.append(Adapter("reference"))
    response = _REFERENCE[0].call(op, args)
    if response.is_error:
        raise CaseFailure(f"the reference answered {op} with error {response.error_kind!r}")
    return response.result

"""What the suite's properties and snapshots share: calling the adapter and remembering
the calls, so that a failure is told in the protocol's terms (op, args, reply)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from memspec.adapters import Adapter, Response
from memspec.exceptions import CaseFailure

__all__ = ["Call", "recent_calls", "reference_result", "reply", "result"]

_KEEP = 4


@dataclass(frozen=True)
class Call:
    op: str
    args: dict[str, Any]
    response: Response

    def reply_json(self) -> dict[str, Any]:
        if self.response.is_error:
            return {
                "error": {"kind": self.response.error_kind, "message": self.response.error_message}
            }
        return {"result": self.response.result}


_RECENT: deque[Call] = deque(maxlen=_KEEP)
_REFERENCE: list[Adapter] = []


def recent_calls() -> list[Call]:
    """The last few calls made through ``result`` and ``reply``, oldest first."""
    return list(_RECENT)


def reply(adapter: Adapter, op: str, args: dict[str, Any]) -> Response:
    """Call ``op`` and remember the call."""
    response = adapter.call(op, args)
    _RECENT.append(Call(op, args, response))
    return response


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

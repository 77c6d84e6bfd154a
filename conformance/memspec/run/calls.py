"""The calls a suite test (property, snapshot, protocol check) makes through the adapter,
remembered so that its outcome is told in the protocol's terms: the op, the args and the
reply, or what happened instead of a reply."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memspec.exceptions import AdapterBroken, AdapterFault
from memspec.run.scratch import open_folders
from memspec.run.trees import Entry, read_tree
from memspec.wire.adapters import Adapter, Response

__all__ = ["Call", "CaseStopped", "call_adapter", "forget_calls", "recent_calls"]

_KEEP = 4


@dataclass(frozen=True)
class Call:
    op: str
    args: Mapping[str, Any]
    response: Response | None = None
    fault: str = ""
    """What happened instead of a reply (the adapter died, hung, or answered garbage)."""
    root: str = ""
    """The scratch folder the args name, when ``--export-failures`` asks for it."""
    tree: Mapping[str, Entry] | None = None
    """What that folder held just before the call."""

    def reply_json(self) -> dict[str, Any]:
        if self.response is None:
            return {"fault": self.fault}
        if self.response.is_error:
            return {
                "error": {"kind": self.response.error_kind, "message": self.response.error_message}
            }
        return {"result": self.response.result}


class CaseStopped(BaseException):
    """The adapter gave no proper answer during a suite test.

    Not an ``Exception``, so that Hypothesis lets it through at once instead of shrinking
    and replaying against an adapter that died: the case stops and is judged an error.
    """

    def __init__(self, call: Call) -> None:
        super().__init__(call.fault)
        self.call = call


_RECENT: deque[Call] = deque(maxlen=_KEEP)


def recent_calls() -> list[Call]:
    """The last few calls of the running test, oldest first."""
    return list(_RECENT)


def forget_calls() -> None:
    """Start afresh: called before each test."""
    _RECENT.clear()


KEEP_TREES: list[bool] = [False]
"""Set by ``--export-failures``: each call keeps the tree it was made on."""


def _tree_of(args: Mapping[str, Any]) -> tuple[str, Mapping[str, Entry] | None]:
    if not KEEP_TREES[0]:
        return "", None
    text = json.dumps(args)
    for folder in reversed(open_folders()):
        if str(folder) in text:
            return str(folder), read_tree(folder)
    return "", None


def call_adapter(adapter: Adapter, op: str, args: Mapping[str, Any]) -> Response:
    """Call ``op`` and remember the call; a fault stops the case (``CaseStopped``)."""
    root, tree = _tree_of(args)
    try:
        response = adapter.call(op, args)
    except (AdapterFault, AdapterBroken) as exc:
        call = Call(op, args, fault=str(exc), root=root, tree=tree)
        _RECENT.append(call)
        raise CaseStopped(call) from exc
    _RECENT.append(Call(op, args, response, root=root, tree=tree))
    return response

"""memref with one twist each, in process (``python:memref_variants:NAME``) or out of
process (``python memref_variants.py NAME [ARGUMENT]``).

- ``Base64Text``: every string of every result is sent as ``{"base64": ...}``, which the
  protocol allows for any text: it must pass every case memref passes, of every kind.
- ``WrongOutline``: answers ``turnlog.outline`` with an extra line; right everywhere else.
- ``DiesOnce``: the process exits (status 3) at its third ``turnlog.turn_memory_enabled``
  request, once: ARGUMENT names a file it creates when it dies, and while that file exists
  it never dies again (a restarted adapter answers every request).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from typing import Any

from memref.serve import Implementation

__all__ = ["Base64Text", "DiesOnce", "WrongOutline"]


def _as_base64(value: Any) -> Any:
    if isinstance(value, str):
        return {"base64": base64.b64encode(value.encode("utf-8", "surrogatepass")).decode()}
    if isinstance(value, list):
        return [_as_base64(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"base64"}:
            return value
        return {key: _as_base64(item) for key, item in value.items()}
    return value


class Base64Text(Implementation):
    """Sends every string of every result as base64."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        if message.get("op") not in ("start", "stop") and "result" in reply:
            reply["result"] = _as_base64(reply["result"])
        return reply


class WrongOutline(Implementation):
    """Adds a line to every outline."""

    def handle(self, message: Any) -> dict[str, Any]:
        reply = super().handle(message)
        if message.get("op") == "turnlog.outline" and isinstance(reply.get("result"), str):
            reply["result"] += "\n9  extra"
        return reply


class DiesOnce(Implementation):
    """Exits at its third gate request, unless the marker file says it already did."""

    def __init__(self, marker: str = "") -> None:
        self.marker = marker
        self.gate_calls = 0

    def handle(self, message: Any) -> dict[str, Any]:
        if message.get("op") == "turnlog.turn_memory_enabled":
            self.gate_calls += 1
            if self.gate_calls == 3 and self.marker and not os.path.exists(self.marker):
                open(self.marker, "w").close()
                print("dying on purpose", file=sys.stderr, flush=True)
                os._exit(3)
        return super().handle(message)


def _serve(implementation: Implementation) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        reply = implementation.handle(message)
        print(json.dumps(reply), flush=True)
        if message.get("op") == "stop":
            return


if __name__ == "__main__":
    variant = {"Base64Text": Base64Text, "WrongOutline": WrongOutline, "DiesOnce": DiesOnce}
    _serve(variant[sys.argv[1]](*sys.argv[2:]))

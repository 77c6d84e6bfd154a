"""memref behind the memspec adapter protocol: in process, or over stdin and stdout."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import IO, Any

import memref
from memref.errors import OpError

__all__ = ["OPS", "Implementation", "serve"]

Op = Callable[[Mapping[str, Any]], Any]


def _load_ops() -> dict[str, Op]:
    from memref.memdir import _ops as memdir_ops

    ops: dict[str, Op] = {}
    ops.update(memdir_ops.OPS)
    return ops


OPS: dict[str, Op] = _load_ops()
PROFILES = sorted({name.split(".", 1)[0] for name in OPS})
CAPABILITIES = ["symlinks", "fifos"]


class Implementation:
    """Answers protocol messages as dictionaries: the in-process form of the adapter."""

    def start_result(self) -> dict[str, Any]:
        return {
            "implementation": {
                "name": "memref",
                "version": memref.__version__,
                "language": "python",
            },
            "protocol_version": memref.PROTOCOL_VERSION,
            "profiles": PROFILES,
            "capabilities": CAPABILITIES,
        }

    def handle(self, message: Mapping[str, Any]) -> dict[str, Any]:
        request_id = message.get("id")
        op = message.get("op")
        if op == "start":
            return {"id": request_id, "result": self.start_result()}
        if op == "stop":
            return {"id": request_id, "result": None}
        args = message.get("args", {})
        function = OPS.get(op) if isinstance(op, str) else None
        if function is None:
            return _error(request_id, "unknown-op", f"unknown op {op!r}")
        if not isinstance(args, dict):
            return _error(request_id, "invalid-args", "args must be an object")
        try:
            return {"id": request_id, "result": function(args)}
        except OpError as exc:
            return _error(request_id, exc.kind, exc.message)
        except Exception as exc:  # a bug in memref is still an answer, never a dead adapter
            detail = "".join(traceback.format_exception_only(exc)).strip()
            return _error(request_id, "internal", detail)


def _error(request_id: Any, kind: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"kind": kind, "message": message}}


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Serve the protocol over JSON lines until ``stop`` or end of input."""
    reader = stdin or sys.stdin
    writer = stdout or sys.stdout
    implementation = Implementation()
    for line in reader:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            reply: dict[str, Any] = _error(None, "invalid-args", f"not JSON: {exc}")
        else:
            if not isinstance(message, dict):
                reply = _error(None, "invalid-args", "a request must be a JSON object")
            else:
                reply = implementation.handle(message)
        writer.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
        writer.flush()
        if isinstance(message, dict) and message.get("op") == "stop":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(serve())

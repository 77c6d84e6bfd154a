"""memref behind the memspec adapter protocol: in process, or over stdin and stdout."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

import memref
from memref._faults import counting
from memref.errors import OpError

__all__ = ["OPS", "Implementation", "serve"]

Op = Callable[[Mapping[str, Any]], Any]


# What memref claims as an implementation: every capability the harness knows. A profile
# whose cases need one of them lists it in its ``_ops.CAPABILITIES`` as well; a test keeps
# the two in step, so that ``start`` can be answered without importing any profile.
CAPABILITIES = ["concurrency", "fault-injection", "fifos", "git", "symlinks", "threads"]

_PACKAGE = os.path.dirname(memref.__file__)


def _profile_names() -> list[str]:
    """Every subpackage of memref with an ``_ops`` module is a profile it serves."""
    return sorted(
        entry.name
        for entry in os.scandir(_PACKAGE)
        if entry.is_dir()
        and not entry.name.startswith("_")
        and os.path.isfile(os.path.join(entry.path, "_ops.py"))
    )


PROFILES = _profile_names()


class _Ops(Mapping[str, Op]):
    """The ops of every profile, each profile imported when one of its ops is first
    asked for: a start answers before any profile's code is loaded."""

    def __init__(self) -> None:
        self._loaded: dict[str, Mapping[str, Op]] = {}

    def _profile(self, name: str) -> Mapping[str, Op]:
        if name not in self._loaded:
            module = importlib.import_module(f"memref.{name}._ops")
            self._loaded[name] = module.OPS
        return self._loaded[name]

    def __getitem__(self, op: str) -> Op:
        profile = op.split(".", 1)[0]
        if profile not in PROFILES:
            raise KeyError(op)
        return self._profile(profile)[op]

    def __iter__(self) -> Iterator[str]:
        for name in PROFILES:
            yield from self._profile(name)

    def __len__(self) -> int:
        return sum(len(self._profile(name)) for name in PROFILES)


OPS: Mapping[str, Op] = _Ops()


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
        fault = message.get("fault")
        fail_at = fault.get("fail_mutation") if isinstance(fault, dict) else None
        if fault is not None and not (isinstance(fail_at, int) and fail_at >= 1):
            return _error(request_id, "invalid-args", "fault needs fail_mutation >= 1")
        with counting(fail_at) as counter:
            reply = _answer(request_id, function, args)
        if fault is not None:
            reply["mutations"] = counter.attempted
        return reply


def _answer(request_id: Any, function: Op, args: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return {"id": request_id, "result": function(args)}
    except OpError as exc:
        return _error(request_id, exc.kind, exc.message)
    except Exception as exc:  # a bug in memref is still an answer, never a dead adapter
        import traceback  # only on this path: the adapter starts without it

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
